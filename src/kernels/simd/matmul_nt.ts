// C = A W^T with W stored (N, K), row-major ("NT" in BLAS terms), as a WebAssembly SIMD kernel on
// tfjs-wasm's heap: the linear layers' input gradient dx = dy W^T read from the weight as stored.
// Why: through the matmul kernel (simd/matmul.ts) it needs W^T first, a transposed copy of every
// weight in every backward pass (28 in the bench's step, ~5 ms of transposes, bound by memory).
//
// The same 4 x 8 tiles of fused multiply-adds as `matmul`, each output one FMA chain over k in
// order, so the bits of `matmul(A, transpose(W))` (tested): the 8 rows of W of a block of columns
// are first packed into scratch as (K, 8), 32 contiguous bytes per k (the strided copy the
// transpose made, but into L1), then every 4-row block of A runs against them. The last N % 8
// columns: one 4-column block (packed (K, 4)), then columns one at a time in scalar multiply and
// add, as `matmul` computes its tail columns. Relaxed-SIMD build only, and K up to NT_MAX_K
// (packed blocks in L1 beside 4 rows of A).
import { Body, F32, I32, moduleBytes, V128, V128_ZERO } from '../wasm/assembler.ts';
import { exported } from './matmul.ts';

/**
 * Largest K the kernel takes: its (K, 8) block and 4 rows of A, 48 KB at K = 1024, in L1 (48 KB on
 * recent x64).
 */
export const NT_MAX_K = 1024;

/**
 * Emits `matmulNT(a, w, c, M, K, N, scratch)`: C (M, N) = A (M, K) @ W^T, W stored (N, K); byte
 * pointers; scratch K * 32 bytes.
 */
function ntBody(): Body {
  const f = new Body(7);
  const [pa, pw, pc, M, K, N, scratch] = [0, 1, 2, 3, 4, 5, 6];
  const rowK = f.local(I32); // K * 4
  const rowC = f.local(I32); // N * 4
  const i = f.local(I32);
  const j = f.local(I32);
  const k = f.local(I32);
  const q = f.local(I32);
  const from = f.local(I32);
  const out = f.local(I32);
  const rowPtr = Array.from({ length: 4 }, () => f.local(I32));
  const av = f.local(V128);
  const bv = Array.from({ length: 2 }, () => f.local(V128));
  const acc = Array.from({ length: 4 }, () => Array.from({ length: 2 }, () => f.local(V128)));
  const sum = f.local(F32);

  // scratch (K, width) = W[j .. j + width, :]^T
  const pack = (width: number) => {
    for (let c = 0; c < width; c++) {
      f.get(pw).get(j).i32(c).i32Add().get(rowK).i32Mul().i32Add().set(from); // row j + c of W
      f.get(scratch)
        .i32(4 * c)
        .i32Add()
        .set(q);
      f.i32(0).set(k);
      f.whileLoop(f.lessThan(k, K), () => {
        f.get(q).get(from).f32Load().f32Store();
        f.addConst(from, 4)
          .addConst(q, 4 * width)
          .addConst(k, 1);
      });
    }
  };
  // rows i .. i + rows of C's columns j .. j + 4 * vectors, against the packed block
  const tile = (rows: number, vectors: number) => {
    for (let r = 0; r < rows; r++) {
      for (let v = 0; v < vectors; v++) f.v128Const(V128_ZERO).set(acc[r]![v]!);
      f.get(pa).get(i).i32(r).i32Add().get(rowK).i32Mul().i32Add().set(rowPtr[r]!);
    }
    f.get(scratch).set(q);
    f.i32(0).set(k);
    f.whileLoop(f.lessThan(k, K), () => {
      for (let v = 0; v < vectors; v++)
        f.get(q)
          .v128Load(16 * v)
          .set(bv[v]!);
      for (let r = 0; r < rows; r++) {
        f.get(rowPtr[r]!).v128Load32Splat().set(av); // A[i + r, k] in all lanes
        for (let v = 0; v < vectors; v++)
          f.get(av).get(bv[v]!).get(acc[r]![v]!).f32x4RelaxedMadd().set(acc[r]![v]!);
        f.addConst(rowPtr[r]!, 4);
      }
      f.addConst(q, 16 * vectors).addConst(k, 1);
    });
    for (let r = 0; r < rows; r++) {
      f.get(pc)
        .get(i)
        .i32(r)
        .i32Add()
        .get(rowC)
        .i32Mul()
        .i32Add()
        .get(j)
        .i32(2)
        .i32Shl()
        .i32Add()
        .set(out);
      for (let v = 0; v < vectors; v++)
        f.get(out)
          .get(acc[r]![v]!)
          .v128Store(16 * v);
    }
  };
  const allRows = (vectors: number) => {
    f.i32(0).set(i);
    f.whileLoop(f.fits(i, 4, M), () => {
      tile(4, vectors);
      f.addConst(i, 4);
    });
    f.whileLoop(f.lessThan(i, M), () => {
      tile(1, vectors);
      f.addConst(i, 1);
    });
  };

  f.get(K).i32(2).i32Shl().set(rowK);
  f.get(N).i32(2).i32Shl().set(rowC);
  f.i32(0).set(j);
  f.whileLoop(f.fits(j, 8, N), () => {
    pack(8);
    allRows(2);
    f.addConst(j, 8);
  });
  f.ifElse(
    f.fits(j, 4, N),
    () => {
      pack(4);
      allRows(1);
      f.addConst(j, 4);
    },
    () => {},
  );
  f.whileLoop(f.lessThan(j, N), () => {
    // one column at a time: sum += a * w, as matmul's tail columns
    f.i32(0).set(i);
    f.whileLoop(f.lessThan(i, M), () => {
      f.f32Const(0).set(sum);
      f.get(pa).get(i).get(rowK).i32Mul().i32Add().set(rowPtr[0]!);
      f.get(pw).get(j).get(rowK).i32Mul().i32Add().set(from);
      f.i32(0).set(k);
      f.whileLoop(f.lessThan(k, K), () => {
        f.get(sum).get(rowPtr[0]!).f32Load().get(from).f32Load().f32Mul().f32Add().set(sum);
        f.addConst(rowPtr[0]!, 4).addConst(from, 4).addConst(k, 1);
      });
      f.get(pc)
        .get(i)
        .get(rowC)
        .i32Mul()
        .i32Add()
        .get(j)
        .i32(2)
        .i32Shl()
        .i32Add()
        .get(sum)
        .f32Store();
      f.addConst(i, 1);
    });
    f.addConst(j, 1);
  });
  return f;
}

/** The kernel's module bytes (relaxed SIMD). */
export function simdMatmulNTModule(): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'matmulNT', params: 7, body: ntBody() }]);
}

/**
 * matmulNT(a, w, c, M, K, N, scratch): C (M, N) = A (M, K) @ W^T, W stored (N, K); byte pointers;
 * scratch K * 32 bytes.
 */
export type MatmulNTKernel = (
  a: number,
  w: number,
  c: number,
  m: number,
  k: number,
  n: number,
  scratch: number,
) => void;

/** Instantiates the kernel on `memory`, or returns null where relaxed SIMD is unavailable. */
export function instantiateMatmulNT(memory: WebAssembly.Memory): MatmulNTKernel | null {
  return exported(simdMatmulNTModule(), memory, 'matmulNT') as MatmulNTKernel | null;
}
