// RMSNorm, y = x r w with r = 1 / sqrt(mean(x^2) + eps) per row, and its gradient, each as one
// WebAssembly SIMD pass over the rows on tfjs-wasm's heap (the forward also for decoding). Why: as
// tfjs ops the forward is six element-wise kernels and autograd's backward about ten, among them
// the weight's gradient, a sum over rows that tfjs-wasm runs by transposing first (19 such sums of
// 512 x 256 took 5 ms of a step). Fused, the forward reads x once and writes y and r (kept for the
// backward); the backward reads x, dy and r once and writes dx, accumulating dw.
//
//   forward:  r = 1 / sqrt(sum(x^2) / D + eps),  y = (x r) w
//   backward: g = dy w,  dx = g r - x (r^3 sum(g x) / D),  dw = sum over rows of dy (x r)
//
// Row sums are taken four lanes at a time, so values differ from the ops' in the last bits (tested
// against them and against float64, values and gradients).
import { Body, F32, I32, moduleBytes, V128, V128_ZERO } from '../wasm/assembler.ts';

/** Sum of the four lanes of the v128 local `v`, in order, left on the stack as an f32. */
function laneSum(f: Body, v: number): void {
  f.get(v).f32x4ExtractLane(0);
  for (let lane = 1; lane < 4; lane++) f.get(v).f32x4ExtractLane(lane).f32Add();
}

/**
 * `forward(x, w, y, r, rows, D, epsBits)`: byte pointers; D a multiple of 4. With `residual`,
 * `addForward(x, delta, w, y, r, rows, D, epsBits, sum)`: first sum = x + delta (float32, as
 * tf.add), then the norm of sum, so the same bits as tf.add and then forward.
 */
function forwardBody(residual = false): Body {
  const f = new Body(residual ? 9 : 7);
  const [px, pdelta, pw, py, pr, rows, D, epsBits, psum] = residual
    ? [0, 1, 2, 3, 4, 5, 6, 7, 8]
    : [0, -1, 1, 2, 3, 4, 5, 6, -1];
  const source = residual ? psum : px; // the rows normed
  const [row, at, rowBytes, base] = [f.local(I32), f.local(I32), f.local(I32), f.local(I32)];
  const [acc, v, rv] = [f.local(V128), f.local(V128), f.local(V128)];
  const [eps, rs] = [f.local(F32), f.local(F32)];
  f.get(epsBits).f32ReinterpretI32().set(eps);
  f.get(D).i32(2).i32Shl().set(rowBytes);
  f.i32(0).set(row);
  f.whileLoop(
    () => {
      f.get(row).get(rows).i32LtU();
    },
    () => {
      f.get(row).get(rowBytes).i32Mul().set(base);
      f.v128Const(V128_ZERO).set(acc);
      f.i32(0).set(at);
      f.whileLoop(
        () => {
          f.get(at).get(rowBytes).i32LtU();
        },
        () => {
          f.get(px).get(base).i32Add().get(at).i32Add().v128Load().set(v);
          if (residual) {
            f.get(v).get(pdelta).get(base).i32Add().get(at).i32Add().v128Load().f32x4Add().set(v); // x + delta
            f.get(psum).get(base).i32Add().get(at).i32Add().get(v).v128Store();
          }
          f.get(acc).get(v).get(v).f32x4Mul().f32x4Add().set(acc);
          f.addConst(at, 16);
        },
      );
      // r = 1 / sqrt(sum / D + eps)
      f.f32Const(1);
      laneSum(f, acc);
      f.get(D).f32ConvertI32U().f32Div().get(eps).f32Add().f32Sqrt().f32Div().set(rs);
      f.get(pr).get(row).i32(2).i32Shl().i32Add().get(rs).f32Store(); // r[row] = rs
      f.get(rs).f32x4Splat().set(rv);
      f.i32(0).set(at);
      f.whileLoop(
        () => {
          f.get(at).get(rowBytes).i32LtU();
        },
        () => {
          f.get(py).get(base).i32Add().get(at).i32Add(); // y address
          f.get(source).get(base).i32Add().get(at).i32Add().v128Load().get(rv).f32x4Mul(); // x r
          f.get(pw).get(at).i32Add().v128Load().f32x4Mul(); // (x r) w
          f.v128Store();
          f.addConst(at, 16);
        },
      );
      f.addConst(row, 1);
    },
  );
  return f;
}

