// Frozen 16-bit weights (half_weight.ts, half_ops.ts, src/kernels/matmul/weights16.ts) against the
// float32 path on the same numbers: a model whose matrices ship as BF16 or F16 is loaded once as
// 16-bit residents and once as float32 variables holding their exact widening, and the two must
// compute the same function up to float32 summation order: logits, greedy tokens, token log-probs,
// and the gradients to the LoRA factors (which flow through every frozen weight's input gradient).
// Odd widths (not multiples of 4, 8 or 16) and a vocabulary that is not either.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { resident16Active, resident16Bytes } from '../../src/kernels/matmul/weights16.ts';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { tokenLogprobs } from '../../src/model/logprobs.ts';
import { LORA_TARGETS } from '../../src/model/lora_targets.ts';
import { CausalLM, type TrainingMode } from '../../src/model/model.ts';
import { baseVariables, halfWeights } from '../../src/model/params.ts';
import {
  floatToHalfBits,
  randomWeights,
  sixteenBitWeights,
} from '../../src/model/random_weights.ts';
import { halfToFloat } from '../../src/model_files/safetensors.ts';
import { generate } from '../../src/model/sample.ts';

const qwen2 = parseModelConfig({
  model_type: 'qwen2',
  vocab_size: 251,
  hidden_size: 56,
  intermediate_size: 139,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  max_position_embeddings: 256,
  tie_word_embeddings: true,
});
const llamaUntied = parseModelConfig({
  model_type: 'llama',
  vocab_size: 203,
  hidden_size: 36,
  intermediate_size: 75,
  num_hidden_layers: 2,
  num_attention_heads: 3,
  num_key_value_heads: 1,
  max_position_embeddings: 256,
  tie_word_embeddings: false,
});

const lora: TrainingMode = {
  kind: 'lora',
  lora: { rank: 4, alpha: 8, dropout: 0, targetModules: [...LORA_TARGETS], seed: 2 },
};

/** The model twice: 16-bit residents, and float32 variables of the same numbers. */
function pair(config: typeof qwen2, kind: 'BF16' | 'F16', training: TrainingMode) {
  const source = sixteenBitWeights(randomWeights(config, 5, 0.08), kind);
  const half = CausalLM.fromWeights(config, source, training);
  const { dtype: _dtype, bits16: _bits, ...float32Only } = source;
  const full = CausalLM.fromWeights(config, float32Only, training);
  // B != 0 so the adapters act; the same values in both
  const adapters = [half, full].map((model) => [...model.trainableVariables().values()]);
  adapters[0]!.forEach((variable, i) => {
    const value = tf.randomNormal(variable.shape, 0, 0.05, 'float32', 40 + i);
    variable.assign(value);
    adapters[1]![i]!.assign(value);
    value.dispose();
  });
  return { half, full };
}

function closeTo(ours: ArrayLike<number>, want: ArrayLike<number>, relative: number): void {
  let scale = 0;
  for (let i = 0; i < want.length; i++) scale = Math.max(scale, Math.abs(want[i]!));
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(ours[i]! - want[i]!));
  expect(ours.length).toBe(want.length);
  expect(worst).toBeLessThanOrEqual(relative * scale);
}

const ids = [
  Array.from({ length: 37 }, (_, t) => (t * 13 + 5) % 200),
  Array.from({ length: 23 }, (_, t) => (t * 7 + 1) % 200),
];

