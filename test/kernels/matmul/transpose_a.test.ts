// The transposed-A kernel (C = A^T @ B with A read as stored, for the linear layers' weight
// gradients x^T @ dy): the raw kernel against a float64 triple loop (packed 4-row blocks, the 1-row
// tail, every column tail, A a block of columns of a wider matrix), the op against the matmul
// kernel on a transposed copy (the same bits: the same products summed in the same order) and
// against tf.matMul, which products take it, and the split over helper threads (the same bits).
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fusedMultiplyAddActive, useMatmulThreads } from '../../../src/kernels/matmul/kernels.ts';
import { matMul2d, matMulTransposeA } from '../../../src/kernels/matmul/dispatch.ts';
import { stridedMatMul } from '../../../src/kernels/matmul/tfjs_kernels.ts';
import { MIN_THREADED_MACS } from '../../../src/kernels/matmul/threads.ts';
import {
  ALL_K,
  instantiateMatmulTA,
  simdMatmulTAModule,
} from '../../../src/kernels/simd/matmul_variants.ts';
import { bits, filled } from '../../helpers/numbers.ts';
import { kernelCounts, withSwitches } from '../../../src/kernels/switches.ts';

describe('SIMD transposed-A kernel', () => {
  it('is a valid module under 4 KB (relaxed SIMD, on in the tests as in Chromium)', () => {
    const bytes = simdMatmulTAModule();
    expect(WebAssembly.validate(bytes)).toBe(true);
    expect(bytes.length).toBeLessThan(4096);
  });

  // [M, K, N, lda]: 4-row blocks and the 1-3 row tail; 8-column blocks, the 4-column tail and
  // scalar columns; K = 1; lda > M (the first M columns of a wider stored A)
  const shapes: [number, number, number, number][] = [
    [1, 1, 1, 1],
    [4, 3, 8, 4],
    [5, 7, 13, 5],
    [7, 2, 3, 9],
    [8, 64, 20, 8],
    [13, 33, 1, 16],
    [64, 100, 36, 70],
  ];
  it.each(shapes)(
    '%i x %i (stored transposed) @ %i columns, lda %i, matches a float64 triple loop',
    (m, k, n, lda) => {
      const memory = new WebAssembly.Memory({ initial: 4 });
      const kernel = instantiateMatmulTA(memory)!;
      expect(kernel).not.toBeNull();
      const a = filled(k * lda, 1); // stored (K, lda): A[i, x] = a[x * lda + i]
      const b = filled(k * n, 2);
      const heap = new Float32Array(memory.buffer);
      const [pa, pb] = [16 + 1, 16 + 1 + a.length + 3]; // odd float offsets: no 16-byte alignment assumed
      const pc = pb + b.length + 1;
      const scratch = pc + m * n + 8 + 1;
      heap.set(a, pa);
      heap.set(b, pb);
      heap.fill(Number.NaN, pc, pc + m * n + 8); // stale output overwritten, nothing past it written
      kernel(pa * 4, pb * 4, pc * 4, m, k, n, lda, scratch * 4, ALL_K);
      for (let i = 0; i < m; i++)
        for (let j = 0; j < n; j++) {
          let want = 0;
          for (let x = 0; x < k; x++) want += a[x * lda + i]! * b[x * n + j]!;
          expect(Math.abs(heap[pc + i * n + j]! - want)).toBeLessThan(1e-4 * (1 + Math.abs(want)));
        }
      for (let i = m * n; i < m * n + 8; i++) expect(Number.isNaN(heap[pc + i]!)).toBe(true);
    },
  );
});

describe('SIMD transposed-A kernel, causal start (kOffset)', () => {
  // A stored (K, M) with A[t, s] = 0 for s > t + offset (attention's weights under a causal mask):
  // row s of C takes t from s - offset, the same bits as over all t; negative and past-M offsets
  // too
  it.each([
    [9, 9, 5, 0],
    [13, 13, 8, 0],
    [21, 17, 3, 4],
    [6, 10, 9, -2],
    [8, 8, 16, 30],
  ])('%i x %i @ %i columns, offset %i: the bits of the product over all k', (m, k, n, offset) => {
    const memory = new WebAssembly.Memory({ initial: 4 });
    const kernel = instantiateMatmulTA(memory)!;
    const a = filled(k * m, 3).map((v, e) => (e % m > Math.floor(e / m) + offset ? 0 : v)); // A[t, s] at t * m + s
    const heap = new Float32Array(memory.buffer);
    const [pa, pb, pc, pd, scratch] = [
      0,
      k * m,
      k * m + k * n,
      k * m + k * n + m * n,
      k * m + k * n + 2 * m * n,
    ];
    heap.set(a, pa);
    heap.set(filled(k * n, 4), pb);
    kernel(pa * 4, pb * 4, pc * 4, m, k, n, m, scratch * 4, offset);
    kernel(pa * 4, pb * 4, pd * 4, m, k, n, m, scratch * 4, ALL_K);
    expect(bits(heap.slice(pc, pc + m * n))).toEqual(bits(heap.slice(pd, pd + m * n)));
  });
});

