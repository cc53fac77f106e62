// Decoding a LoRA model on merged weights (merged_lora.ts): one product a layer
// on the copy (W + scale A B)^T instead of the adapter's five ops. Checked against those ops: the
// same greedy tokens, logits and log-probs within float32 rounding; the copies follow the weights
// after an update; adapters off still means the base; nothing leaks, and the copies go with the
// model.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dotProductActive } from '../../src/kernels/matmul/kernels.ts';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { transposedWeightStats } from '../../src/kernels/matmul/decode_products.ts';
import { defaultLoraConfig } from '../../src/model/lora.ts';
import { CausalLM } from '../../src/model/model.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { generate } from '../../src/model/sample.ts';
import { useBackend } from '../helpers/models.ts';
import { maxAbsDiff } from '../helpers/numbers.ts';
import { setSwitches, withSwitches } from '../../src/kernels/switches.ts';

// big enough that the projections but k and v take the dot-product kernel (k * n >= 16384)
const config = parseModelConfig({
  model_type: 'llama',
  vocab_size: 320,
  hidden_size: 128,
  intermediate_size: 256,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  max_position_embeddings: 256,
});
const ids = Array.from({ length: 40 }, (_, t) => (t * 37 + 5) % 320);
const prompts = Array.from({ length: 6 }, (_, b) => ids.slice(0, 3 + 2 * b));

/**
 * New values for the model's adapters (or, with `name`, the variable so named): as an optimizer
 * step would assign.
 */
function assignAll(model: CausalLM, seed: number, only?: (name: string) => boolean): void {
  let i = 0;
  for (const [name, variable] of model.trainableVariables()) {
    if (only && !only(name)) continue;
    tf.tidy(() => variable.assign(tf.randomNormal(variable.shape, 0, 0.05, 'float32', seed + i++)));
  }
}

function logits(model: CausalLM, merged: boolean): Float32Array[] {
  setSwitches({ mergedAdapters: merged });
  try {
    return model.logits(ids);
  } finally {
    setSwitches({ mergedAdapters: true });
  }
}

function worst(a: Float32Array[], b: Float32Array[]): number {
  return Math.max(...a.map((row, t) => maxAbsDiff(row, b[t]!)));
}

describe('LoRA decoding on merged weights (wasm)', () => {
  let model: CausalLM;
  let copiesBefore: number;
  beforeAll(async () => {
    await useBackend('wasm');
    copiesBefore = transposedWeightStats().copies;
    model = CausalLM.fromWeights(config, randomWeights(config, 3), {
      kind: 'lora',
      lora: { ...defaultLoraConfig, seed: 2 },
    });
    assignAll(model, 10); // B starts at 0: give every adapter a say
  });
  afterAll(() => model.dispose());

  it('matches the adapter ops: logits, greedy tokens and log-probs', async () => {
    expect(dotProductActive()).toBe(true); // the path under test serves this backend
    const ops = logits(model, false);
    const copiesOps = transposedWeightStats().copies;
    const merged = logits(model, true);
    // a merged copy per projection big enough for the kernel: all but k and v (128 x 64, grouped
    // heads), which keep the ops
    expect(transposedWeightStats().copies - copiesOps).toBe(5 * config.numLayers);
    expect(worst(merged, ops)).toBeLessThan(2e-5);
    // a prefill past the dot kernel's 128 rows takes the merged weights too
    const long = Array.from({ length: 200 }, (_, t) => (t * 11 + 3) % 320);
    const run = (on: boolean) => withSwitches({ mergedAdapters: on }, () => model.logits(long));
    expect(worst(run(true), run(false))).toBeLessThan(2e-5);
    const profile = await tf.profile(() => {
      run(true);
    });
    expect(
      profile.kernels.filter(
        (k) => k.name === 'AgenticRlSimdMatMulT' && k.inputShapes[0]?.[0] === 200,
      ).length,
    ).toBe(5 * config.numLayers);
    const base = model.withAdaptersDisabled(() => model.logits(ids));
    expect(worst(merged, base)).toBeGreaterThan(1e-2); // the adapters matter here

    const sample = async (on: boolean) => {
      setSwitches({ mergedAdapters: on });
      try {
        return await generate(model, prompts, { maxNewTokens: 12, temperature: 0, eosIds: [] });
      } finally {
        setSwitches({ mergedAdapters: true });
      }
    };
    const [a, b] = [await sample(true), await sample(false)];
    expect(a.ids).toEqual(b.ids);
    a.logprobs.forEach((row, i) => expect(maxAbsDiff(row, b.logprobs[i]!)).toBeLessThan(2e-5));
  });

  it('follows the adapters and the base weights when they are assigned (no stale copy)', () => {
    const before = logits(model, true);
    assignAll(model, 50, (name) => name.includes('layers.1.') && name.endsWith('lora_B.weight'));
    const afterAdapters = logits(model, true);
    expect(worst(afterAdapters, before)).toBeGreaterThan(1e-3);
    expect(worst(afterAdapters, logits(model, false))).toBeLessThan(2e-5);
    const q = model.params.layers[0]!.projections.q_proj.weight as tf.Variable;
    tf.tidy(() => q.assign(tf.mul(q, 1.5)));
    const afterBase = logits(model, true);
    expect(worst(afterBase, afterAdapters)).toBeGreaterThan(1e-3);
    expect(worst(afterBase, logits(model, false))).toBeLessThan(2e-5);
  });

  it('with adapters off decodes the base weights, the same bits either way', () => {
    const on = model.withAdaptersDisabled(() => logits(model, true));
    const off = model.withAdaptersDisabled(() => logits(model, false));
    expect(worst(on, off)).toBe(0);
  });

  it('leaks no tensors across decoding and updates, and its copies go with the model', async () => {
    const other = CausalLM.fromWeights(config, randomWeights(config, 4), {
      kind: 'lora',
      lora: { ...defaultLoraConfig, seed: 3 },
    });
    const copies = transposedWeightStats().copies;
    const step = async (seed: number) => {
      assignAll(other, seed);
      await generate(other, prompts, { maxNewTokens: 4, temperature: 1, seed, eosIds: [] });
    };
    await step(1);
    const tensors = tf.memory().numTensors;
    const numbers = transposedWeightStats().numbers;
    for (let s = 2; s <= 5; s++) await step(s);
    expect(tf.memory().numTensors).toBe(tensors);
    expect(transposedWeightStats().numbers).toBe(numbers); // remade in place, not added
    other.dispose();
    expect(transposedWeightStats().copies).toBe(copies);
    expect(copies).toBeGreaterThan(copiesBefore); // (the first model's copies are still there)
  });
});
