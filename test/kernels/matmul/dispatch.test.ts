// The SIMD batched matMul: the raw kernel against a plain triple loop (every tail of the 4 x 8
// tiling), and the tfjs op against tf.matMul (values and gradients, all transpose combinations),
// including after the wasm heap has grown under it.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { embeddingRows, matMul2d } from '../../../src/kernels/matmul/dispatch.ts';
import { fusedMultiplyAddActive, simdMatMulActive } from '../../../src/kernels/matmul/kernels.ts';
import { stridedMatMul } from '../../../src/kernels/matmul/tfjs_kernels.ts';
import { batchMatMul } from '../../../src/kernels/matmul/attention_products.ts';
import {
  releaseTransposedWeights,
  transposedWeightStats,
} from '../../../src/kernels/matmul/decode_products.ts';
import { instantiateMatmul, simdMatmulModule } from '../../../src/kernels/simd/matmul.ts';
import { instantiateMatmulT, simdMatmulTModule } from '../../../src/kernels/simd/dot.ts';
import { matMulLinear } from '../../../src/model/ops.ts';
import { filled } from '../../helpers/numbers.ts';
import { withSwitches } from '../../../src/kernels/switches.ts';

/** C = A @ B for each batch, in float64, as the reference. */
function reference(
  a: Float32Array,
  b: Float32Array,
  batch: number,
  m: number,
  k: number,
  n: number,
  broadcastB: boolean,
): Float64Array {
  const c = new Float64Array(batch * m * n);
  for (let t = 0; t < batch; t++) {
    const bBase = broadcastB ? 0 : t * k * n;
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let sum = 0;
        for (let x = 0; x < k; x++) sum += a[t * m * k + i * k + x]! * b[bBase + x * n + j]!;
        c[t * m * n + i * n + j] = sum;
      }
  }
  return c;
}

describe('SIMD matmul kernel', () => {
  it('is a valid module small enough for a synchronous compile anywhere (4 KB), in both builds', () => {
    for (const fma of [false, true]) {
      const bytes = simdMatmulModule(fma);
      // the fused build needs relaxed SIMD, which vite.config.ts turns on for the tests (as in
      // Chromium)
      expect(WebAssembly.validate(bytes)).toBe(true);
      expect(bytes.length).toBeLessThan(4096);
    }
  });

  // Shapes cover full 4-row blocks and the 1-row tail, 8-column blocks, the 4-column tail and
  // the scalar columns, K = 1, and a shared (broadcast) B; and the matrix-vector path (N = 1) with
  // its 4-row blocks, 1-row tail, 4-wide steps of K and the scalar tail of K.
  const shapes: [number, number, number, number, boolean][] = [
    [1, 1, 1, 1, false],
    [2, 4, 8, 8, false],
    [3, 5, 3, 7, false],
    [2, 9, 48, 13, false],
    [1, 17, 1, 33, false],
    [2, 6, 20, 12, true],
    [4, 3, 64, 130, false],
    [3, 9, 48, 1, false],
    [2, 5, 7, 1, false],
    [1, 6, 2, 1, false],
    [2, 7, 64, 1, true],
    [3, 130, 48, 1, false],
    // a B past 1 MB in column panels (K 1000: 128, 128 and 14 columns), depth blocks (K 1030: 512,
    // 512, 6) with a broadcast B, and both (K 2100, N 131: panels of 56 columns, 5 depth blocks)
    [1, 6, 1000, 270, false],
    [2, 5, 1030, 9, true],
    [1, 7, 2100, 131, false],
  ];
  const builds = shapes.flatMap((shape) => [false, true].map((fma) => [...shape, fma] as const));
  it.each(builds)(
    'batch %i, %i x %i @ %i x N (broadcast B: %s, fused: %s) matches a float64 triple loop',
    (batch, m, k, n, broadcastB, fma) => {
      const memory = new WebAssembly.Memory({
        initial: Math.ceil((4 * (batch * (m * k + k * n + m * n) + 64)) / 65536),
      });
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
      for (let i = 0; i < want.length; i++)
        expect(Math.abs(got[i]! - want[i]!)).toBeLessThan(1e-4 * (1 + Math.abs(want[i]!)));
      expect(Number.isNaN(heap[pc + want.length]!)).toBe(true);
    },
  );
});

