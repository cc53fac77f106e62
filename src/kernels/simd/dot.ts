// The dot-product kernel `matmulT`, C = A W^T with W stored (N, K), as WebAssembly SIMD (relaxed
// SIMD's fused multiply-add): for the linear layers' products with few rows (decoding), where
// streaming the weights dominates; its weights are transposed copies kept by
// matmul/decode_products.ts.
import { Body, F32, I32, moduleBytes, V128, V128_ZERO } from '../wasm/assembler.ts';
import { exported } from './matmul.ts';

/**
 * Emits `matmulT(a, w, c, M, K, N, ldc)`: C (M, N) = A (M, K) @ W^T with W stored (N, K),
 * row-major, pointers in bytes, rows of C ldc numbers apart (so threads can each fill a block of
 * columns). For the linear layers' products with few rows (decoding): each output is a dot product
 * of two contiguous rows, so the weights stream from memory exactly once, in order, and a tile of
 * TN rows of W (a few KB) stays in L1 while every row block of A passes over it. Tiles: with 4 or
 * more rows of A, 4 rows x 2 rows of W (8 accumulators; per 4 steps of K, 4 + 2 vector loads feed 8
 * multiply-adds), the last M % 4 rows 1 x 2; with fewer rows, 1 x 4; the last N % tile rows of W
 * one at a time. Each accumulator's lanes are summed in order at the end ((l0 + l1) + l2) + l3,
 * then the K % 4 last terms are added one by one. Relaxed-SIMD build only (fused multiply-add):
 * without it matMul2d stays on XNNPACK.
 */
function dotBody(): Body {
  const f = new Body(7);
  const [pa, pw, pc, M, K, N, LDC] = [0, 1, 2, 3, 4, 5, 6];
  const MAX_M = 4;
  const MAX_N = 4;
  const rowK = f.local(I32);
  const m = f.local(I32);
  const n = f.local(I32);
  const k = f.local(I32);
  const off = f.local(I32);
  const aPtr = Array.from({ length: MAX_M }, () => f.local(I32));
  const wPtr = Array.from({ length: MAX_N }, () => f.local(I32));
  const acc = Array.from({ length: MAX_M }, () =>
    Array.from({ length: MAX_N }, () => f.local(V128)),
  );
  const va = Array.from({ length: MAX_M }, () => f.local(V128));
  const vw = f.local(V128);
  const sum = f.local(F32);
  const tailK = f.local(I32);
  const tailA = f.local(I32);
  const tailW = f.local(I32);

  // C[m .. m + tm, n .. n + tn] for the W rows wPtr[0 .. tn).
  const tile = (tm: number, tn: number) => {
    for (let i = 0; i < tm; i++)
      f.get(pa).get(m).i32(i).i32Add().get(rowK).i32Mul().i32Add().set(aPtr[i]!);
    for (let i = 0; i < tm; i++)
      for (let j = 0; j < tn; j++) f.v128Const(V128_ZERO).set(acc[i]![j]!);
    f.i32(0).set(off).i32(0).set(k);
    f.whileLoop(f.fits(k, 4, K), () => {
      for (let i = 0; i < tm; i++) f.get(aPtr[i]!).get(off).i32Add().v128Load().set(va[i]!); // A[m + i, k .. k + 3]
      for (let j = 0; j < tn; j++) {
        f.get(wPtr[j]!).get(off).i32Add().v128Load().set(vw); // W[n + j, k .. k + 3]
        for (let i = 0; i < tm; i++)
          f.get(va[i]!).get(vw).get(acc[i]![j]!).f32x4RelaxedMadd().set(acc[i]![j]!);
      }
      f.addConst(off, 16).addConst(k, 4);
    });
    for (let i = 0; i < tm; i++) {
      for (let j = 0; j < tn; j++) {
        f.get(acc[i]![j]!).f32x4ExtractLane(0);
        for (let lane = 1; lane < 4; lane++) f.get(acc[i]![j]!).f32x4ExtractLane(lane).f32Add();
        f.set(sum);
        f.get(k)
          .set(tailK)
          .get(aPtr[i]!)
          .get(off)
          .i32Add()
          .set(tailA)
          .get(wPtr[j]!)
          .get(off)
          .i32Add()
          .set(tailW);
        f.whileLoop(f.lessThan(tailK, K), () => {
          f.get(sum).get(tailA).f32Load().get(tailW).f32Load().f32Mul().f32Add().set(sum); // sum += A * W
          f.addConst(tailA, 4).addConst(tailW, 4).addConst(tailK, 1);
        });
        // C[m + i, n + j] = sum, rows of C ldc numbers apart
        f.get(pc)
          .get(m)
          .i32(i)
          .i32Add()
          .get(LDC)
          .i32Mul()
          .get(n)
          .i32Add()
          .i32(j)
          .i32Add()
          .i32(2)
          .i32Shl()
          .i32Add()
          .get(sum)
          .f32Store();
      }
    }
  };
  // Every row of A against the W rows n .. n + tn, in blocks of tm rows, then one at a time.
  const columns = (tm: number, tn: number) => {
    for (let j = 0; j < tn; j++)
      f.get(pw).get(n).i32(j).i32Add().get(rowK).i32Mul().i32Add().set(wPtr[j]!);
    f.i32(0).set(m);
    if (tm > 1)
      f.whileLoop(f.fits(m, tm, M), () => {
        tile(tm, tn);
        f.addConst(m, tm);
      });
    f.whileLoop(f.lessThan(m, M), () => {
      tile(1, tn);
      f.addConst(m, 1);
    });
  };
  const scheme = (tm: number, tn: number) => {
    f.i32(0).set(n);
    f.whileLoop(f.fits(n, tn, N), () => {
      columns(tm, tn);
      f.addConst(n, tn);
    });
    f.whileLoop(f.lessThan(n, N), () => {
      columns(1, 1);
      f.addConst(n, 1);
    }); // the last N % tn rows of W
  };

  f.get(K).i32(2).i32Shl().set(rowK);
  f.ifElse(
    () => {
      f.get(M).i32(4).i32GeU();
    },
    () => scheme(4, 2),
    () => scheme(1, 4),
  );
  return f;
}

/**
 * The dot-product kernel's module bytes (relaxed SIMD; its own module, each under the 4 KB limit).
 */
export function simdMatmulTModule(shared = false): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'matmulT', params: 7, body: dotBody() }], shared);
}

/**
 * matmulT(a, w, c, M, K, N, ldc): C (M, N) = A (M, K) @ W^T for W (N, K); byte pointers; the rows
 * of C start ldc numbers apart (N for a packed C; more when C is a block of columns of a wider
 * one).
 */
export type MatmulTKernel = (
  a: number,
  w: number,
  c: number,
  m: number,
  k: number,
  n: number,
  ldc: number,
) => void;

/**
 * Instantiates the dot-product kernel on `memory` (the shared-memory build for a shared one), or
 * returns null where relaxed SIMD is unavailable.
 */
export function instantiateMatmulT(
  memory: WebAssembly.Memory,
  shared = false,
): MatmulTKernel | null {
  return exported(simdMatmulTModule(shared), memory, 'matmulT') as MatmulTKernel | null;
}
