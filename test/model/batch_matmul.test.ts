// The SIMD batched matMul: the raw kernel against a plain triple loop (every tail of the 4 x 8
// tiling), and the tfjs op against tf.matMul (values and gradients, all transpose combinations),
// including after the wasm heap has grown under it.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { batchMatMul, fusedMultiplyAddActive, matMul2d, simdMatMulActive, stridedMatMul, useFusedMultiplyAdd, useSimdMatMul } from '../../src/model/batch_matmul.ts';
import { instantiateMatmul, simdMatmulModule } from '../../src/model/simd_matmul.ts';

/** C = A @ B for each batch, in float64, as the reference. */
function reference(a: Float32Array, b: Float32Array, batch: number, m: number, k: number, n: number, broadcastB: boolean): Float64Array {
  const c = new Float64Array(batch * m * n);
  for (let t = 0; t < batch; t++) {
    const bBase = broadcastB ? 0 : t * k * n;
    for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let x = 0; x < k; x++) sum += a[t * m * k + i * k + x]! * b[bBase + x * n + j]!;
      c[t * m * n + i * n + j] = sum;
    }
  }
  return c;
}

const filled = (length: number, seed: number) => Float32Array.from({ length }, (_, i) => Math.sin(i * 0.37 + seed) * 2);

describe('SIMD matmul kernel', () => {
  it('is a valid module small enough for a synchronous compile anywhere (4 KB), in both builds', () => {
    for (const fma of [false, true]) {
      const bytes = simdMatmulModule(fma);
      // the fused build needs relaxed SIMD, which vite.config.ts turns on for the tests (as in Chromium)
      expect(WebAssembly.validate(bytes)).toBe(true);
      expect(bytes.length).toBeLessThan(4096);
    }
  });

  // Shapes cover full 4-row blocks and the 1-row tail, 8-column blocks, the 4-column tail and
  // the scalar columns, K = 1, and a shared (broadcast) B; and the matrix-vector path (N = 1) with
  // its 4-row blocks, 1-row tail, 4-wide steps of K and the scalar tail of K.
  const shapes: [number, number, number, number, boolean][] = [
    [1, 1, 1, 1, false], [2, 4, 8, 8, false], [3, 5, 3, 7, false], [2, 9, 48, 13, false],
    [1, 17, 1, 33, false], [2, 6, 20, 12, true], [4, 3, 64, 130, false],
    [3, 9, 48, 1, false], [2, 5, 7, 1, false], [1, 6, 2, 1, false], [2, 7, 64, 1, true], [3, 130, 48, 1, false],
  ];
  const builds = shapes.flatMap((shape) => [false, true].map((fma) => [...shape, fma] as const));
  it.each(builds)('batch %i, %i x %i @ %i x N (broadcast B: %s, fused: %s) matches a float64 triple loop', (batch, m, k, n, broadcastB, fma) => {
    const memory = new WebAssembly.Memory({ initial: 4 });
    const kernel = instantiateMatmul(memory, fma)!;
    expect(kernel).not.toBeNull();
    const a = filled(batch * m * k, 1);
    const b = filled((broadcastB ? 1 : batch) * k * n, 2);
    const heap = new Float32Array(memory.buffer);
    const [pa, pb] = [16, 16 + a.length + 3]; // odd float offsets: the kernel must not assume 16-byte alignment
    const pc = pb + b.length + 1;
    heap.set(a, pa);
    heap.set(b, pb);
    heap.fill(Number.NaN, pc, pc + batch * m * n + 8); // stale output must be overwritten, and nothing past it
    kernel(pa * 4, pb * 4, pc * 4, batch, m, k, n, m * k * 4, broadcastB ? 0 : k * n * 4);
    const want = reference(a, b, batch, m, k, n, broadcastB);
    const got = heap.subarray(pc, pc + want.length);
    for (let i = 0; i < want.length; i++) expect(Math.abs(got[i]! - want[i]!)).toBeLessThan(1e-4 * (1 + Math.abs(want[i]!)));
    expect(Number.isNaN(heap[pc + want.length]!)).toBe(true);
  });
});

