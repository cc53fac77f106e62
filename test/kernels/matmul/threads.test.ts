// The SIMD matmul kernel split over helper threads (kernels/matmul/threads.ts): the same bits as on
// one thread for split rows (every tail of the 4-row blocks) and split batches (shared and
// per-matrix B), products too small or strided left on one thread, the pool memory growing, a whole
// training gradient unchanged, decoding's dot products split by columns (the same bits, the same
// sampled tokens), the caller taking over every queued block when the helpers are late (held), a
// backward pass's two products one per thread (kernels/matmul/backward_pairs.ts), and the helpers
// stopped cleanly.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  holdMatmulHelpers,
  matmulThreadCount,
  simdMatMulActive,
  useMatmulThreads,
} from '../../../src/kernels/matmul/kernels.ts';
import { matMul2d, matMulTransposeA } from '../../../src/kernels/matmul/dispatch.ts';
import { stridedMatMul } from '../../../src/kernels/matmul/tfjs_kernels.ts';
import { MIN_THREADED_DOT_MACS, MIN_THREADED_MACS } from '../../../src/kernels/matmul/threads.ts';
import { productsBeside } from '../../../src/kernels/matmul/backward_pairs.ts';
import { generate } from '../../../src/model/sample.ts';
import { parseModelConfig } from '../../../src/model_files/hf_config.ts';
import { tokenLogprobs } from '../../../src/model/logprobs.ts';
import { CausalLM } from '../../../src/model/model.ts';
import { randomWeights } from '../../../src/model/random_weights.ts';
import { bits } from '../../helpers/numbers.ts';
import { filledTensor } from '../../helpers/tensors.ts';
import { kernelCounts } from '../../../src/kernels/switches.ts';

/** `f`'s result as bits, on one thread and on `helpers` + 1, with how many products were split. */
async function bothWays(
  f: () => tf.Tensor,
  helpers = 1,
): Promise<{ one: number[]; many: number[]; split: number }> {
  const result = () => tf.tidy(() => bits(f()));
  await useMatmulThreads(0);
  const one = result();
  expect(await useMatmulThreads(helpers)).toBe(helpers + 1);
  const many = result();
  return { one, many, split: kernelCounts.splitProducts };
}

/** A tiny Llama for the whole-model checks. */
const config = parseModelConfig({
  model_type: 'llama',
  vocab_size: 300,
  hidden_size: 128,
  intermediate_size: 256,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  max_position_embeddings: 256,
});

