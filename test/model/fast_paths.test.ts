// The model's seam for kernel choice (src/model/fast_paths.ts): on wasm every question answers its
// fast path with the switches on and 'reference' (or the reference's layout) with the path's
// switch off; on the cpu backend every answer is the reference; and each fast path that plugs in
// behind the decoder (the fused blocks, the in-place cache's attention paths, the merged adapters,
// AdamW's fused step) gives the reference's numbers, within the tolerances of the kernels' own
// tests (test/kernels/tfjs/*.test.ts, test/model/lora_merge.test.ts). The other answers' paths are
// checked against their references where they live: the norm (test/kernels/tfjs/rmsnorm.test.ts),
// causal products (test/kernels/matmul/causal_attention.test.ts), the one-op LoRA layer
// (test/model/lora_op.test.ts), sampling (test/kernels/simd/sample.test.ts), shared prefixes
// (test/model/shared_prefix.test.ts), and the WebGPU answers in Chromium (test/e2e/webgpu*.test.ts).
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KernelSwitches, kernelCounts, withSwitches } from '../../src/kernels/switches.ts';
import { AdamW } from '../../src/model/adamw.ts';
import { fastPaths } from '../../src/model/fast_paths.ts';
import { KvCache } from '../../src/model/kv_cache.ts';
import { LORA_TARGETS } from '../../src/model/lora_targets.ts';
import type { CausalLM, TrainingMode } from '../../src/model/model.ts';
import { generate } from '../../src/model/sample.ts';
import { loadFixture, useBackend } from '../helpers/models.ts';
import { expectClose } from '../helpers/numbers.ts';

const decodeStep = { cache: { inPlace: true }, time: 1, headDim: 64, differentiable: false };

/** Each question, its answer with every switch on (wasm), and the switches whose one off makes it the reference's. */
const questions: [string, () => unknown, unknown, Partial<KernelSwitches>[], unknown][] = [
  ['norm', () => fastPaths.norm(64), 'simd', [{ simdRmsNorm: false }], 'reference'],
  ['block', () => fastPaths.block(64, false), 'fused', [{ simdRmsNorm: false }], 'reference'],
  [
    'attention',
    () => fastPaths.attention(decodeStep),
    'decode-block',
    [{ decodeBlock: false, decodeAttention: false }],
    'cache-products',
  ],
  [
    'causalProducts',
    () => fastPaths.causalProducts(),
    'causal',
    [{ causalSkipping: false }],
    'reference',
  ],
  ['kvCache', () => fastPaths.kvCache(), 'in-place', [{ simdMatMul: false }], 'concat'],
  [
    'decodeLinears',
    () => fastPaths.decodeLinears(),
    'fused',
    [{ fusedDecodeLinears: false }],
    'reference',
  ],
  ['loraLayer', () => fastPaths.loraLayer(), 'one-op', [{ loraOp: false }], 'reference'],
  [
    'mergedAdapters',
    () => fastPaths.mergedAdapters(() => true),
    'merged',
    [{ mergedAdapters: false }, { dotProductKernel: false }, { simdMatMul: false }],
    'reference',
  ],
  ['sampling', () => fastPaths.sampling(), 'simd', [{ simdSampling: false }], 'reference'],
  [
    'sharedPrefixes',
    () => fastPaths.sharedPrefixes(),
    'shared',
    [{ sharedPrefixes: false }],
    'reference',
  ],
  ['adamW', () => fastPaths.adamW(), 'simd', [{ simdAdamW: false }], 'reference'],
];

