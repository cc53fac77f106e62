// The dot-product kernel for frozen 16-bit weights, `dot16`: C = A W^T with W stored (N, K) as
// BF16 or F16 (weights16.ts keeps them in the dot store's memory as the checkpoint ships them),
// widened to float32 as they stream in. For products with few rows (decoding), bound by reading W
// once: simd_dot.ts's matmulT with half the bytes to read.
//   - 4 or more rows of A: matmulT's tiles of 4 rows x 2 rows of W, per 4 steps of K 4 + 2 loads
//     feeding 8 multiply-adds, a W load a v128.load16x4_u widened to an f32x4 (simd_half.ts); the
//     last M % 4 rows 1 x 2.
//   - fewer rows (decoding at batch 1): one row of W at a time, straight through, so W streams as
//     one sequence. Per 16 steps of K two 16-byte loads of W give its even and odd numbers as four
//     f32x4 for one instruction each, against A's numbers shuffled into the same order. Measured
//     with W out of cache, one thread: 25 GB/s of BF16 (the CPU's streaming reads: 31), where tiles
//     of 4 W rows read as 4 interleaved streams ran at 12-14 (a bare read of 4 such streams: 15).
//   - the last N % 2 rows of W one at a time, as with fewer rows.
// Each output: its accumulators' lanes summed, then (a last pass over C, emitted once to keep the
// module under 4 KB) the K % 8 last terms one by one. Relaxed SIMD only, like matmulT. F16 runs
// at about a third of BF16's speed with W in cache (its widening takes 8 instructions and 4 more
// constant registers, and accumulators spill).
import { Body, F32, I32, moduleBytes, V128, V128_ZERO } from './assembler.ts';
import { exported } from './simd_matmul.ts';
import { type HalfKind, widenLoad, widenLocals, widenPair, widenScalar } from './simd_half.ts';
import { panel16Module } from './simd_panel16.ts';

/** i8x16.shuffle lanes taking float lanes 0, 2 of each operand (values 0, 2, 4, 6 of a pair). */
const EVEN_LANES = [0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27];
/** And lanes 1, 3 of each (values 1, 3, 5, 7). */
const ODD_LANES = [4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31];

/**
 * Emits `dot16(a, w, c, M, K, N, ldc)`: C (M, N) = A (M, K) @ W^T, W (N, K) of `kind`; byte
 * pointers; rows of C ldc numbers apart (threads each fill a block of columns).
 */
