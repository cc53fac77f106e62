// SwiGLU's gate, silu(g) * u = g * sigmoid(g) * u, and its gradient, each as one WebAssembly SIMD
// pass on tfjs-wasm's heap, for training. Why: at a training step's sizes (512 x 768 per layer for
// the bench model, 1.5 MB per tensor) these element-wise ops are bound by memory, not arithmetic:
// as tfjs ops the forward is a sigmoid and two multiplies (five tensor reads, three writes) and
// autograd's backward about six more passes; the 32 multiplies of 512 x 768 took 11 ms of a 310 ms
// step (kernel profile). Fused, the forward reads g and u and writes the product; the backward
// reads g, u and dy and writes both gradients.
//
//   forward:  s = 1 / (1 + exp(-g)),  out = (g s) u
//   backward: du = dy (g s),  dg = dy u s (1 + g (1 - s))
//
// exp from simd/exp.ts (a few float32 ulps; -g clamped to [-87, 88], where sigmoid is 0 or 1 to
// float32 anyway), so values match the tfjs ops to ~1e-6 relative, not bit for bit (tested, and the
// gradient against finite differences). Forward passes without a gradient (decoding, prefill, the
// reference model's scoring) use the forward kernel too (swigluValue), ahead of the three tfjs ops
// at every size measured.
import { Body, I32, moduleBytes, V128 } from '../wasm/assembler.ts';
import { splatF32, VectorExp } from './exp.ts';

/**
 * Vectors a loop iteration takes: each one's exp is a chain of ~20 dependent operations, which the
 * CPU overlaps better when several are written side by side (512 x 768, hot, one thread: the
 * forward 0.49 ms with one vector an iteration, 0.46 with two, 0.42 with four; the gradient 0.63,
 * 0.60, 0.55).
 */
const WAYS = 4;

/**
 * Emits the loop over `count` (a multiple of 4) floats, WAYS vectors an iteration, then one at a
 * time: `start(at, way, offset)` then `finish(at, way, offset)` for the four floats at byte
 * offset `at + offset`, every way's start before any finish, `way` picking that way's locals.
 */
function overVectors(
  f: Body,
  count: number,
  start: (at: number, way: number, offset: number) => void,
  finish: (at: number, way: number, offset: number) => void,
): void {
  const at = f.local(I32);
  const end = f.local(I32);
  const wideEnd = f.local(I32);
  f.i32(0).set(at);
  f.get(count).i32(2).i32Shl().set(end); // count * 4
  f.get(count)
    .i32(-4 * WAYS)
    .i32And()
    .i32(2)
    .i32Shl()
    .set(wideEnd); // (count rounded down to WAYS vectors) * 4
  f.whileLoop(
    () => {
      f.get(at).get(wideEnd).i32LtU();
    },
    () => {
      for (let way = 0; way < WAYS; way++) start(at, way, 16 * way);
      for (let way = 0; way < WAYS; way++) finish(at, way, 16 * way);
      f.addConst(at, 16 * WAYS);
    },
  );
  f.whileLoop(
    () => {
      f.get(at).get(end).i32LtU();
    },
    () => {
      start(at, 0, 0);
      finish(at, 0, 0);
      f.addConst(at, 16);
    },
  );
}

/** WAYS sets of locals made by `make`, one per way. */
const perWay = <T>(make: () => T): T[] => Array.from({ length: WAYS }, make);

/** `swiglu(g, u, out, count)`: out = (g sigmoid(g)) u; byte pointers. */
function forwardBody(): Body {
  const f = new Body(4);
  const [pg, pu, pout, count] = [0, 1, 2, 3];
  const one = f.local(V128);
  splatF32(f, 1, one);
  const exp = new VectorExp(f, -87, 88);
  const ways = perWay(() => ({ g: f.local(V128), s: f.local(V128), temps: exp.temporaries() }));
  overVectors(
    f,
    count,
    (at, way, offset) => {
      const { g, s, temps } = ways[way]!;
      f.get(pg).get(at).i32Add().v128Load(offset).set(g);
      f.get(g).f32x4Neg().set(s); // -g
      exp.apply(s, temps);
    },
    (at, way, offset) => {
      const { g, s } = ways[way]!;
      f.get(one).get(one).get(s).f32x4Add().f32x4Div().set(s); // s = 1 / (1 + exp(-g))
      f.get(pout).get(at).i32Add();
      f.get(g).get(s).f32x4Mul().get(pu).get(at).i32Add().v128Load(offset).f32x4Mul(); // (g s) u
      f.v128Store(offset);
    },
  );
  return f;
}

/**
 * `swigluGrad(g, u, dy, dg, du, count)`: du = dy (g s), dg = dy u s (1 + g (1 - s)); byte pointers.
 */
function backwardBody(): Body {
  const f = new Body(6);
  const [pg, pu, pdy, pdg, pdu, count] = [0, 1, 2, 3, 4, 5];
  const one = f.local(V128);
  splatF32(f, 1, one);
  const exp = new VectorExp(f, -87, 88);
  const ways = perWay(() => ({
    g: f.local(V128),
    s: f.local(V128),
    dy: f.local(V128),
    temps: exp.temporaries(),
  }));
  const load = (pointer: number, at: number, offset: number) =>
    f.get(pointer).get(at).i32Add().v128Load(offset);
  overVectors(
    f,
    count,
    (at, way, offset) => {
      const { g, s, temps } = ways[way]!;
      load(pg, at, offset).set(g);
      f.get(g).f32x4Neg().set(s);
      exp.apply(s, temps);
    },
    (at, way, offset) => {
      const { g, s, dy } = ways[way]!;
      f.get(one).get(one).get(s).f32x4Add().f32x4Div().set(s); // s = 1 / (1 + exp(-g))
      load(pdy, at, offset).set(dy);
      f.get(pdu).get(at).i32Add().get(dy).get(g).get(s).f32x4Mul().f32x4Mul().v128Store(offset); // du = dy (g s)
      // dg = ((dy u) s) (1 + g (1 - s))
      f.get(pdg).get(at).i32Add();
      f.get(dy);
      load(pu, at, offset);
      f.f32x4Mul().get(s).f32x4Mul();
      f.get(one).get(g).get(one).get(s).f32x4Sub().f32x4Mul().f32x4Add();
      f.f32x4Mul().v128Store(offset);
    },
  );
  return f;
}

/** The module's bytes: `swiglu` and `swigluGrad`. */
export function simdSwigluModule(): Uint8Array<ArrayBuffer> {
  return moduleBytes([
    { name: 'swiglu', params: 4, body: forwardBody() },
    { name: 'swigluGrad', params: 6, body: backwardBody() },
  ]);
}