describe('matMulTransposeA on wasm', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
    expect(fusedMultiplyAddActive()).toBe(true);
  });
  afterAll(async () => {
    await useMatmulThreads(0);
  });

  it('gives the bits of the matmul kernel on a transposed copy, is within float32 rounding of tf.matMul, and takes the kernel where it should', async () => {
    // kernel: a right operand within L2, or any with fewer than 64 rows of the result (LoRA's
    // rank-r factors: B then streams at most 16 times); otherwise transpose, then matMul2d
    const cases = [
      [70, 64, 24, true],
      [131, 97, 40, true],
      [512, 256, 768, true],
      [40, 63, 24, true],
      [1100, 8, 600, true],
      [300, 64, 2000, false],
    ] as const;
    for (const [k, m, n, onKernel] of cases) {
      const a = tf.tensor2d(filled(k * m, m), [k, m]);
      const b = tf.tensor2d(filled(k * n, n), [k, n]);
      const { kernels } = await tf.profile(() => matMulTransposeA(a, b));
      expect(kernels.some((kernel) => kernel.name === 'AgenticRlSimdMatMulTA')).toBe(onKernel);
      const got = matMulTransposeA(a, b);
      // bit for bit the fused kernel on a transposed copy (matMul2d's own choice for few rows is
      // XNNPACK)
      const first = tf.tidy(() =>
        onKernel
          ? tf.reshape(
              stridedMatMul(tf.transpose(a), b, { batch: 1, m, k, n, strideA: 0, strideB: 0 }),
              [m, n],
            )
          : matMul2d(tf.transpose(a), b),
      );
      expect(bits(got)).toEqual(bits(first));
      const want = tf.matMul(a, b, true, false).dataSync();
      got
        .dataSync()
        .forEach((v, i) =>
          expect(Math.abs(v - want[i]!)).toBeLessThan(1e-4 * (1 + Math.abs(want[i]!))),
        );
      const { kernels: off } = await withSwitches({ transposeAKernel: false }, () =>
        tf.profile(() => matMulTransposeA(a, b)),
      );
      expect(off.some((kernel) => kernel.name === 'AgenticRlSimdMatMulTA')).toBe(false);
      tf.dispose([a, b, got, first]);
    }
  });

  it('leaves no tensors behind (its scratch block included)', () => {
    const a = tf.tensor2d(filled(128 * 96, 1), [128, 96]);
    const b = tf.tensor2d(filled(128 * 80, 2), [128, 80]);
    tf.dispose(matMulTransposeA(a, b));
    const before = tf.memory();
    for (let i = 0; i < 3; i++) tf.dispose(matMulTransposeA(a, b));
    expect(tf.memory().numTensors).toBe(before.numTensors);
    expect(tf.memory().numBytes).toBe(before.numBytes);
    tf.dispose([a, b]);
  });

  // result rows: multiples of 4 and tails of 1-3 in either share; two and three threads
  it.each([
    [512, 256, 256, 1],
    [300, 517, 61, 1],
    [129, 130, 131, 2],
    [1024, 66, 40, 2],
  ])(
    'splits the rows of (%i x %i)^T @ %i columns over %i helper(s): the same bits as one thread',
    async (k, m, n, helpers) => {
      expect(m * k * n).toBeGreaterThanOrEqual(MIN_THREADED_MACS);
      const a = tf.tensor2d(filled(k * m, 3), [k, m]);
      const b = tf.tensor2d(filled(k * n, 4), [k, n]);
      await useMatmulThreads(0);
      const one = tf.tidy(() => bits(matMulTransposeA(a, b)));
      expect(await useMatmulThreads(helpers)).toBe(helpers + 1);
      const many = tf.tidy(() => bits(matMulTransposeA(a, b)));
      expect(kernelCounts.splitProducts).toBe(1);
      expect(many).toEqual(one);
      tf.dispose([a, b]);
    },
  );
});
