// savedActivationBytes (src/model_files/activation_budget.ts) against what the forward pass really
// keeps: the distinct buffers the tape's nodes saved (weights aside), read off tfjs's engine on
// wasm, for LoRA (one-op and separate-op paths) and full fine-tuning, with and without a shared
// prompt; with recompute, the layer inputs on the tape plus one layer's set (the plain tape's
// difference over the layers); and hand-worked cases of the arithmetic.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  savedActivationBytes,
  type TrainingShape,
} from '../../src/model_files/activation_budget.ts';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { tokenLogprobs } from '../../src/model/logprobs.ts';
import { LORA_TARGETS } from '../../src/model/lora_targets.ts';
import { CausalLM, type TrainingMode } from '../../src/model/model.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { useBackend } from '../helpers/models.ts';

const config = (family: string) =>
  parseModelConfig({
    model_type: family,
    vocab_size: 300,
    hidden_size: 128,
    intermediate_size: 256,
    num_hidden_layers: 3,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    max_position_embeddings: 1024,
  });
const targets = [...LORA_TARGETS];
const lora: TrainingMode = {
  kind: 'lora',
  lora: { rank: 8, alpha: 16, dropout: 0, targetModules: targets, seed: 1 },
};
const PROMPT = 70;
const sequences = [40, 1, 95].map((n, b) => [
  ...Array.from({ length: PROMPT }, (_, t) => (t * 7 + 5) % 300),
  ...Array.from({ length: n }, (_, t) => (t * (11 + b) + 3 * b) % 300),
]);

/** Bytes of the distinct buffers the tape's nodes saved, variables (the weights) aside. */
function tapeBytes(): number {
  const weights = new Set(Object.values(tf.engine().registeredVariables).map((v) => v.dataId));
  const seen = new Set<unknown>();
  let bytes = 0;
  for (const node of tf.engine().state.activeTape) {
    for (const t of node.saved ?? []) {
      if (weights.has(t.dataId) || seen.has(t.dataId)) continue;
      seen.add(t.dataId);
      bytes += t.size * 4;
    }
  }
  return bytes;
}

/** What the tape holds when the forward pass ends, inside tf.variableGrads. */
function saved(model: CausalLM, sharedPrefix: number, recompute: boolean): number {
  let bytes = 0;
  tf.tidy(() => {
    tf.variableGrads(() => {
      const options = { temperature: 1, sharedPrefix, recompute };
      const loss = tf.sum(tokenLogprobs(model, sequences, options)) as tf.Scalar;
      bytes = tapeBytes();
      return loss;
    }, [...model.trainableVariables().values()]);
  });
  return bytes;
}

describe('savedActivationBytes', () => {
  beforeAll(() => useBackend('wasm'));

  it.each([
    ['LoRA Qwen2 (separate ops beside the q/k/v biases)', 'qwen2', lora],
    ['LoRA Llama (one op a projection)', 'llama', lora],
    ['full Qwen2', 'qwen2', { kind: 'full' } as TrainingMode],
    ['full Qwen3 (q/k head norms)', 'qwen3', { kind: 'full' } as TrainingMode],
  ] as const)('%s: within 4% of the tape, recomputed or not', (_name, family, training) => {
    const shapes = config(family);
    const model = CausalLM.fromWeights(shapes, randomWeights(shapes, 3), training);
    const shape: TrainingShape =
      training.kind === 'lora'
        ? { kind: 'lora', rank: 8, targets, frozen16: false }
        : { kind: 'full' };
    const T = Math.max(...sequences.map((s) => s.length)) - 1;
    for (const prefix of [0, PROMPT - 1]) {
      const rows = prefix > 0 ? prefix + 3 * (T - prefix) : 3 * T;
      const [plain, recomputed] = [saved(model, prefix, false), saved(model, prefix, true)];
      const oneLayer = (plain - recomputed) / shapes.numLayers; // its set less its input
      const batch = { sequences: prefix > 0 ? 3 : 1, shared: prefix };
      const estimate = (recompute: boolean) =>
        savedActivationBytes(shapes, rows, T, recompute, { training: shape, batch });
      expect(Math.abs(estimate(false) / plain - 1)).toBeLessThan(0.04);
      expect(Math.abs(estimate(true) / (recomputed + oneLayer) - 1)).toBeLessThan(0.04);
    }
    model.dispose();
  });

  it('grows with rows and keys, and recompute keeps one layer in L', () => {
    // SmolLM2-135M's shape: a layer's set at 1000 rows x 500 keys, against its input
    const smol = parseModelConfig({
      model_type: 'llama',
      vocab_size: 49152,
      hidden_size: 576,
      intermediate_size: 1536,
      num_hidden_layers: 30,
      num_attention_heads: 9,
      num_key_value_heads: 3,
      max_position_embeddings: 8192,
      tie_word_embeddings: true,
    });
    const shape: TrainingShape = { kind: 'lora', rank: 8, targets, frozen16: true };
    const at = (rows: number, keys: number, recompute: boolean) =>
      savedActivationBytes(smol, rows, keys, recompute, { training: shape });
    // per layer and row: 6 rows of D (input, normed twice, attention's output, its sum, the MLP's
    // output) and two 1/rms, 5 of the query's width 576, 4 of the keys' 192, LoRA's 7 x 8, 3 of F;
    // plus the scores and their softmax, 2 * 9 heads * keys
    const perRow = 6 * 576 + 2 + 5 * 576 + 4 * 192 + 7 * 8 + 3 * 1536;
    expect(perRow).toBe(11770);
    const layer = 4 * 1000 * (perRow + 18 * 500);
    // RoPE's three tables and the ids; the last layer's output, the head's four and two 1/rms; a
    // chunk of 85 rows of logits
    const once = 4 * (1000 * (3 * 64 + 1) + 1000 * (5 * 576 + 2) + 85 * 49152);
    expect(at(1000, 500, false)).toBe(30 * layer + once);
    // recomputed: 30 inputs, one layer's set (its input counted once), the mask (500 x 500)
    const inputs = 4 * 1000 * 576;
    expect(at(1000, 500, true)).toBe(30 * inputs + layer - inputs + 4 * 500 * 500 + once);
    expect(at(1000, 500, false)).toBeGreaterThan(at(1000, 400, false));
    expect(at(2000, 500, false)).toBeGreaterThan(at(1000, 500, false));
    expect(at(1000, 500, true)).toBeLessThan(at(1000, 500, false) / 10);
  });
});