describe('SIMD dot-product kernel (C = A W^T, few rows)', () => {
  it('is a valid module under 4 KB', () => {
    const bytes = simdMatmulTModule();
    expect(WebAssembly.validate(bytes)).toBe(true);
    expect(bytes.length).toBeLessThan(4096);
  });

  // M: the 1 x 4 tiles (M < 4), the 4 x 2 tiles and their 1-row tail; N: whole tiles and the
  // rows of W left over; K: whole 4-wide steps, the scalar tail, and K < 4 (tail only).
  const shapes: [number, number, number][] = [
    [1, 1, 1],
    [1, 64, 8],
    [2, 7, 5],
    [3, 9, 6],
    [4, 64, 2],
    [5, 13, 3],
    [7, 4, 9],
    [8, 256, 12],
    [9, 3, 7],
    [18, 33, 10],
  ];
  it.each(shapes)('%i x %i @ (%i x K)^T matches a float64 triple loop', (m, k, n) => {
    const memory = new WebAssembly.Memory({ initial: 4 });
    const kernel = instantiateMatmulT(memory)!;
    expect(kernel).not.toBeNull();
    const a = filled(m * k, 3);
    const w = filled(n * k, 4); // (N, K): row j is column j of B = W^T
    const b = new Float32Array(k * n);
    for (let j = 0; j < n; j++) for (let x = 0; x < k; x++) b[x * n + j] = w[j * k + x]!;
    const heap = new Float32Array(memory.buffer);
    const [pa, pw] = [16 + 1, 16 + 1 + a.length + 3]; // odd float offsets: no 16-byte alignment assumed
    const pc = pw + w.length + 1;
    heap.set(a, pa);
    heap.set(w, pw);
    heap.fill(Number.NaN, pc, pc + m * n + 8);
    kernel(pa * 4, pw * 4, pc * 4, m, k, n, n);
    const want = reference(a, b, 1, m, k, n, false);
    const got = heap.subarray(pc, pc + want.length);
    for (let i = 0; i < want.length; i++)
      expect(Math.abs(got[i]! - want[i]!)).toBeLessThan(1e-4 * (1 + Math.abs(want[i]!)));
    expect(Number.isNaN(heap[pc + want.length]!)).toBe(true);
  });

  it('writes a block of columns of a wider C when ldc > N, leaving the other columns alone', () => {
    const [m, k, n, ldc, first] = [5, 19, 7, 16, 6]; // C's columns 6 .. 12 of 16
    const memory = new WebAssembly.Memory({ initial: 4 });
    const kernel = instantiateMatmulT(memory)!;
    const a = filled(m * k, 1);
    const w = filled(n * k, 2);
    const heap = new Float32Array(memory.buffer);
    const [pa, pw, pc] = [16, 256, 1024];
    heap.set(a, pa);
    heap.set(w, pw);
    heap.fill(Number.NaN, pc, pc + m * ldc);
    kernel(pa * 4, pw * 4, (pc + first) * 4, m, k, n, ldc);
    for (let i = 0; i < m; i++) {
      for (let col = 0; col < ldc; col++) {
        const got = heap[pc + i * ldc + col]!;
        if (col < first || col >= first + n) {
          expect(Number.isNaN(got)).toBe(true);
          continue;
        }
        let want = 0;
        for (let x = 0; x < k; x++) want += a[i * k + x]! * w[(col - first) * k + x]!;
        expect(Math.abs(got - want)).toBeLessThan(1e-4 * (1 + Math.abs(want)));
      }
    }
  });
});