describe('batchMatMul on wasm', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
  });

  it('is active on wasm', () => {
    expect(simdMatMulActive()).toBe(true);
  });

  // Square-ish shapes, and one-row / one-column shapes (decoding's q @ K^T) where computing
  // (op(b)^T @ op(a)^T)^T moves fewer numbers, so both of product()'s paths run.
  const combos: [boolean, boolean, number, number, number][] = [];
  for (const [M, K, N] of [[5, 11, 9], [1, 11, 40], [40, 11, 1]] as const) {
    for (const [ta, tb] of [[false, false], [false, true], [true, false], [true, true]] as const) combos.push([ta, tb, M, K, N]);
  }
  it.each(combos)('transposeA %s, transposeB %s, M %i K %i N %i: values and both gradients equal tf.matMul', (transposeA, transposeB, M, K, N) => {
    const [B, H] = [2, 3];
    const a = tf.tensor(filled(B * H * M * K, 3), transposeA ? [B, H, K, M] : [B, H, M, K]);
    const b = tf.tensor(filled(B * H * K * N, 4), transposeB ? [B, H, N, K] : [B, H, K, N]);
    const weight = tf.tensor(filled(B * H * M * N, 5), [B, H, M, N]); // makes dy non-uniform
    const run = (simd: boolean) => {
      useSimdMatMul(simd);
      try {
        const f = (x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.mul(batchMatMul(x, y, transposeA, transposeB), weight));
        const value = tf.tidy(() => batchMatMul(a, b, transposeA, transposeB));
        const grads = tf.grads(f)([a, b]);
        return [value, ...grads].map((t) => t.arraySync());
      } finally {
        useSimdMatMul(true);
      }
    };
    const [fast, slow] = [run(true), run(false)];
    for (let i = 0; i < 3; i++) {
      const [x, y] = [(fast[i] as number[][][][]).flat(3), (slow[i] as number[][][][]).flat(3)];
      expect(x.length).toBe(y.length);
      x.forEach((v, j) => expect(v).toBeCloseTo(y[j]!, 4));
    }
    tf.dispose([a, b, weight]);
  });

  it('stays correct after the wasm heap grows, and leaks no tensors', () => {
    const a = tf.tensor(filled(4 * 7 * 24, 6), [4, 7, 24]);
    const b = tf.tensor(filled(4 * 24 * 10, 7), [4, 24, 10]);
    const want = tf.tidy(() => tf.matMul(a, b).arraySync());
    const before = tf.memory().numTensors;
    const big = tf.zeros([64 * 1024 * 1024]); // 256 MB: forces memory.grow, which detaches old views
    const got = tf.tidy(() => batchMatMul(a, b).arraySync()) as number[][][];
    big.dispose();
    expect(tf.memory().numTensors).toBe(before);
    got.flat(2).forEach((v, i) => expect(v).toBeCloseTo((want as number[][][]).flat(2)[i]!, 4));
    tf.dispose([a, b]);
  });

  it('refuses operands that do not multiply, with their shapes in the message', () => {
    const a = tf.zeros([2, 3, 4]);
    const b = tf.zeros([2, 5, 6]);
    expect(() => batchMatMul(a, b)).toThrow(/2,3,4 and 2,5,6/);
    tf.dispose([a, b]);
  });

  it('stridedMatMul reads the first rows of strided slices (a KV cache) and refuses reads past its operands', () => {
    // A: 3 slices of capacity 10 rows x 4; the product uses the first 6 rows of each
    const a = tf.tensor(filled(3 * 10 * 4, 8), [3, 10, 4]);
    const b = tf.tensor(filled(3 * 4 * 5, 9), [3, 4, 5]);
    const got = tf.tidy(() => stridedMatMul(a, b, { batch: 3, m: 6, k: 4, n: 5, strideA: 40, strideB: 20 }).arraySync());
    const want = tf.tidy(() => tf.matMul(tf.slice(a, [0, 0, 0], [3, 6, 4]), b).arraySync());
    (got as number[][][]).flat(2).forEach((v, i) => expect(v).toBeCloseTo((want as number[][][]).flat(2)[i]!, 4));
    // strided B as well: the first 6 rows of each slice of a (6 x 4) -> C = x (3, 2, 6) @ those rows
    const x = tf.tensor(filled(3 * 2 * 6, 10), [3, 2, 6]);
    const gotB = tf.tidy(() => stridedMatMul(x, a, { batch: 3, m: 2, k: 6, n: 4, strideA: 12, strideB: 40 }).arraySync());
    const wantB = tf.tidy(() => tf.matMul(x, tf.slice(a, [0, 0, 0], [3, 6, 4])).arraySync());
    (gotB as number[][][]).flat(2).forEach((v, i) => expect(v).toBeCloseTo((wantB as number[][][]).flat(2)[i]!, 4));
    expect(() => stridedMatMul(a, b, { batch: 3, m: 6, k: 4, n: 5, strideA: 60, strideB: 20 })).toThrow(/reads past/);
    tf.dispose([a, b, x]);
  });

  it('matMul2d (products of the linear layers) equals tf.matMul on the fused kernel and off it, and records no gradient of its own', async () => {
    expect(fusedMultiplyAddActive()).toBe(true); // relaxed SIMD is on in the tests, as in Chromium
    // kernel: >= 64 rows and a right operand within L2; XNNPACK: fewer rows, or a right operand past 2 MB
    const cases = [[64, 16, 24, true], [97, 48, 131, true], [512, 192, 576, true], [1, 64, 96, false], [63, 64, 96, false], [70, 256, 2049, false]] as const;
    for (const [m, k, n, onKernel] of cases) {
      const a = tf.tensor2d(filled(m * k, m), [m, k]);
      const b = tf.tensor2d(filled(k * n, n), [k, n]);
      const { kernels } = await tf.profile(() => matMul2d(a, b));
      expect(kernels.map((kernel) => kernel.name)).toContain(onKernel ? 'AgenticRlSimdStridedMatMul' : 'BatchMatMul');
      tf.dispose([a, b]);
      tf.tidy(() => {
        const a = tf.tensor2d(filled(m * k, m), [m, k]);
        const b = tf.tensor2d(filled(k * n, n), [k, n]);
        const want = tf.matMul(a, b).dataSync();
        for (const fused of [true, false]) {
          useFusedMultiplyAdd(fused);
          const got = matMul2d(a, b).dataSync();
          useFusedMultiplyAdd(true);
          for (let i = 0; i < want.length; i++) expect(Math.abs(got[i]! - want[i]!)).toBeLessThan(1e-4 * (1 + Math.abs(want[i]!)));
        }
      });
    }
    // Under a gradient tape it is tf.matMul, so gradients through it are tf.matMul's.
    const a = tf.tensor2d(filled(6 * 5, 1), [6, 5]);
    const b = tf.tensor2d(filled(5 * 7, 2), [5, 7]);
    const [da, db] = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.square(matMul2d(x as tf.Tensor2D, y as tf.Tensor2D))))([a, b]);
    const [ra, rb] = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.square(tf.matMul(x as tf.Tensor2D, y as tf.Tensor2D))))([a, b]);
    expect(Array.from(da!.dataSync())).toEqual(Array.from(ra!.dataSync()));
    expect(Array.from(db!.dataSync())).toEqual(Array.from(rb!.dataSync()));
    tf.dispose([a, b, da!, db!, ra!, rb!]);
  });
});
