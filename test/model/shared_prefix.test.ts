// Scoring sequences that share a prefix (a GRPO group's prompt) with the prefix run once
// (logprobs.ts sharedPrefix) against running every sequence whole: the same log-probs past the
// prefix, zeros on it, and the same loss gradients for every trainable weight, on the wasm kernels
// (rows past the kernels' thresholds, on one thread and two) and on cpu (tfjs's ops), for a full
// model with grouped-query attention and a LoRA one. PyTorch's float64 gradients for a shared
// prompt: test/rl/update.test.ts's `group_shared_prompt` case.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useMatmulThreads } from '../../src/kernels/matmul/kernels.ts';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { tokenLogprobs } from '../../src/model/logprobs.ts';
import { LORA_TARGETS } from '../../src/model/lora_targets.ts';
import { CausalLM, type TrainingMode } from '../../src/model/model.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { useBackend } from '../helpers/models.ts';

const config = parseModelConfig({
  model_type: 'llama',
  vocab_size: 300,
  hidden_size: 128,
  intermediate_size: 256,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  max_position_embeddings: 512,
});
/** The same shapes as Qwen3: q/k head norms, heads of 48 (not 128 / 4). */
const qwen3 = parseModelConfig({
  model_type: 'qwen3',
  vocab_size: 300,
  hidden_size: 128,
  intermediate_size: 256,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  head_dim: 48,
  max_position_embeddings: 512,
});
const lora: TrainingMode = {
  kind: 'lora',
  lora: { rank: 8, alpha: 16, dropout: 0, targetModules: [...LORA_TARGETS], seed: 1 },
};

const PREFIX = 70;
const prompt = Array.from({ length: PREFIX }, (_, t) => (t * 7 + 5) % 300);
/** Three continuations of different lengths (one only a token past the prefix). */
const sequences = [40, 1, 95].map((n, b) => [
  ...prompt,
  ...Array.from({ length: n }, (_, t) => (t * (11 + b) + 3 * b) % 300),
]);
const T = Math.max(...sequences.map((s) => s.length)) - 1;
/** A loss weighing every scored column differently, zero on the prefix's columns. */
const weights = () =>
  tf.tensor2d(
    Array.from({ length: sequences.length * T }, (_, i) =>
      i % T < PREFIX ? 0 : Math.sin(i * 0.37),
    ),
    [sequences.length, T],
  );

function run(
  model: CausalLM,
  sharedPrefix: number,
): { logprobs: number[][]; grads: Float32Array[] } {
  const list = [...model.trainableVariables().values()];
  return tf.tidy(() => {
    const { grads } = tf.variableGrads(
      () =>
        tf.sum(
          tf.mul(tokenLogprobs(model, sequences, { temperature: 0.7, sharedPrefix }), weights()),
        ) as tf.Scalar,
      list,
    );
    const logprobs = tokenLogprobs(model, sequences, {
      temperature: 0.7,
      sharedPrefix,
    }).arraySync();
    return { logprobs, grads: list.map((v) => grads[v.name]!.dataSync() as Float32Array) };
  });
}

describe.each([
  ['wasm', 0],
  ['wasm', 1],
  ['cpu', 0],
] as const)('a shared prefix run once, on %s with %i helper thread(s)', (backend, helpers) => {
  beforeAll(async () => {
    await useBackend(backend);
    if (backend === 'wasm') await useMatmulThreads(helpers);
  });
  afterAll(async () => {
    if (backend === 'wasm') await useMatmulThreads(0);
  });

  it.each([
    ['full', { kind: 'full' } as TrainingMode, config],
    ['LoRA', lora, config],
    ['full Qwen3', { kind: 'full' } as TrainingMode, qwen3],
  ] as const)(
    '%s model: the log-probs and gradients of running every sequence whole',
    (_name, training, shapes) => {
      const model = CausalLM.fromWeights(shapes, randomWeights(shapes, 3), training);
      // LoRA's B starts at 0; random adapters so they act
      if (training.kind === 'lora')
        [...model.trainableVariables().values()].forEach((v, i) =>
          v.assign(tf.randomNormal(v.shape, 0, 0.05, 'float32', i)),
        );
      const whole = run(model, 0);
      const tensors = tf.memory().numTensors; // (after a first run, which may make lasting tables such as RoPE's)
      const shared = run(model, PREFIX);
      expect(tf.memory().numTensors).toBe(tensors);
      shared.logprobs.forEach((row, b) =>
        row.forEach((v, t) => {
          if (t < PREFIX) expect(v).toBe(0);
          else expect(Math.abs(v - whole.logprobs[b]![t]!)).toBeLessThan(2e-5);
        }),
      );
      expect(whole.logprobs[1]!.slice(PREFIX + 1).every((v) => v === 0)).toBe(true); // padding
      expect(shared.grads.length).toBe(whole.grads.length);
      shared.grads.forEach((grad, i) => {
        const scale = Math.max(...whole.grads[i]!.map(Math.abs));
        expect(scale).toBeGreaterThan(0);
        grad.forEach((v, j) =>
          expect(Math.abs(v - whole.grads[i]![j]!)).toBeLessThan(1e-4 * scale),
        );
      });
      model.dispose();
    },
  );
});

describe('sharedPrefix on bad input', () => {
  beforeAll(() => useBackend('cpu'));

  it('refuses a prefix the sequences do not share, or one as long as a sequence', () => {
    const model = CausalLM.fromWeights(config, randomWeights(config, 3));
    expect(() =>
      tokenLogprobs(
        model,
        [
          [1, 2, 3, 4],
          [1, 2, 5, 6],
        ],
        { temperature: 1, sharedPrefix: 3 },
      ),
    ).toThrow(/sequence 1 differs from sequence 0 at token 2/);
    expect(() =>
      tokenLogprobs(
        model,
        [
          [1, 2, 3, 4],
          [1, 2],
        ],
        { temperature: 1, sharedPrefix: 2 },
      ),
    ).toThrow(/sequence 1 has only 2 tokens/);
    expect(() => tokenLogprobs(model, [[1, 2, 3]], { temperature: 1, sharedPrefix: -1 })).toThrow(
      /whole number/,
    );
    model.dispose();
  });
});