describe('SIMD matmul kernel, column panels', () => {
  it('computes each panel of a large B with the bits of a product with just those columns', () => {
    // K 1000, N 300: B (1.2 MB) past the 1 MB at which the kernel takes panels of 128 columns
    const [m, k, n] = [10, 1000, 300];
    const memory = new WebAssembly.Memory({ initial: 40 });
    const kernel = instantiateMatmul(memory, true)!;
    const heap = new Float32Array(memory.buffer);
    const [pa, pb, pc] = [0, m * k, m * k + k * n];
    heap.set(filled(m * k, 6), pa);
    heap.set(filled(k * n, 7), pb);
    kernel(pa * 4, pb * 4, pc * 4, 1, m, k, n, 0, 0);
    const whole = heap.slice(pc, pc + m * n);
    for (const [from, to] of [
      [0, 128],
      [128, 256],
      [256, 300],
    ] as const) {
      const width = to - from; // a B of k x width: one panel (its columns at the same places in the 8-column blocks and the tail)
      const [pn, pd] = [pc + m * n, pc + m * n + k * width];
      for (let row = 0; row < k; row++)
        heap.set(heap.subarray(pb + row * n + from, pb + row * n + to), pn + row * width);
      kernel(pa * 4, pn * 4, pd * 4, 1, m, k, width, 0, 0);
      for (let i = 0; i < m; i++) {
        expect(Array.from(heap.subarray(pd + i * width, pd + (i + 1) * width))).toEqual(
          Array.from(whole.subarray(i * n + from, i * n + to)),
        );
      }
    }
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
  for (const [M, K, N] of [
    [5, 11, 9],
    [1, 11, 40],
    [40, 11, 1],
  ] as const) {
    for (const [ta, tb] of [
      [false, false],
      [false, true],
      [true, false],
      [true, true],
    ] as const)
      combos.push([ta, tb, M, K, N]);
  }
  it.each(combos)(
    'transposeA %s, transposeB %s, M %i K %i N %i: values and both gradients equal tf.matMul',
    (transposeA, transposeB, M, K, N) => {
      const [B, H] = [2, 3];
      const a = tf.tensor(filled(B * H * M * K, 3), transposeA ? [B, H, K, M] : [B, H, M, K]);
      const b = tf.tensor(filled(B * H * K * N, 4), transposeB ? [B, H, N, K] : [B, H, K, N]);
      const weight = tf.tensor(filled(B * H * M * N, 5), [B, H, M, N]); // makes dy non-uniform
      const run = (simd: boolean) =>
        withSwitches({ simdMatMul: simd }, () => {
          const f = (x: tf.Tensor, y: tf.Tensor) =>
            tf.sum(tf.mul(batchMatMul(x, y, transposeA, transposeB), weight));
          const value = tf.tidy(() => batchMatMul(a, b, transposeA, transposeB));
          const grads = tf.grads(f)([a, b]);
          return [value, ...grads].map((t) => t.arraySync());
        });
      const [fast, slow] = [run(true), run(false)];
      for (let i = 0; i < 3; i++) {
        const [x, y] = [(fast[i] as number[][][][]).flat(3), (slow[i] as number[][][][]).flat(3)];
        expect(x.length).toBe(y.length);
        x.forEach((v, j) => expect(v).toBeCloseTo(y[j]!, 4));
      }
      tf.dispose([a, b, weight]);
    },
  );

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
    const got = tf.tidy(() =>
      stridedMatMul(a, b, { batch: 3, m: 6, k: 4, n: 5, strideA: 40, strideB: 20 }).arraySync(),
    );
    const want = tf.tidy(() => tf.matMul(tf.slice(a, [0, 0, 0], [3, 6, 4]), b).arraySync());
    (got as number[][][])
      .flat(2)
      .forEach((v, i) => expect(v).toBeCloseTo((want as number[][][]).flat(2)[i]!, 4));
    // strided B as well: the first 6 rows of each slice of a (6 x 4) -> C = x (3, 2, 6) @ those
    // rows
    const x = tf.tensor(filled(3 * 2 * 6, 10), [3, 2, 6]);
    const gotB = tf.tidy(() =>
      stridedMatMul(x, a, { batch: 3, m: 2, k: 6, n: 4, strideA: 12, strideB: 40 }).arraySync(),
    );
    const wantB = tf.tidy(() => tf.matMul(x, tf.slice(a, [0, 0, 0], [3, 6, 4])).arraySync());
    (gotB as number[][][])
      .flat(2)
      .forEach((v, i) => expect(v).toBeCloseTo((wantB as number[][][]).flat(2)[i]!, 4));
    expect(() =>
      stridedMatMul(a, b, { batch: 3, m: 6, k: 4, n: 5, strideA: 60, strideB: 20 }),
    ).toThrow(/reads past/);
    tf.dispose([a, b, x]);
  });

  it('matMul2d (products of the linear layers) equals tf.matMul on the fused kernel and off it, and records no gradient of its own', async () => {
    expect(fusedMultiplyAddActive()).toBe(true); // relaxed SIMD is on in the tests, as in Chromium
    // kernel: >= 64 rows and a right operand within L2; XNNPACK: fewer rows, or a right operand
    // past 2 MB
    const cases = [
      [64, 16, 24, true],
      [97, 48, 131, true],
      [512, 192, 576, true],
      [1, 64, 96, false],
      [63, 64, 96, false],
      [70, 256, 2049, false],
    ] as const; // b: plain tensors, never the dot-product kernel
    for (const [m, k, n, onKernel] of cases) {
      const a = tf.tensor2d(filled(m * k, m), [m, k]);
      const b = tf.tensor2d(filled(k * n, n), [k, n]);
      const { kernels } = await tf.profile(() => matMul2d(a, b));
      expect(kernels.map((kernel) => kernel.name)).toContain(
        onKernel ? 'AgenticRlSimdStridedMatMul' : 'BatchMatMul',
      );
      tf.dispose([a, b]);
      tf.tidy(() => {
        const a = tf.tensor2d(filled(m * k, m), [m, k]);
        const b = tf.tensor2d(filled(k * n, n), [k, n]);
        const want = tf.matMul(a, b).dataSync();
        for (const fused of [true, false]) {
          const got = withSwitches({ fusedMultiplyAdd: fused }, () => matMul2d(a, b).dataSync());
          for (let i = 0; i < want.length; i++)
            expect(Math.abs(got[i]! - want[i]!)).toBeLessThan(1e-4 * (1 + Math.abs(want[i]!)));
        }
      });
    }
    // Under a gradient tape it is tf.matMul, so gradients through it are tf.matMul's.
    const a = tf.tensor2d(filled(6 * 5, 1), [6, 5]);
    const b = tf.tensor2d(filled(5 * 7, 2), [5, 7]);
    const [da, db] = tf.grads((x: tf.Tensor, y: tf.Tensor) =>
      tf.sum(tf.square(matMul2d(x as tf.Tensor2D, y as tf.Tensor2D))),
    )([a, b]);
    const [ra, rb] = tf.grads((x: tf.Tensor, y: tf.Tensor) =>
      tf.sum(tf.square(tf.matMul(x as tf.Tensor2D, y as tf.Tensor2D))),
    )([a, b]);
    expect(Array.from(da!.dataSync())).toEqual(Array.from(ra!.dataSync()));
    expect(Array.from(db!.dataSync())).toEqual(Array.from(rb!.dataSync()));
    tf.dispose([a, b, da!, db!, ra!, rb!]);
  });

  it('embeddingRows reads the columns of a (D, V) table from its transposed copy, equal to a gather; not under a gradient', () => {
    const [d, v] = [64, 300];
    const table = tf.tidy(() => tf.variable(tf.tensor2d(filled(d * v, 9), [d, v])));
    const ids = tf.tensor1d([5, 0, 299, 5, 17], 'int32');
    tf.tidy(() => {
      const got = embeddingRows(table, ids)!;
      expect(got.shape).toEqual([5, d]);
      expect(Array.from(got.dataSync())).toEqual(
        Array.from(tf.transpose(tf.gather(table, ids, 1)).dataSync()),
      );
    });
    // after new values (AdamW) it follows them
    tf.tidy(() => table.assign(tf.tensor2d(filled(d * v, 10), [d, v])));
    tf.tidy(() => {
      expect(Array.from(embeddingRows(table, ids)!.dataSync())).toEqual(
        Array.from(tf.transpose(tf.gather(table, ids, 1)).dataSync()),
      );
    });
    expect(() =>
      tf.tidy(() => {
        embeddingRows(table, tf.tensor1d([3, 300], 'int32'));
      }),
    ).toThrow(/token id 300 is not in \[0, 299\]/);
    expect(
      tf.grads((x: tf.Tensor) => {
        expect(embeddingRows(table, ids)).toBeNull();
        return tf.sum(x);
      })([tf.ones([2])]).length,
    ).toBe(1);
    const plain = tf.tensor2d(filled(d * v, 11), [d, v]);
    expect(embeddingRows(plain, ids)).toBeNull();
    releaseTransposedWeights([table]);
    tf.dispose([table, ids, plain]);
  });

  it('matMul2d with few rows and a weight variable runs the dot-product kernel on a transposed copy that follows the weight', async () => {
    releaseTransposedWeights();
    const before = tf.memory().numTensors;
    const [k, n] = [256, 96];
    const w = tf.tidy(() => tf.variable(tf.tensor2d(filled(k * n, 5), [k, n])));
    const check = (m: number, weight: tf.Tensor2D) =>
      tf.tidy(() => {
        const a = tf.tensor2d(filled(m * k, m), [m, k]);
        const want = tf.matMul(a, weight).dataSync();
        const got = matMul2d(a, weight).dataSync();
        for (let i = 0; i < want.length; i++)
          expect(Math.abs(got[i]! - want[i]!)).toBeLessThan(1e-4 * (1 + Math.abs(want[i]!)));
      });
    for (const m of [1, 3, 8, 18, 63]) check(m, w);
    const { kernels, result } = await tf.profile(() =>
      tf.tidy(() => matMul2d(tf.ones([8, k]) as tf.Tensor2D, w)),
    );
    tf.dispose(result as tf.Tensor);
    expect(kernels.map((kernel) => kernel.name)).toContain('AgenticRlSimdMatMulT');
    expect(transposedWeightStats()).toEqual({ copies: 1, numbers: k * n }); // made once, reused
    // new values (as AdamW assigns them): the product follows them, and the old copy is replaced
    tf.tidy(() => w.assign(tf.tensor2d(filled(k * n, 6), [k, n])));
    check(8, w);
    expect(transposedWeightStats()).toEqual({ copies: 1, numbers: k * n });
    // a plain tensor (not a weight) and a small weight keep XNNPACK: no copy per call
    const plain = tf.tensor2d(filled(k * n, 7), [k, n]);
    const small = tf.tidy(() => tf.variable(tf.tensor2d(filled(k * 8, 8), [k, 8])));
    check(8, plain);
    check(8, small);
    expect(transposedWeightStats().copies).toBe(1);
    // turned off, the same product is XNNPACK's
    const off = await withSwitches({ dotProductKernel: false }, () => {
      check(8, w);
      return tf.profile(() => tf.tidy(() => matMul2d(tf.ones([8, k]) as tf.Tensor2D, w)));
    });
    tf.dispose(off.result as tf.Tensor);
    expect(off.kernels.map((kernel) => kernel.name)).not.toContain('AgenticRlSimdMatMulT');
    // up to 128 rows outside a gradient computation (prefill) too, but not in a training step's
    // forward (a customGrad's, with the tape paused) nor past 128 rows
    const kernelsOf = async (f: () => tf.Tensor) => {
      const { kernels, result } = await tf.profile(() => tf.tidy(f));
      tf.dispose(result as tf.Tensor);
      return kernels.map((kernel) => kernel.name);
    };
    check(128, w);
    expect(await kernelsOf(() => matMul2d(tf.ones([128, k]) as tf.Tensor2D, w))).toContain(
      'AgenticRlSimdMatMulT',
    );
    expect(await kernelsOf(() => matMul2d(tf.ones([129, k]) as tf.Tensor2D, w))).not.toContain(
      'AgenticRlSimdMatMulT',
    );
    expect(
      await kernelsOf(
        () =>
          tf.grads((x: tf.Tensor) => tf.sum(matMulLinear(x as tf.Tensor2D, w, false)))([
            tf.ones([100, k]),
          ])[0]!,
      ),
    ).not.toContain('AgenticRlSimdMatMulT');
    // disposing the weight's copy (a model's dispose does) leaves no tensors
    releaseTransposedWeights([w]);
    expect(transposedWeightStats()).toEqual({ copies: 0, numbers: 0 });
    tf.dispose([w, plain, small]);
    expect(tf.memory().numTensors).toBe(before);
  });
});