/** `backward(x, w, r, dy, dx, dw, rows, D)`: byte pointers; dw is written (zeroed first). */
function backwardBody(): Body {
  const f = new Body(8);
  const [px, pw, pr, pdy, pdx, pdw, rows, D] = [0, 1, 2, 3, 4, 5, 6, 7];
  const [row, at, rowBytes, base] = [f.local(I32), f.local(I32), f.local(I32), f.local(I32)];
  const [acc, x, dy, g, rv, cv] = [
    f.local(V128),
    f.local(V128),
    f.local(V128),
    f.local(V128),
    f.local(V128),
    f.local(V128),
  ];
  const rs = f.local(F32);
  const load = (pointer: number, withBase: boolean) => {
    f.get(pointer);
    if (withBase) f.get(base).i32Add();
    return f.get(at).i32Add().v128Load();
  };
  f.get(D).i32(2).i32Shl().set(rowBytes);
  f.i32(0).set(at); // dw = 0
  f.whileLoop(
    () => {
      f.get(at).get(rowBytes).i32LtU();
    },
    () => {
      f.get(pdw).get(at).i32Add().v128Const(V128_ZERO).v128Store();
      f.addConst(at, 16);
    },
  );
  f.i32(0).set(row);
  f.whileLoop(
    () => {
      f.get(row).get(rows).i32LtU();
    },
    () => {
      f.get(row).get(rowBytes).i32Mul().set(base);
      f.get(pr).get(row).i32(2).i32Shl().i32Add().f32Load().set(rs);
      f.get(rs).f32x4Splat().set(rv);
      // sum(g x), g = dy w
      f.v128Const(V128_ZERO).set(acc);
      f.i32(0).set(at);
      f.whileLoop(
        () => {
          f.get(at).get(rowBytes).i32LtU();
        },
        () => {
          load(pdy, true);
          load(pw, false);
          f.f32x4Mul(); // g
          load(px, true);
          f.f32x4Mul().get(acc).f32x4Add().set(acc);
          f.addConst(at, 16);
        },
      );
      // c = r^3 sum(g x) / D
      f.get(rs).get(rs).f32Mul().get(rs).f32Mul();
      laneSum(f, acc);
      f.f32Mul().get(D).f32ConvertI32U().f32Div().f32x4Splat().set(cv);
      f.i32(0).set(at);
      f.whileLoop(
        () => {
          f.get(at).get(rowBytes).i32LtU();
        },
        () => {
          load(px, true).set(x);
          load(pdy, true).set(dy);
          f.get(dy);
          load(pw, false);
          f.f32x4Mul().set(g);
          // dx = g r - x c
          f.get(pdx).get(base).i32Add().get(at).i32Add();
          f.get(g).get(rv).f32x4Mul().get(x).get(cv).f32x4Mul().f32x4Sub();
          f.v128Store();
          // dw += dy (x r)
          f.get(pdw).get(at).i32Add();
          load(pdw, false);
          f.get(dy).get(x).get(rv).f32x4Mul().f32x4Mul().f32x4Add();
          f.v128Store();
          f.addConst(at, 16);
        },
      );
      f.addConst(row, 1);
    },
  );
  return f;
}

/** The module's bytes: `forward` and `backward`. */
export function simdRmsNormModule(): Uint8Array<ArrayBuffer> {
  return moduleBytes([
    { name: 'forward', params: 7, body: forwardBody() },
    { name: 'backward', params: 8, body: backwardBody() },
    { name: 'addForward', params: 9, body: forwardBody(true) },
  ]);
}
