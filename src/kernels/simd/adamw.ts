// One AdamW step for one variable as a single WebAssembly SIMD pass on tfjs-wasm's heap. Why: as
// tfjs ops the update is 14 element-wise kernels per variable, each a full pass over memory, and
// tfjs-wasm's sqrt and divide are scalar: ~25-40 ms per step for the benchmark's 4.4M parameters
// (a tenth of a training step, measured at the bench's shapes). Fused, every number is read and written
// once: p, g, m, v in; p', m', v' out.
//
// The arithmetic is the tfjs version's (adamw.ts), operation for operation in the same order and
// in float32, with no fused multiply-add, so the result is the same bit for bit (tested):
//   g  = g * gradScale   (global-norm clipping's factor, 1 when not clipping: exact)
//   m' = m * beta1 + g * (1 - beta1)
//   v' = v * beta2 + (g * g) * (1 - beta2)
//   p' = p * (1 - lr * wd) - (m' * (lr / c1)) / (sqrt(v' * (1 / c2)) + eps)
// The nine scalars arrive as float32 bit patterns in i32 arguments (the writer's functions take
// i32s only) and are splatted once. A second kernel, sumSquares, gives clipping its global norm.
import { Body, F32, F64, I32, moduleBytes, V128, V128_ZERO } from '../wasm/assembler.ts';

/** The scalars of one step, in the kernel's argument order. */
export interface AdamWScalars {
  beta1: number;
  oneMinusBeta1: number;
  beta2: number;
  oneMinusBeta2: number;
  stepSize: number;
  inverseCorrection2: number;
  epsilon: number;
  decay: number;
  gradScale: number;
}
/** The scalars' order among the kernel's arguments. */
export const ADAMW_SCALARS: (keyof AdamWScalars)[] = [
  'beta1',
  'oneMinusBeta1',
  'beta2',
  'oneMinusBeta2',
  'stepSize',
  'inverseCorrection2',
  'epsilon',
  'decay',
  'gradScale',
];

/**
 * Emits `adamw(p, g, m, v, pOut, mOut, vOut, count, ...9 scalars as f32 bits)`; pointers in bytes.
 */
function adamwBody(): Body {
  const f = new Body(8 + ADAMW_SCALARS.length);
  const [p, g, m, v, pOut, mOut, vOut] = [0, 1, 2, 3, 4, 5, 6]; // byte pointers
  const count = 7;
  const scalarArgs = ADAMW_SCALARS.map((_, i) => 8 + i);
  const end = f.local(I32); // byte offset of the end of the last whole f32x4
  const all = f.local(I32); // byte offset of the end
  const at = f.local(I32); // byte offset of the current element(s)
  const scalar = scalarArgs.map(() => f.local(F32));
  const splat = scalarArgs.map(() => f.local(V128));
  const [gv, mv, vv] = [f.local(V128), f.local(V128), f.local(V128)];
  const [gs, ms, vs] = [f.local(F32), f.local(F32), f.local(F32)];
  scalarArgs.forEach((arg, i) => {
    f.get(arg).f32ReinterpretI32().set(scalar[i]!);
    f.get(scalar[i]!).f32x4Splat().set(splat[i]!);
  });
  f.get(count).i32(2).i32Shl().set(all); // count * 4
  f.get(all).i32(-16).i32And().set(end); // & ~15
  // One body for both widths: `vector` picks v128 ops and splatted scalars, or f32 ops and scalars.
  const step = (vector: boolean) => {
    const [gl, ml, vl] = vector ? [gv, mv, vv] : [gs, ms, vs];
    const k = vector ? splat : scalar;
    const [beta1, omb1, beta2, omb2, stepSize, invC2, eps, decay, gradScale] = k as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const load = (base: number) => {
      f.get(base).get(at).i32Add();
      if (vector) f.v128Load();
      else f.f32Load();
    };
    const store = () => {
      if (vector) f.v128Store();
      else f.f32Store();
    };
    const [add, sub, mul, div, sqrt] = vector
      ? [
          () => f.f32x4Add(),
          () => f.f32x4Sub(),
          () => f.f32x4Mul(),
          () => f.f32x4Div(),
          () => f.f32x4Sqrt(),
        ]
      : [() => f.f32Add(), () => f.f32Sub(), () => f.f32Mul(), () => f.f32Div(), () => f.f32Sqrt()];
    load(g);
    f.get(gradScale);
    mul().set(gl);
    // m' = m * beta1 + g * (1 - beta1), kept in ml and stored
    f.get(mOut).get(at).i32Add();
    load(m);
    f.get(beta1);
    mul().get(gl).get(omb1);
    mul();
    add().set(ml).get(ml);
    store();
    // v' = v * beta2 + (g * g) * (1 - beta2)
    f.get(vOut).get(at).i32Add();
    load(v);
    f.get(beta2);
    mul().get(gl).get(gl);
    mul().get(omb2);
    mul();
    add().set(vl).get(vl);
    store();
    // p' = p * decay - (m' * stepSize) / (sqrt(v' * invC2) + eps)
    f.get(pOut).get(at).i32Add();
    load(p);
    f.get(decay);
    mul();
    f.get(ml).get(stepSize);
    mul();
    f.get(vl).get(invC2);
    mul();
    sqrt().get(eps);
    add();
    div();
    sub();
    store();
  };
  f.i32(0).set(at);
  f.whileLoop(
    () => {
      f.get(at).get(end).i32LtU();
    },
    () => {
      step(true);
      f.addConst(at, 16);
    },
  );
  f.whileLoop(
    () => {
      f.get(at).get(all).i32LtU();
    },
    () => {
      step(false);
      f.addConst(at, 4);
    },
  );
  return f;
}