describe('frozen 16-bit weights', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
    expect(resident16Active()).toBe(true);
  });

  it('F16 rounding: exact halves, ties to even, subnormals, the largest normal, overflow', () => {
    expect(floatToHalfBits(1)).toBe(0x3c00);
    expect(floatToHalfBits(-2)).toBe(0xc000);
    expect(floatToHalfBits(65504)).toBe(0x7bff);
    expect(floatToHalfBits(65520)).toBe(0x7c00);
    expect(floatToHalfBits(2 ** -24)).toBe(0x0001);
    expect(floatToHalfBits(2 ** -25)).toBe(0x0000); // a tie: to even (0)
    expect(floatToHalfBits(3 * 2 ** -25)).toBe(0x0002); // a tie: to even (2)
    expect(floatToHalfBits(1 + 2 ** -11)).toBe(0x3c00); // a tie: to even
    expect(floatToHalfBits(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(floatToHalfBits(-0)).toBe(0x8000);
    for (const bits of [0x0001, 0x03ff, 0x0400, 0x3555, 0x7bff, 0xfbff, 0x8001])
      expect(floatToHalfBits(halfToFloat(bits))).toBe(bits);
  });

  it.each([
    ['BF16', qwen2],
    ['F16', qwen2],
    ['BF16', llamaUntied],
  ] as const)(
    '%s: a model loads its matrices as 16-bit residents, none as float32',
    (kind, config) => {
      const before = resident16Bytes();
      const { half, full } = pair(config, kind, lora);
      const matrices = 7 * config.numLayers + (config.tieWordEmbeddings ? 1 : 2);
      expect(halfWeights(half.params)).toHaveLength(matrices);
      expect([...baseVariables(half.params).values()].every((v) => v.rank === 1)).toBe(true);
      expect(resident16Bytes() - before).toBeGreaterThanOrEqual(
        2 * halfWeights(half.params).reduce((sum, w) => sum + w.size, 0),
      );
      expect(halfWeights(full.params)).toHaveLength(0);
      half.dispose();
      full.dispose();
      expect(resident16Bytes()).toBe(before);
    },
  );

  it.each([
    ['BF16', qwen2],
    ['F16', qwen2],
    ['BF16', llamaUntied],
  ] as const)('%s: logits and greedy tokens equal the float32 path', async (kind, config) => {
    const { half, full } = pair(config, kind, lora);
    const [ours, want] = [half.logits(ids[0]!), full.logits(ids[0]!)];
    ours.forEach((row, t) => closeTo(row, want[t]!, 2e-5));
    const greedy = (model: CausalLM) =>
      generate(model, [ids[0]!.slice(0, 9), ids[1]!.slice(0, 4)], {
        maxNewTokens: 12,
        temperature: 0,
        seed: 1,
        eosIds: [],
      });
    expect((await greedy(half)).ids).toEqual((await greedy(full)).ids);
    half.dispose();
    full.dispose();
  });

  it.each([
    ['BF16', 0, qwen2],
    ['F16', 5, qwen2],
    ['BF16', 0, llamaUntied],
  ] as const)(
    '%s: log-probs and LoRA gradients equal the float32 path (shared prefix %d)',
    (kind, prefix, config) => {
      const { half, full } = pair(config, kind, lora);
      const batch = prefix > 0 ? [ids[0]!, [...ids[0]!.slice(0, prefix), ...ids[1]!]] : ids;
      const run = (model: CausalLM) => {
        const list = [...model.trainableVariables().values()];
        return tf.tidy(() => {
          const { value, grads } = tf.variableGrads(() => {
            const logprobs = tokenLogprobs(model, batch, {
              temperature: 0.7,
              chunkElements: 7 * config.vocabSize,
              sharedPrefix: prefix,
            });
            const weights = tf.linspace(-1, 1.5, logprobs.size).reshape(logprobs.shape);
            return tf.sum(tf.mul(logprobs, weights)) as tf.Scalar;
          }, list);
          return [value.dataSync(), ...list.map((v) => grads[v.name]!.dataSync())];
        });
      };
      const [ours, want] = [run(half), run(full)];
      ours.forEach((values, i) => closeTo(values, want[i]!, 2e-5));
      const tensorsBefore = tf.memory().numTensors; // after the first runs' caches (RoPE tables)
      run(half);
      expect(tf.memory().numTensors).toBe(tensorsBefore);
      half.dispose();
      full.dispose();
    },
  );
});
