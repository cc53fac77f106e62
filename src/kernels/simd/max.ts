// The largest number of each row, as one WebAssembly SIMD pass on tfjs-wasm's heap. Why: the output
// head's log-partition takes two row maxima of a (C, V) chunk (the logits' and the softmax's,
// ops.ts logPartition), and tfjs-wasm's Max ran at ~1.3 ns a number (2.6 ms of the bench's training
// step for two of 512 x 2000). A NaN anywhere in a row gives NaN (tfjs-wasm's loop skipped a NaN
// unless it came first); otherwise the same number as tfjs-wasm's, the largest, except that of a
// row whose largest numbers are +0 and -0 either may come back.
import { Body, F32, I32, moduleBytes, V128, V128_ZERO } from '../wasm/assembler.ts';

/**
 * Emits `rowMax(src, dst, rows, cols)`: dst[r] = max of src[r, 0 .. cols); byte pointers. Four
 * running maxima of f32x4.pmax (one maxps each on x64; f32x4.max's NaN and signed-zero rules cost
 * V8 a sequence of ~8 instructions, slower than tfjs-wasm's scalar loop), 16 numbers a step, with
 * a mask of NaN lanes (x != x) on the side, since pmax lets a NaN through only sometimes.
 */
function rowMaxBody(): Body {
  const f = new Body(4);
  const [src, dst, rows, cols] = [0, 1, 2, 3];
  const row = f.local(I32);
  const at = f.local(I32);
  const wideEnd = f.local(I32); // where a row's whole steps of 16 numbers end
  const vecEnd = f.local(I32); // where its whole vectors end
  const end = f.local(I32); // where the row ends
  const best = Array.from({ length: 4 }, () => f.local(V128));
  const x = f.local(V128);
  const nan = f.local(V128);
  const top = f.local(F32);
  const upTo = (multiple: number, local: number) => {
    f.get(src).get(cols).i32(-multiple).i32And().i32(2).i32Shl().i32Add().set(local);
  }; // src + (cols & -multiple) * 4
  // best[v] = pmax(best[v], x); nan |= (x != x)
  const take = (v: number) => {
    f.get(best[v]!).get(x).f32x4Pmax().set(best[v]!); // best < x ? x : best
    f.get(nan).get(x).get(x).f32x4Ne().v128Or().set(nan); // nan |= (x != x)
  };
  f.i32(0).set(row);
  f.whileLoop(f.lessThan(row, rows), () => {
    f.get(src).get(cols).i32(2).i32Shl().i32Add().set(end);
    upTo(16, wideEnd);
    upTo(4, vecEnd);
    for (const b of best) f.f32Const(-Infinity).f32x4Splat().set(b);
    f.v128Const(V128_ZERO).set(nan);
    f.get(src).set(at);
    f.whileLoop(f.lessThan(at, wideEnd), () => {
      for (let v = 0; v < 4; v++) {
        f.get(at)
          .v128Load(16 * v)
          .set(x);
        take(v);
      }
      f.addConst(at, 64);
    });
    f.whileLoop(f.lessThan(at, vecEnd), () => {
      f.get(at).v128Load().set(x);
      take(0);
      f.addConst(at, 16);
    });
    for (let v = 1; v < 4; v++) f.get(best[0]!).get(best[v]!).f32x4Pmax().set(best[0]!);
    f.get(best[0]!).f32x4ExtractLane(0);
    for (let lane = 1; lane < 4; lane++) f.get(best[0]!).f32x4ExtractLane(lane).f32Max();
    f.set(top);
    f.whileLoop(f.lessThan(at, end), () => {
      // the tail, in f32.max (which propagates NaN)
      f.get(top).get(at).f32Load().f32Max().set(top);
      f.addConst(at, 4);
    });
    f.ifElse(
      () => {
        f.get(nan).v128AnyTrue();
      },
      () => {
        f.f32Const(NaN).set(top);
      },
      () => {},
    ); // a NaN lane anywhere: NaN
    f.get(dst).get(top).f32Store();
    f.get(end).set(src).addConst(dst, 4).addConst(row, 1);
  });
  return f;
}

/** The kernel's module bytes. */
export function simdMaxModule(): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'rowMax', params: 4, body: rowMaxBody() }]);
}

/**
 * rowMax(src, dst, rows, cols): dst[r] = the largest of row r of src (rows x cols); byte pointers.
 */
export type RowMaxKernel = (src: number, dst: number, rows: number, cols: number) => void;