function dot16Body(kind: HalfKind): Body {
  const f = new Body(7);
  const [pa, pw, pc, M, K, N, LDC] = [0, 1, 2, 3, 4, 5, 6];
  const widen = widenLocals(f, kind);
  const rowA = f.local(I32);
  const rowW = f.local(I32);
  const m = f.local(I32);
  const n = f.local(I32);
  const k = f.local(I32);
  const k8 = f.local(I32); // K rounded down to a multiple of 8
  const offA = f.local(I32);
  const offW = f.local(I32);
  const out = f.local(I32);
  const aPtr = Array.from({ length: 4 }, () => f.local(I32));
  const wPtr = Array.from({ length: 4 }, () => f.local(I32));
  const acc = Array.from({ length: 8 }, () => f.local(V128));
  const va = Array.from({ length: 4 }, () => f.local(V128));
  const vw = f.local(V128);
  const sum = f.local(F32);

  // out = &C[m + i, n + j]
  const outAt = (i: number, j: number) => {
    f.get(pc).get(m).i32(i).i32Add().get(LDC).i32Mul().get(n).i32Add().i32(j).i32Add();
    f.i32(2).i32Shl().i32Add().set(out);
  };
  // 8 steps of k of one row of A against the W row wPtr[0], at offA / offW: the even k's into
  // acc[first], the odd into acc[first + 1]
  const oneRowStep = (first: number) => {
    const at = 8 * first; // bytes of W from offW (A: twice that)
    for (let half = 0; half < 2; half++)
      f.get(aPtr[0]!)
        .get(offA)
        .i32Add()
        .v128Load(2 * at + 16 * half)
        .set(va[half]!);
    f.get(wPtr[0]!).get(offW).i32Add().v128Load(at, 1).set(vw);
    for (let odd = 0; odd < 2; odd++) {
      f.get(va[0]!)
        .get(va[1]!)
        .i8x16Shuffle(odd ? ODD_LANES : EVEN_LANES);
      widenPair(f, kind, vw, odd === 1, widen);
      f.get(acc[first + odd]!)
        .f32x4RelaxedMadd()
        .set(acc[first + odd]!);
    }
  };
  // C[m .. m + tm, n .. n + tn] over k < k8 for the W rows wPtr[0 .. tn), accumulator tn i + j.
  // tm 4: 4 steps of k at a time. tm 1, tn 1: 16 steps at a time into 4 accumulators (summed into
  // the first); tn 2: 8 steps at a time, the even k's then the odd k's.
  const tile = (tm: number, tn: number) => {
    for (let i = 0; i < tm; i++)
      f.get(pa).get(m).i32(i).i32Add().get(rowA).i32Mul().i32Add().set(aPtr[i]!);
    for (let x = 0; x < tm * tn; x++) f.v128Const(V128_ZERO).set(acc[x]!);
    f.i32(0).set(offA).i32(0).set(offW);
    if (tm === 1 && tn === 1) {
      // one row of W read straight through (16 steps of k at a time, 4 accumulators): the rows
      // follow each other in memory, so W streams as one sequence
      for (let x = 1; x < 4; x++) f.v128Const(V128_ZERO).set(acc[x]!);
      f.whileLoop(
        () => {
          f.get(offW).i32(32).i32Add().get(k8).i32LeU();
        },
        () => {
          for (let block = 0; block < 2; block++) oneRowStep(2 * block);
          f.addConst(offA, 64).addConst(offW, 32);
        },
      );
      f.ifElse(
        f.lessThan(offW, k8),
        () => {
          oneRowStep(0);
          f.addConst(offA, 32).addConst(offW, 16);
        },
        () => {},
      );
      f.get(acc[0]!).get(acc[2]!).f32x4Add().get(acc[1]!).get(acc[3]!).f32x4Add().f32x4Add();
      f.set(acc[0]!);
    }
    f.whileLoop(f.lessThan(offW, k8), () => {
      if (tm === 1) {
        for (let half = 0; half < 2; half++)
          f.get(aPtr[0]!)
            .get(offA)
            .i32Add()
            .v128Load(16 * half)
            .set(va[half]!); // A[m, k .. k + 7]
        for (let odd = 0; odd < 2; odd++)
          f.get(va[0]!)
            .get(va[1]!)
            .i8x16Shuffle(odd ? ODD_LANES : EVEN_LANES)
            .set(va[2 + odd]!);
        for (let j = 0; j < tn; j++) {
          f.get(wPtr[j]!).get(offW).i32Add().v128Load(0, 1).set(vw); // W[n + j, k .. k + 7]
          for (let odd = 0; odd < 2; odd++) {
            f.get(va[2 + odd]!);
            widenPair(f, kind, vw, odd === 1, widen);
            f.get(acc[j]!).f32x4RelaxedMadd().set(acc[j]!);
          }
        }
        f.addConst(offA, 32).addConst(offW, 16);
        return;
      }
      for (let i = 0; i < tm; i++) f.get(aPtr[i]!).get(offA).i32Add().v128Load().set(va[i]!); // A[m + i, k .. k + 3]
      for (let j = 0; j < tn; j++) {
        f.get(wPtr[j]!).get(offW).i32Add();
        widenLoad(f, kind, 0, widen); // W[n + j, k .. k + 3]
        f.set(vw);
        for (let i = 0; i < tm; i++)
          f.get(va[i]!)
            .get(vw)
            .get(acc[tn * i + j]!)
            .f32x4RelaxedMadd()
            .set(acc[tn * i + j]!);
      }
      f.addConst(offA, 16).addConst(offW, 8);
    });
    for (let i = 0; i < tm; i++)
      for (let j = 0; j < tn; j++) {
        const v = acc[tn * i + j]!;
        outAt(i, j);
        f.get(out).get(v).f32x4ExtractLane(0);
        for (let lane = 1; lane < 4; lane++) f.get(v).f32x4ExtractLane(lane).f32Add();
        f.f32Store();
      }
  };
  // Every row of A against the W rows n .. n + tn: blocks of tm rows, then one at a time.
  const columns = (tm: number, tn: number, tail: number) => {
    for (let j = 0; j < tn; j++)
      f.get(pw).get(n).i32(j).i32Add().get(rowW).i32Mul().i32Add().set(wPtr[j]!);
    f.i32(0).set(m);
    if (tm > 1)
      f.whileLoop(f.fits(m, tm, M), () => {
        tile(tm, tn);
        f.addConst(m, tm);
      });
    f.whileLoop(f.lessThan(m, M), () => {
      tile(1, tail);
      f.addConst(m, 1);
    });
  };
  const blocks = (tm: number, tn: number) =>
    f.whileLoop(f.fits(n, tn, N), () => {
      columns(tm, tn, tn);
      f.addConst(n, tn);
    });

  f.get(K).i32(2).i32Shl().set(rowA);
  f.get(K).i32(1).i32Shl().set(rowW);
  f.get(K).i32(-8).i32And().i32(1).i32Shl().set(k8); // in bytes of W, as offW
  f.i32(0).set(n);
  f.ifElse(
    () => {
      f.get(M).i32(4).i32GeU();
    },
    () => blocks(4, 2),
    () => {},
  );
  f.whileLoop(f.lessThan(n, N), () => {
    columns(1, 1, 1);
    f.addConst(n, 1);
  }); // the last N % tile rows of W
  // The last K % 8 terms of every output, one by one after its vector sum.
  f.get(K).i32(-8).i32And().set(k8);
  f.ifElse(
    f.lessThan(k8, K),
    () => {
      f.i32(0).set(m);
      f.whileLoop(f.lessThan(m, M), () => {
        f.i32(0).set(n);
        f.whileLoop(f.lessThan(n, N), () => {
          outAt(0, 0);
          f.get(out).f32Load().set(sum);
          f.get(pa).get(m).get(rowA).i32Mul().i32Add().get(k8).i32(2).i32Shl().i32Add();
          f.set(aPtr[0]!);
          f.get(pw).get(n).get(rowW).i32Mul().i32Add().get(k8).i32(1).i32Shl().i32Add();
          f.set(wPtr[0]!);
          f.get(k8).set(k);
          f.whileLoop(f.lessThan(k, K), () => {
            f.get(sum).get(aPtr[0]!).f32Load().get(wPtr[0]!);
            widenScalar(f, kind, widen);
            f.f32Mul().f32Add().set(sum); // sum += A * W
            f.addConst(aPtr[0]!, 4).addConst(wPtr[0]!, 2).addConst(k, 1);
          });
          f.get(out).get(sum).f32Store();
          f.addConst(n, 1);
        });
        f.addConst(m, 1);
      });
    },
    () => {},
  );
  return f;
}

