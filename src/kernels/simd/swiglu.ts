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
// exp from simd_exp.ts (a few float32 ulps; -g clamped to [-87, 88], where sigmoid is 0 or 1 to
// float32 anyway), so values match the tfjs ops to ~1e-6 relative, not bit for bit (tested, and the
// gradient against finite differences). Forward passes without a gradient (decoding, prefill, the
// reference model's scoring) use the forward kernel too (swigluValue), ahead of the three tfjs ops
// at every size measured.
import * as tf from '@tensorflow/tfjs';
import { Body, I32, moduleBytes, V128 } from '../wasm/assembler.ts';
import { splatF32, VectorExp } from './exp.ts';
import {
  asWasm,
  byteOffset,
  heapModule,
  registerWasmKernel,
  type WasmBackendLike,
} from '../tfjs/wasm_backend.ts';
import { switches } from '../switches.ts';

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

interface Kernels {
  swiglu: (...args: number[]) => void;
  swigluGrad: (...args: number[]) => void;
}

function kernelsFor(backend: WasmBackendLike): Kernels | null {
  return heapModule(backend, 'swiglu', simdSwigluModule) as unknown as Kernels | null;
}

const FORWARD = 'AgenticRlSwiGLU';
const BACKWARD = 'AgenticRlSwiGLUGrad';
const sizeOf = (t: tf.TensorInfo) => t.shape.reduce((a, b) => a * b, 1);

function checkShapes(name: string, tensors: tf.TensorInfo[]): number {
  const size = sizeOf(tensors[0]!);
  if (
    size % 4 !== 0 ||
    tensors.some((t) => t.dtype !== 'float32' || t.shape.join() !== tensors[0]!.shape.join())
  ) {
    throw new Error(
      `${name}: operands of shapes ${tensors.map((t) => `[${t.shape}]`).join(', ')} (float32, equal, a multiple of 4 numbers)`,
    );
  }
  return size;
}

registerWasmKernel(FORWARD, ({ inputs }, wasm) => {
  const { gate, up } = inputs as Record<'gate' | 'up', tf.TensorInfo>;
  const size = checkShapes('swiglu', [gate, up]);
  const out = wasm.makeOutput(gate.shape, 'float32');
  kernelsFor(wasm)!.swiglu(
    byteOffset(wasm, gate),
    byteOffset(wasm, up),
    byteOffset(wasm, out),
    size,
  );
  return out;
});

registerWasmKernel(BACKWARD, ({ inputs }, wasm) => {
  const { gate, up, dy } = inputs as Record<'gate' | 'up' | 'dy', tf.TensorInfo>;
  const size = checkShapes('swiglu gradient', [gate, up, dy]);
  const [dGate, dUp] = [
    wasm.makeOutput(gate.shape, 'float32'),
    wasm.makeOutput(gate.shape, 'float32'),
  ];
  const at = (t: tf.TensorInfo) => byteOffset(wasm, t); // after both allocations: one may grow the heap
  kernelsFor(wasm)!.swigluGrad(at(gate), at(up), at(dy), at(dGate), at(dUp), size);
  return [dGate, dUp];
});

/**
 * silu(gate) * up into `out`, `size` numbers at byte offsets of `backend`'s heap: the forward
 * kernel's pass, for a kernel that has gate and up at hand (linears16.ts). False where the SIMD
 * kernels are off or absent (nothing written).
 */
export function swigluInto(
  backend: WasmBackendLike,
  gate: number,
  up: number,
  out: number,
  size: number,
): boolean {
  const kernels = switches.simdSwiglu && size % 4 === 0 ? kernelsFor(backend) : null;
  if (!kernels) return false;
  kernels.swiglu(gate, up, out, size);
  return true;
}

/**
 * Whether swiglu() would run the fused kernels for operands of `size` numbers on the current
 * backend.
 */
export function simdSwigluActive(size: number): boolean {
  return (
    switches.simdSwiglu &&
    size % 4 === 0 &&
    tf.getBackend() === 'wasm' &&
    kernelsFor(asWasm(tf.backend())) !== null
  );
}

const fused = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  const [gate, up, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc];
  save([gate, up]);
  return {
    value: tf.engine().runKernel(FORWARD, { gate, up }) as tf.Tensor,
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [g, u] = saved as [tf.Tensor, tf.Tensor];
      return tf.engine().runKernel(BACKWARD, { gate: g, up: u, dy }) as unknown as tf.Tensor[];
    },
  };
}) as (gate: tf.Tensor, up: tf.Tensor) => tf.Tensor;

/** silu(gate) * up as the three tfjs ops. */
const swigluOps = (gate: tf.Tensor, up: tf.Tensor): tf.Tensor =>
  tf.mul(tf.mul(gate, tf.sigmoid(gate)), up);

/** Whether the fused kernels take these operands (wasm, equal shapes, a multiple of 4 numbers). */
const kernelTakes = (gate: tf.Tensor, up: tf.Tensor): boolean =>
  simdSwigluActive(gate.size) && gate.shape.join() === up.shape.join();

/**
 * silu(gate) * up without a gradient (decoding, prefill, scoring without one): the forward kernel
 * where simdSwigluActive, else the tfjs ops. The kernel is ahead at every size now that it keeps 4
 * exps in flight (measured at 768 wide, µs, kernel against the three tfjs ops: 8 rows 9.5 / 16.1,
 * 32 rows 28 / 40, 128 rows 98 / 154, 512 rows 400 / 787); it once lost past ~16k numbers.
 */
export function swigluValue(gate: tf.Tensor, up: tf.Tensor): tf.Tensor {
  if (!kernelTakes(gate, up)) return swigluOps(gate, up);
  return tf.engine().runKernel(FORWARD, { gate, up }) as tf.Tensor;
}

/** silu(gate) * up, differentiable: the fused kernels where simdSwigluActive, else the tfjs ops. */
export function swiglu(gate: tf.Tensor, up: tf.Tensor): tf.Tensor {
  if (!kernelTakes(gate, up)) return swigluOps(gate, up);
  return fused(gate, up);
}