/** The kernel's module bytes. */
export function simdAdamWModule(): Uint8Array<ArrayBuffer> {
  return moduleBytes([
    { name: 'adamw', params: 8 + ADAMW_SCALARS.length, body: adamwBody() },
    { name: 'sumSquares', params: 2, body: sumSquaresBody(), result: F64 },
  ]);
}

/**
 * Emits `sumSquares(p, count) -> f64`: the sum of x * x over `count` float32 numbers at byte
 * pointer p, each squared and summed in float64 (two accumulators of two lanes, then the lanes in
 * order, then the tail one by one). For the global gradient norm: one pass over each gradient,
 * where tf.sum(tf.square(g)) makes a squared copy and sums it in float32.
 */
function sumSquaresBody(): Body {
  const f = new Body(2);
  const [p, count] = [0, 1];
  const end = f.local(I32);
  const all = f.local(I32);
  const at = f.local(I32);
  const [v, half] = [f.local(V128), f.local(V128)];
  const acc = [f.local(V128), f.local(V128)];
  const total = f.local(F64);
  const x = f.local(F64);
  f.get(count).i32(2).i32Shl().set(all); // count * 4
  f.get(all).i32(-16).i32And().set(end); // & ~15
  for (const a of acc) f.v128Const(V128_ZERO).set(a);
  f.i32(0).set(at);
  f.whileLoop(
    () => {
      f.get(at).get(end).i32LtU();
    },
    () => {
      f.get(p).get(at).i32Add().v128Load().set(v);
      // lanes 0-1 and 2-3 as float64 pairs: of v, and of v's high half
      f.get(v)
        .f64x2PromoteLowF32x4()
        .set(half)
        .get(acc[0]!)
        .get(half)
        .get(half)
        .f64x2Mul()
        .f64x2Add()
        .set(acc[0]!);
      f.get(v)
        .get(v)
        .i8x16Shuffle([8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15])
        .f64x2PromoteLowF32x4()
        .set(half);
      f.get(acc[1]!).get(half).get(half).f64x2Mul().f64x2Add().set(acc[1]!);
      f.addConst(at, 16);
    },
  );
  f.get(acc[0]!)
    .f64x2ExtractLane(0)
    .get(acc[0]!)
    .f64x2ExtractLane(1)
    .f64Add()
    .get(acc[1]!)
    .f64x2ExtractLane(0)
    .f64Add()
    .get(acc[1]!)
    .f64x2ExtractLane(1)
    .f64Add()
    .set(total);
  f.whileLoop(
    () => {
      f.get(at).get(all).i32LtU();
    },
    () => {
      f.get(p).get(at).i32Add().f32Load().f64PromoteF32().set(x);
      f.get(total).get(x).get(x).f64Mul().f64Add().set(total);
      f.addConst(at, 4);
    },
  );
  f.get(total);
  return f;
}
