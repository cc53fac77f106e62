// The dot-product kernel for frozen 16-bit weights, `dot16`: C = A W^T with W stored (N, K) as
// BF16 or F16 (matmul/weights16.ts keeps them in the dot store's memory as the checkpoint ships
// them), widened to float32 as they stream in. For products with few rows (decoding), bound by
// reading W once: simd/dot.ts's matmulT with half the bytes to read.
//   - 4 or more rows of A: matmulT's tiles of 4 rows x 2 rows of W, per 4 steps of K 4 + 2 loads
//     feeding 8 multiply-adds, a W load a v128.load16x4_u widened to an f32x4 (simd/half.ts); the
//     last M % 4 rows 1 x 2, the last N % 2 rows of W 1 x 1, as below.
//   - fewer rows (decoding at batch 1): W split into 4 blocks of N / 4 rows, row n of each read
//     side by side against a row of A, then rows n + 1: 4 long sequential streams (a block's rows
//     follow each other in memory), A's 2 loads per 8 steps of K shared by 4 rows of W (2 or 3
//     rows of A: each in turn, the 4 rows of W then in cache). A 16-byte load of W gives its
//     numbers 0-3 and 4-7 as two f32x4, one instruction each (interleaved with zeros: h << 16),
//     against A's in order; per row a multiply and a multiply-add into a partial sum, added to the
//     row's accumulator (the one dependency carried from step to step). The last N % 4 rows one at
//     a time, each output by the same operations (the same bits however N is split). Measured at
//     m = 1, W out of cache, one thread, GB/s of BF16: 33-38 at 4864 x 896 and at 896 x 4864
//     (before, one row of W at a time against A shuffled to W's even/odd order: 25-28 and 17-20;
//     with W in cache its dependency chains held it to 30, this runs 38-44, bound by its vector
//     instructions). Rows paired with the next (short streams) read at 9, 2 long streams 26 at
//     896 x 4864; tiles of 4 adjacent W rows once read at 12-14.
// Each output: its accumulators' lanes summed, then (a last pass over C, emitted once to keep the
// module under 4 KB) the K % 8 last terms one by one. Relaxed SIMD only, like matmulT. F16 runs
// at about a third of BF16's speed with W in cache (its widening takes 8 instructions and 4 more
// constant registers, and accumulators spill).
import { Body, F32, I32, moduleBytes, V128, V128_ZERO } from '../wasm/assembler.ts';
import { exported } from './matmul.ts';
import { type HalfKind, widenLoad, widenLocals, widenScalar, widenTop } from './half.ts';
import { panel16Module } from './panel16.ts';

/** i8x16.shuffle of (zero, W): W's 16-bit values 0-3 each above 16 zero bits (x64: punpcklwd). */
const LOW_LANES = [0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23];
/** And values 4-7 (punpckhwd). */
const HIGH_LANES = LOW_LANES.map((lane) => lane + 8);
/** W's streams read side by side for fewer than 4 rows of A (each a block of W's rows). */
const STREAMS = 4;

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
  const offW = f.local(I32); // bytes of W into its rows (of A: twice that)
  const out = f.local(I32);
  const gap = f.local(I32); // rows of W from a tile's first to its second
  const aPtr = Array.from({ length: 4 }, () => f.local(I32));
  const wPtr = Array.from({ length: 4 }, () => f.local(I32));
  const acc = Array.from({ length: 8 }, () => f.local(V128));
  const va = Array.from({ length: 4 }, () => f.local(V128));
  const vw = f.local(V128);
  const zero = f.local(V128); // stays 0 (locals start at 0)
  const part = Array.from({ length: 4 }, () => f.local(V128));
  const sum = f.local(F32);

  // pushes the address of A[m + i, k] (aPtr[i] + 2 offW)
  const aAt = (i: number) => f.get(aPtr[i]!).get(offW).i32(1).i32Shl().i32Add();
  // out = &C[m + i, n + j gap]
  const outAt = (i: number, j: number) => {
    f.get(pc).get(m).i32(i).i32Add().get(LDC).i32Mul().get(n).i32Add();
    if (j) f.i32(j).get(gap).i32Mul().i32Add();
    f.i32(2).i32Shl().i32Add().set(out);
  };
  // 8 steps of k of one row of A against the W rows wPtr[0 .. tn), at offW: A's 2 v128 loaded
  // once, each W row's 16 bytes interleaved with zeros (its values 0-3, then 4-7, as h << 16: one
  // instruction each), their 2 products summed in part[j], then added to acc[j]. Each output goes
  // through the same operations whatever tn.
  const straightStep = (tn: number) => {
    for (let high = 0; high < 2; high++)
      aAt(0)
        .v128Load(16 * high)
        .set(va[high]!);
    for (let j = 0; j < tn; j++) {
      f.get(wPtr[j]!).get(offW).i32Add().v128Load(0, 1).set(vw);
      for (let high = 0; high < 2; high++) {
        f.get(va[high]!)
          .get(zero)
          .get(vw)
          .i8x16Shuffle(high ? HIGH_LANES : LOW_LANES);
        widenTop(f, kind, widen);
        if (high) f.get(part[j]!).f32x4RelaxedMadd();
        else f.f32x4Mul();
        f.set(part[j]!);
      }
      f.get(acc[j]!).get(part[j]!).f32x4Add().set(acc[j]!);
    }
    f.addConst(offW, 16);
  };
  // C[m .. m + tm, n .. n + tn gap] over k < k8 for the W rows wPtr[0 .. tn), accumulator tn i + j.
  // tm 4: 4 steps of k at a time. tm 1: 8 steps at a time, the W rows read straight through.
  const tile = (tm: number, tn: number) => {
    for (let i = 0; i < tm; i++)
      f.get(pa).get(m).i32(i).i32Add().get(rowA).i32Mul().i32Add().set(aPtr[i]!);
    for (let x = 0; x < tm * tn; x++) f.v128Const(V128_ZERO).set(acc[x]!);
    f.i32(0).set(offW);
    f.whileLoop(f.lessThan(offW, k8), () => {
      if (tm === 1) {
        straightStep(tn);
        return;
      }
      for (let i = 0; i < tm; i++) aAt(i).v128Load().set(va[i]!); // A[m + i, k .. k + 3]
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
      f.addConst(offW, 8);
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
      f.get(pw).get(n).i32(j).get(gap).i32Mul().i32Add().get(rowW).i32Mul().i32Add().set(wPtr[j]!);
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
    () => {
      f.i32(1).set(gap);
      blocks(4, 2);
    },
    () => {
      // W in STREAMS blocks of gap rows, their rows n read side by side
      f.get(N).i32(STREAMS).i32DivU().set(gap);
      f.whileLoop(f.lessThan(n, gap), () => {
        columns(1, STREAMS, STREAMS);
        f.addConst(n, 1);
      });
      f.get(gap).i32(STREAMS).i32Mul().set(n);
    },
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
 * order of their builds (matmul/thread_code.ts: DOT16, DOT16 + 1, PANEL16, PANEL16 + 1).
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