/** The tile width in columns of C (rows of W) dot16 uses for `m` rows: splits start on it. */
export function dot16Unit(m: number): number {
  return m >= 4 ? 2 : 1;
}

/** dot16's module bytes for `kind` (relaxed SIMD; `shared`: importing a shared memory). */
export function dot16Module(kind: HalfKind, shared: boolean): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'dot16', params: 7, body: dot16Body(kind) }], shared);
}

/**
 * dot16(a, w, c, M, K, N, ldc): C (M, N) = A (M, K) @ W^T for a 16-bit W (N, K); byte pointers;
 * rows of C ldc numbers apart.
 */
export type Dot16Kernel = (
  a: number,
  w: number,
  c: number,
  m: number,
  k: number,
  n: number,
  ldc: number,
) => void;

/** Instantiates dot16 for `kind` on `memory`, or returns null where relaxed SIMD is unavailable. */
export function instantiateDot16(
  memory: WebAssembly.Memory,
  kind: HalfKind,
  shared: boolean,
): Dot16Kernel | null {
  return exported(dot16Module(kind, shared), memory, 'dot16') as Dot16Kernel | null;
}

/**
 * The 16-bit weights' modules the matmul helper threads hold on the dot store's memory, in the
 * order of their builds (matmul_thread_code.ts: DOT16, DOT16 + 1, PANEL16, PANEL16 + 1).
 */
export function weights16Modules(
  shared: boolean,
): { bytes: Uint8Array<ArrayBuffer>; name: string }[] {
  return [
    { bytes: dot16Module('bf16', shared), name: 'dot16' },
    { bytes: dot16Module('f16', shared), name: 'dot16' },
    { bytes: panel16Module('bf16', shared), name: 'panel16' },
    { bytes: panel16Module('f16', shared), name: 'panel16' },
  ];
}
