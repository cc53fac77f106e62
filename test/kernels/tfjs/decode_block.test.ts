// Decoding's attention block as one kernel (kernels/tfjs/decode_block.ts: RoPE on the query and
// key, the key and value written into the in-place cache, attention) against the kernels it
// replaces run one by one: generate() gives the same tokens and the same log-prob bits, on Llama,
// Qwen2 (q/k/v biases), Qwen3 (q/k head norms) and 16-bit weights, for prompts of different lengths
// (left padding masked) decoding past the cache's first capacity (64 slots, regrown in place).
import * as tf from '@tensorflow/tfjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kernelCounts, setSwitches } from '../../../src/kernels/switches.ts';
import { decodeBlockActive } from '../../../src/kernels/tfjs/decode_block.ts';
import { generate } from '../../../src/model/sample.ts';
import { halfWeights } from '../../../src/model/params.ts';
import { LORA_TARGETS } from '../../../src/model/lora_targets.ts';
import type { TrainingMode } from '../../../src/model/model.ts';
import { loadFixture, useBackend } from '../../helpers/models.ts';

describe('decode block (wasm)', () => {
  beforeAll(() => useBackend('wasm'));
  afterEach(() => {
    setSwitches({ decodeBlock: true, simdRope: true, fusedDecodeLinears: true });
  });

  it('serves head widths whose half is a multiple of 4, and not with either kernel off', () => {
    expect(decodeBlockActive(64)).toBe(true);
    expect(decodeBlockActive(8)).toBe(true);
    expect(decodeBlockActive(12)).toBe(false); // half 6
    setSwitches({ simdRope: false });
    expect(decodeBlockActive(64)).toBe(false);
    setSwitches({ simdRope: true, decodeBlock: false });
    expect(decodeBlockActive(64)).toBe(false);
  });

  it.each(['tiny-llama', 'tiny-qwen2', 'tiny-qwen3', 'tiny-qwen3-bf16'])(
    '%s: the same tokens and log-prob bits as the kernels one by one, past the first capacity',
    async (name) => {
      const model = await loadFixture(name);
      try {
        const prompts = [
          [256, 10, 11, 12, 13],
          [256, 40, 41, 42, 43, 44, 45, 46, 47],
          [256, 90],
        ];
        const run = () =>
          generate(model, prompts, { maxNewTokens: 70, temperature: 0.9, seed: 4, eosIds: [] });
        await generate(model, prompts, { maxNewTokens: 2, temperature: 0.9, eosIds: [] }); // the model's lasting tables
        const before = tf.memory().numTensors;
        const blocks = kernelCounts.decodeBlocks;
        const fused = await run();
        // every layer of every decoding step after the prompts' prefill
        expect(kernelCounts.decodeBlocks - blocks).toBe(69 * model.config.numLayers);
        expect(tf.memory().numTensors).toBe(before);
        setSwitches({ decodeBlock: false });
        const apart = await run();
        expect(kernelCounts.decodeBlocks - blocks).toBe(69 * model.config.numLayers);
        expect(fused.ids).toEqual(apart.ids);
        expect(fused.logprobs).toEqual(apart.logprobs);
        expect(fused.ids[0]!.length).toBe(70);
      } finally {
        model.dispose();
      }
    },
  );

  it.each(['tiny-qwen2-bf16', 'tiny-qwen3-bf16'])(
    '%s with LoRA (16-bit frozen weights): the MLP and block ends fused give the bits of the kernels apart',
    async (name) => {
      const lora: TrainingMode = {
        kind: 'lora',
        lora: {
          rank: 4,
          alpha: 8,
          dropout: 0,
          targetModules: [...LORA_TARGETS],
          seed: 1,
        },
      };
      const model = await loadFixture(name, lora);
      try {
        expect(halfWeights(model.params).length).toBeGreaterThan(0);
        // adapters that act (B starts at 0)
        [...model.trainableVariables().values()].forEach((v, i) =>
          v.assign(tf.randomNormal(v.shape, 0, 0.05, 'float32', i + 1)),
        );
        const prompts = [
          [256, 10, 11, 12, 13],
          [256, 40, 41],
        ];
        const run = () =>
          generate(model, prompts, { maxNewTokens: 30, temperature: 0.9, seed: 6, eosIds: [] });
        const before = kernelCounts.fusedLinears16;
        const fused = await run();
        // per forward call (the prefill's 10 rows are few enough too, then 29 decoding steps) and
        // layer: the MLP's gate and up, and both block ends
        expect(kernelCounts.fusedLinears16 - before).toBe(30 * 3 * model.config.numLayers);
        setSwitches({ decodeBlock: false, fusedDecodeLinears: false });
        const apart = await run();
        expect(kernelCounts.fusedLinears16 - before).toBe(30 * 3 * model.config.numLayers);
        expect(fused.ids).toEqual(apart.ids);
        expect(fused.logprobs).toEqual(apart.logprobs);
      } finally {
        model.dispose();
      }
    },
  );
});