describe('the matmul kernel on several threads', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
    expect(simdMatMulActive()).toBe(true);
  });
  afterAll(async () => {
    await useMatmulThreads(0);
  });

  // rows: a multiple of 8, tails of 1-3 rows in the helper's share and in the caller's
  it.each([
    [512, 256, 256],
    [517, 300, 261],
    [130, 129, 131],
    [66, 1024, 40],
  ])('splits the rows of %i x %i @ %i x ... the same bits', async (m, k, n) => {
    expect(m * k * n).toBeGreaterThanOrEqual(MIN_THREADED_MACS);
    const a = filledTensor([m, k], 1) as tf.Tensor2D;
    const b = filledTensor([k, n], 2) as tf.Tensor2D;
    const { one, many, split } = await bothWays(() => matMul2d(a, b));
    expect(split).toBe(1);
    expect(many).toEqual(one);
    tf.dispose([a, b]);
  });

  it('splits a batch, with one B for all and with one B per matrix; three threads too', async () => {
    const a = filledTensor([7, 96, 64], 3);
    const b = filledTensor([7, 64, 96], 4);
    const shared = filledTensor([1, 64, 96], 5);
    for (const helpers of [1, 2]) {
      const perMatrix = await bothWays(
        () =>
          stridedMatMul(a, b, {
            batch: 7,
            m: 96,
            k: 64,
            n: 96,
            strideA: 96 * 64,
            strideB: 64 * 96,
          }),
        helpers,
      );
      expect(perMatrix.split).toBe(1);
      expect(perMatrix.many).toEqual(perMatrix.one);
      const broadcast = await bothWays(
        () =>
          stridedMatMul(a, shared, { batch: 7, m: 96, k: 64, n: 96, strideA: 96 * 64, strideB: 0 }),
        helpers,
      );
      expect(broadcast.split).toBe(1);
      expect(broadcast.many).toEqual(broadcast.one);
    }
    tf.dispose([a, b, shared]);
  });

  it('leaves small products and strided (not packed) batches on one thread', async () => {
    const small = filledTensor([64, 64], 6) as tf.Tensor2D;
    expect(64 * 64 * 64).toBeLessThan(MIN_THREADED_MACS);
    const smallRun = await bothWays(() => matMul2d(small, small));
    expect(smallRun.split).toBe(0);
    expect(smallRun.many).toEqual(smallRun.one);
    // every other matrix of a (8, 96, 64) tensor: strideA = 2 matrices
    const a = filledTensor([8, 96, 64], 7);
    const b = filledTensor([1, 64, 512], 8);
    const strided = await bothWays(() =>
      stridedMatMul(a, b, { batch: 4, m: 96, k: 64, n: 512, strideA: 2 * 96 * 64, strideB: 0 }),
    );
    expect(strided.split).toBe(0);
    expect(strided.many).toEqual(strided.one);
    tf.dispose([small, a, b]);
  });

  it('grows the pool memory for a large B (8 MB) and stays right', async () => {
    const a = filledTensor([256, 1024], 9) as tf.Tensor2D;
    const b = filledTensor([1024, 2048], 10) as tf.Tensor2D;
    // matMul2d sends a B this large to XNNPACK; the kernel itself takes any size
    const { one, many, split } = await bothWays(() =>
      tf.reshape(
        stridedMatMul(a, b, { batch: 1, m: 256, k: 1024, n: 2048, strideA: 0, strideB: 0 }),
        [256, 2048],
      ),
    );
    expect(split).toBe(1);
    expect(many).toEqual(one);
    tf.dispose([a, b]);
  });

  it('gives a training gradient the same bits as one thread, and leaves no tensors behind', async () => {
    const model = CausalLM.fromWeights(config, randomWeights(config, 3), { kind: 'full' });
    const list = [...model.trainableVariables().values()];
    const ids = Array.from({ length: 4 }, (_, r) =>
      Array.from({ length: 65 }, (_, t) => (r * 31 + t * 7) % 300),
    );
    const gradient = () => {
      const { value, grads } = tf.variableGrads(
        () => tf.neg(tf.mean(tokenLogprobs(model, ids, { temperature: 1 }))) as tf.Scalar,
        list,
      );
      const flat = tf.concat([
        value.reshape([1]),
        ...list.map((v) => grads[v.name]!.reshape([-1])),
      ]);
      tf.dispose([value, ...Object.values(grads)]);
      return flat;
    };
    tf.tidy(() => {
      gradient();
    }); // warm up (transposed weight copies, kernels)
    const before = tf.memory().numTensors;
    const pairs = kernelCounts.pairedProducts;
    const { one, many, split } = await bothWays(gradient);
    expect(split).toBeGreaterThan(10);
    expect(kernelCounts.pairedProducts - pairs).toBe(2 * 7 + 1); // each linear layer's backward pass, and the head's
    expect(many).toEqual(one);
    expect(tf.memory().numTensors).toBe(before);
    model.dispose();
  });

  // decoding's products: rows 1-3 (4-column tiles) and 4+ (2-column tiles), widths that split
  // unevenly and leave tails, the output head's width
  it.each([
    [1, 256, 256],
    [3, 256, 250],
    [8, 256, 768],
    [8, 768, 257],
    [18, 128, 2000],
    [63, 160, 199],
  ])("splits the columns of decoding's %i x %i @ (%i x K)^T: the same bits", async (m, k, n) => {
    expect(m * k * n).toBeGreaterThanOrEqual(MIN_THREADED_DOT_MACS);
    const a = filledTensor([m, k], 11) as tf.Tensor2D;
    const w = tf.variable(filledTensor([k, n], 12)) as tf.Variable<tf.Rank.R2>;
    for (const helpers of [1, 2]) {
      const { one, many, split } = await bothWays(() => matMul2d(a, w), helpers);
      expect(split).toBe(1);
      expect(many).toEqual(one);
      const want = tf.tidy(() => tf.matMul(a, w).dataSync());
      const got = new Float32Array(Uint32Array.from(many).buffer);
      for (let i = 0; i < want.length; i++)
        expect(Math.abs(got[i]! - want[i]!)).toBeLessThan(1e-4 * (1 + Math.abs(want[i]!)));
    }
    tf.dispose([a, w]);
  });

  it('leaves dot products under MIN_THREADED_DOT_MACS on one thread', async () => {
    const a = filledTensor([1, 64], 13) as tf.Tensor2D;
    const w = tf.variable(filledTensor([64, 128], 14)) as tf.Variable<tf.Rank.R2>; // 8k multiply-adds; k * n at the copy threshold
    expect(64 * 128).toBeLessThan(MIN_THREADED_DOT_MACS);
    const { one, many, split } = await bothWays(() => matMul2d(a, w));
    expect(split).toBe(0);
    expect(many).toEqual(one);
    tf.dispose([a, w]);
  });

  it('samples the same tokens with the helpers as without', async () => {
    const model = CausalLM.fromWeights(config, randomWeights(config, 4));
    const prompts = [[1, 2, 3], [4, 5, 6, 7, 8, 9], [10], [11, 12, 13, 14, 15, 16, 17, 18]];
    const sample = () =>
      generate(model, prompts, { maxNewTokens: 24, temperature: 1, seed: 5, eosIds: [] });
    await useMatmulThreads(0);
    const alone = await sample();
    expect(await useMatmulThreads(1)).toBe(2);
    const together = await sample();
    expect(kernelCounts.splitProducts).toBeGreaterThan(24);
    expect(together).toEqual(alone);
    model.dispose();
  });

  it('does not wait for late helpers: held, the caller runs every queued block itself, the same bits', async () => {
    const a = filledTensor([260, 300], 15) as tf.Tensor2D;
    const b = filledTensor([300, 200], 16) as tf.Tensor2D;
    const at = filledTensor([300, 260], 17) as tf.Tensor2D; // A^T stored (k, m)
    const batchA = filledTensor([7, 96, 64], 18);
    const batchB = filledTensor([7, 64, 96], 19);
    const x = filledTensor([8, 256], 20) as tf.Tensor2D;
    const w = tf.variable(filledTensor([256, 768], 21)) as tf.Variable<tf.Rank.R2>;
    const products: [string, () => tf.Tensor][] = [
      ['rows', () => matMul2d(a, b)],
      ['transposed A', () => matMulTransposeA(at, b)],
      [
        'batch',
        () =>
          stridedMatMul(batchA, batchB, {
            batch: 7,
            m: 96,
            k: 64,
            n: 96,
            strideA: 96 * 64,
            strideB: 64 * 96,
          }),
      ],
      ['dot', () => matMul2d(x, w)],
    ];
    for (const [name, product] of products) {
      const result = () => tf.tidy(() => bits(product()));
      await useMatmulThreads(0);
      const one = result();
      expect(await useMatmulThreads(2)).toBe(3);
      result(); // the copies and kernels made, so only the product runs below
      holdMatmulHelpers(true);
      const [split, taken] = [kernelCounts.splitProducts, kernelCounts.takenOver];
      const start = performance.now();
      const held = result();
      const elapsed = performance.now() - start;
      holdMatmulHelpers(false);
      expect(kernelCounts.splitProducts, name).toBe(split + 1);
      // the helpers' share: 4 blocks per helper for large products (7 matrices: one each for the 4
      // left), 1 for dot products
      expect(kernelCounts.takenOver - taken, name).toBe(
        name === 'dot' ? 2 : name === 'batch' ? 4 : 8,
      );
      expect(held, name).toEqual(one);
      expect(elapsed, name).toBeLessThan(30_000); // not the 60 s a helper gets before the pool gives up
      expect(result(), name).toEqual(one); // released: the helpers take blocks again
    }
    tf.dispose([a, b, at, batchA, batchB, x, w]);
  });

  it("runs a backward pass's two products one per thread, with the bits of each alone; held helpers, the caller runs both", async () => {
    const dy = filledTensor([260, 200], 22) as tf.Tensor2D;
    const x = filledTensor([260, 301], 24) as tf.Tensor2D; // dw = x^T dy (301 x 200, or 301 x 1100)
    // w (301, 200) as stored, dx = dy w^T (260 x 301) by the NT kernel; and w (301, 1100) past
    // NT_MAX_K, multiplied as a transposed copy
    for (const [w, dyOf] of [
      [filledTensor([301, 200], 23), dy],
      [filledTensor([301, 1100], 26), filledTensor([260, 1100], 27)],
    ] as [tf.Tensor2D, tf.Tensor2D][]) {
      await useMatmulThreads(0);
      const alone = tf.tidy(() => [
        bits(matMul2d(dyOf, tf.transpose(w))),
        bits(matMulTransposeA(x, dyOf)),
      ]);
      expect(tf.tidy(() => productsBeside(dyOf, w, x, dyOf).map(bits))).toEqual(alone); // one thread: the two in turn
      expect(await useMatmulThreads(1)).toBe(2);
      for (const held of [false, true]) {
        holdMatmulHelpers(held);
        const [pairs, taken] = [kernelCounts.pairedProducts, kernelCounts.takenOver];
        expect(tf.tidy(() => productsBeside(dyOf, w, x, dyOf).map(bits))).toEqual(alone);
        expect(kernelCounts.pairedProducts - pairs).toBe(1);
        if (held) expect(kernelCounts.takenOver - taken).toBe(1);
      }
      holdMatmulHelpers(false);
      tf.dispose(dyOf === dy ? [w] : [w, dyOf]);
    }
    // of unequal work (over 2x), each product is split instead, with the same bits
    const w = filledTensor([301, 200], 23) as tf.Tensor2D;
    const small = filledTensor([260, 30], 25) as tf.Tensor2D;
    const pairs = kernelCounts.pairedProducts;
    const split = tf.tidy(() => productsBeside(dy, w, small, dy).map(bits));
    expect(kernelCounts.pairedProducts).toBe(pairs);
    await useMatmulThreads(0);
    expect(tf.tidy(() => productsBeside(dy, w, small, dy).map(bits))).toEqual(split);
    tf.dispose([dy, x, w, small]);
  });

  it('stops the helpers: back to one thread', async () => {
    expect(await useMatmulThreads(1)).toBe(2);
    expect(await useMatmulThreads(0)).toBe(1);
    expect(matmulThreadCount()).toBe(1);
  });
});