describe('the fast-path seam (wasm)', () => {
  beforeAll(() => useBackend('wasm'));

  it.each(questions)(
    '%s: the fast path with the switches on, the reference with its switch off',
    (_, ask, fast, offs, reference) => {
      expect(ask()).toBe(fast);
      for (const off of offs) expect(withSwitches(off, ask)).toBe(reference);
      expect(ask()).toBe(fast);
    },
  );

  it('names each attention path by the call and the switches, and the reference without an in-place cache', () => {
    expect(fastPaths.attention(decodeStep)).toBe('decode-block');
    expect(withSwitches({ decodeBlock: false }, () => fastPaths.attention(decodeStep))).toBe(
      'decode-attention',
    );
    expect(fastPaths.attention({ ...decodeStep, headDim: 12 })).toBe('decode-attention'); // (hd / 2) % 4 off
    expect(fastPaths.attention({ ...decodeStep, headDim: 30 })).toBe('cache-products'); // hd % 4 off too
    expect(fastPaths.attention({ ...decodeStep, time: 5 })).toBe('cache-products'); // a prefill
    expect(fastPaths.attention({ ...decodeStep, cache: { inPlace: false } })).toBe('reference');
    expect(fastPaths.attention({ ...decodeStep, cache: undefined })).toBe('reference');
    expect(fastPaths.block(64, true)).toBe('reference'); // under a gradient the blocks stay apart
    expect(fastPaths.mergedAdapters(() => false)).toBe('reference'); // a shape the kernel does not take
  });

  it('keeps the wasm backend choices: 16-bit weights in the dot store, no GPU path', () => {
    expect(fastPaths.weights16()).toBe('wasm');
    expect(fastPaths.logSumExp()).toBe('softmax');
    expect(fastPaths.rope(tf.zeros([1, 2, 3, 8]), tf.zeros([1, 1, 3, 8]))).toBe('wasm');
    expect(fastPaths.rope(tf.zeros([6, 8]), tf.zeros([6, 8]))).toBe('reference');
    expect(fastPaths.decoding()).toBe('reference');
    expect(fastPaths.gpuActive()).toBe(false);
    expect(fastPaths.webGpu()).toBeNull();
    expect(fastPaths.gpuLimits()).toBeNull();
    const variable = tf.variable(tf.zeros([2]));
    expect(fastPaths.gpuAdamW(new Map([['w', variable]]))).toBeNull();
    variable.dispose();
    // the KV cache takes the seam's layout unless told
    expect(new KvCache(2).inPlace).toBe(true);
    expect(withSwitches({ simdMatMul: false }, () => new KvCache(2).inPlace)).toBe(false);
    expect(() =>
      withSwitches({ simdMatMul: false }, () => new KvCache(2, { inPlace: true })),
    ).toThrow(/in-place KV cache needs the wasm backend/);
  });

  it('answers the reference on the cpu backend', async () => {
    await useBackend('cpu');
    try {
      expect(fastPaths.norm(64)).toBe('reference');
      expect(fastPaths.block(64, false)).toBe('reference');
      expect(fastPaths.attention(decodeStep)).toBe('cache-products'); // (a cache in place is refused here)
      expect(fastPaths.kvCache()).toBe('concat');
      expect(fastPaths.causalProducts()).toBe('reference');
      expect(fastPaths.mergedAdapters(() => true)).toBe('reference');
      expect(fastPaths.adamW()).toBe('reference');
      expect(fastPaths.weights16()).toBe('float32');
      expect(fastPaths.logSumExp()).toBe('reference');
      expect(fastPaths.rope(tf.zeros([1, 2, 3, 8]), tf.zeros([1, 1, 3, 8]))).toBe('reference');
      expect(fastPaths.decoding()).toBe('reference');
    } finally {
      await useBackend('wasm');
    }
  });
});

describe('each fast path behind the seam against the reference (wasm)', () => {
  const lora: TrainingMode = {
    kind: 'lora',
    lora: { rank: 4, alpha: 8, dropout: 0, targetModules: [...LORA_TARGETS], seed: 1 },
  };
  const models = new Map<string, CausalLM>();
  beforeAll(async () => {
    await useBackend('wasm');
    for (const name of ['tiny-qwen2', 'tiny-qwen3-bf16']) {
      const model = await loadFixture(name, lora);
      // adapters that act (B starts at 0)
      [...model.trainableVariables().values()].forEach((v, i) =>
        v.assign(tf.randomNormal(v.shape, 0, 0.05, 'float32', i + 1)),
      );
      models.set(name, model);
    }
  });
  afterAll(() => {
    for (const model of models.values()) model.dispose();
  });

  /** Every switch of a path the decoder or generate() takes through the seam, off. */
  const reference: Partial<KernelSwitches> = {
    simdRmsNorm: false,
    decodeBlock: false,
    decodeAttention: false,
    causalSkipping: false,
    fusedDecodeLinears: false,
    mergedAdapters: false,
  };

  it.each(['tiny-qwen2', 'tiny-qwen3-bf16'])(
    '%s: a forward without a gradient, fused blocks and merged adapters, within 2e-5 of the reference',
    (name) => {
      const model = models.get(name)!;
      const ids = [256, 10, 11, 12, 13, 40, 41];
      const fast = model.logits(ids);
      const slow = withSwitches(reference, () => {
        expect(fastPaths.block(model.config.hiddenSize, false)).toBe('reference');
        return model.logits(ids);
      });
      fast.forEach((row, i) => expectClose(row, slow[i]!, 2e-5, 2e-5));
    },
  );

  it.each(['tiny-qwen2', 'tiny-qwen3-bf16'])(
    '%s: decoding on each attention path draws the reference tokens, log-probs within 1e-5',
    async (name) => {
      const model = models.get(name)!;
      const prompts = [
        [256, 10, 11, 12, 13],
        [256, 40, 41],
      ];
      const run = (switches: Partial<KernelSwitches>, inPlaceCache?: boolean) =>
        withSwitches(switches, () =>
          generate(model, prompts, {
            maxNewTokens: 12,
            temperature: 0.9,
            seed: 5,
            eosIds: [],
            ...(inPlaceCache === undefined ? {} : { inPlaceCache }),
          }),
        );
      const want = await run(reference, false); // the concatenated cache: the reference attention
      const blocks = kernelCounts.decodeBlocks;
      const paths = [
        await run({}), // decode-block
        await run({ decodeBlock: false }), // decode-attention
        await run({ decodeBlock: false, decodeAttention: false }), // cache-products
        await run({}, false), // the reference attention, the other fast paths on
      ];
      expect(kernelCounts.decodeBlocks - blocks).toBe(11 * model.config.numLayers); // only the first ran it
      for (const got of paths) {
        expect(got.ids).toEqual(want.ids);
        got.logprobs.forEach((row, i) => expectClose(row, want.logprobs[i]!, 0, 1e-5));
      }
    },
  );

  it('AdamW: the fused step and norm give the reference ops bit for bit', async () => {
    const step = async (on: boolean) =>
      withSwitches({ simdAdamW: on }, async () => {
        expect(fastPaths.adamW()).toBe(on ? 'simd' : 'reference');
        const w = tf.variable(tf.tensor1d([0.5, -1.25, 2, 0.1, 3, -0.7, 0.25, 1]));
        const g = { w: tf.tensor1d([0.1, 0.2, -0.3, 0.4, -0.05, 0.6, 0.7, -0.8]) };
        const optimizer = new AdamW(new Map([['w', w]]), {
          learningRate: 1e-2,
          beta1: 0.9,
          beta2: 0.999,
          epsilon: 1e-8,
          weightDecay: 0.01,
        });
        const norm = await optimizer.globalNorm(g);
        optimizer.apply(g, 1e-2, 0.5);
        optimizer.apply(g);
        const values = w.dataSync().slice();
        optimizer.dispose();
        tf.dispose([w, g.w]);
        return { norm, values };
      });
    const [fast, slow] = [await step(true), await step(false)];
    expect(fast.values).toEqual(slow.values);
    expect(fast.norm).toBeCloseTo(slow.norm, 6);
  });
});
