// RMSNorm on tfjs-wasm's heap: the fused kernels of simd/rmsnorm.ts (forward, add-and-norm,
// gradient) as tfjs kernels, and the functions the model calls (simdRmsNorm differentiable,
// simdRmsNormValue and simdAddRmsNormValue without a gradient).
import * as tf from '@tensorflow/tfjs';
import { f32Bits } from '../wasm/assembler.ts';
import { simdRmsNormModule } from '../simd/rmsnorm.ts';
import {
  asWasm,
  byteOffset,
  heapModule,
  registerWasmKernel,
  type WasmBackendLike,
} from './wasm_backend.ts';
import { switches } from '../switches.ts';

interface Kernels {
  forward: (...args: number[]) => void;
  backward: (...args: number[]) => void;
  addForward: (...args: number[]) => void;
}

function kernelsFor(backend: WasmBackendLike): Kernels | null {
  return heapModule(backend, 'rmsnorm', simdRmsNormModule) as unknown as Kernels | null;
}

const FORWARD = 'AgenticRlRmsNorm';
const BACKWARD = 'AgenticRlRmsNormGrad';
const ADD_FORWARD = 'AgenticRlAddRmsNorm';

function rowsOf(name: string, x: tf.TensorInfo, w: tf.TensorInfo): [number, number] {
  const [rows, D] = x.shape as [number, number];
  if (
    x.shape.length !== 2 ||
    w.shape.join() !== String(D) ||
    D % 4 !== 0 ||
    x.dtype !== 'float32' ||
    w.dtype !== 'float32'
  ) {
    throw new Error(
      `${name}: x of shape [${x.shape}] and weight of shape [${w.shape}] (float32, (rows, D) and (D), D a multiple of 4)`,
    );
  }
  return [rows, D];
}

registerWasmKernel(FORWARD, ({ inputs, attrs }, wasm) => {
  const { x, w } = inputs as Record<'x' | 'w', tf.TensorInfo>;
  const [rows, D] = rowsOf('rmsNorm', x, w);
  const [y, r] = [wasm.makeOutput([rows, D], 'float32'), wasm.makeOutput([rows], 'float32')];
  const at = (t: tf.TensorInfo) => byteOffset(wasm, t); // after both allocations: one may grow the heap
  kernelsFor(wasm)!.forward(
    at(x),
    at(w),
    at(y),
    at(r),
    rows,
    D,
    f32Bits((attrs as { eps: number }).eps),
  );
  return [y, r];
});

registerWasmKernel(ADD_FORWARD, ({ inputs, attrs }, wasm) => {
  const { x, delta, w } = inputs as Record<'x' | 'delta' | 'w', tf.TensorInfo>;
  const [rows, D] = rowsOf('addRmsNorm', x, w);
  if (delta.shape.join() !== x.shape.join() || delta.dtype !== 'float32')
    throw new Error(`addRmsNorm: delta [${delta.shape}] for x [${x.shape}]`);
  const [sum, y, r] = [
    wasm.makeOutput([rows, D], 'float32'),
    wasm.makeOutput([rows, D], 'float32'),
    wasm.makeOutput([rows], 'float32'),
  ];
  const at = (t: tf.TensorInfo) => byteOffset(wasm, t); // after the allocations: one may grow the heap
  kernelsFor(wasm)!.addForward(
    at(x),
    at(delta),
    at(w),
    at(y),
    at(r),
    rows,
    D,
    f32Bits((attrs as { eps: number }).eps),
    at(sum),
  );
  wasm.disposeData(r.dataId);
  return [sum, y];
});

registerWasmKernel(BACKWARD, ({ inputs }, wasm) => {
  const { x, w, r, dy } = inputs as Record<'x' | 'w' | 'r' | 'dy', tf.TensorInfo>;
  const [rows, D] = rowsOf('rmsNorm gradient', x, w);
  if (dy.shape.join() !== x.shape.join() || r.shape.join() !== String(rows))
    throw new Error(`rmsNorm gradient: dy [${dy.shape}] and r [${r.shape}] for x [${x.shape}]`);
  const [dx, dw] = [wasm.makeOutput([rows, D], 'float32'), wasm.makeOutput([D], 'float32')];
  const at = (t: tf.TensorInfo) => byteOffset(wasm, t);
  kernelsFor(wasm)!.backward(at(x), at(w), at(r), at(dy), at(dx), at(dw), rows, D);
  return [dx, dw];
});

/**
 * sum = x + delta and y = RMSNorm(sum) * w for `rows` rows of D at byte offsets of `backend`'s
 * heap (r: rows numbers of scratch): the add-and-norm kernel's pass, for a kernel that has delta at
 * hand (matmul/linears16.ts). Only where simdRmsNormActive(D).
 */
export function addRmsNormInto(
  backend: WasmBackendLike,
  at: { x: number; delta: number; w: number; sum: number; y: number; r: number },
  rows: number,
  D: number,
  eps: number,
): void {
  kernelsFor(backend)!.addForward(at.x, at.delta, at.w, at.y, at.r, rows, D, f32Bits(eps), at.sum);
}

/** Whether simdRmsNorm runs for rows of width D on the current backend. */
export function simdRmsNormActive(D: number): boolean {
  return (
    switches.simdRmsNorm &&
    D % 4 === 0 &&
    tf.getBackend() === 'wasm' &&
    kernelsFor(asWasm(tf.backend())) !== null
  );
}

type NormOp = (x: tf.Tensor, w: tf.Tensor) => tf.Tensor;
const ops = new Map<number, NormOp>(); // by eps: made once, not per norm per step

/**
 * RMSNorm of x (rows, D) with weight (D), differentiable, on the fused kernels (check
 * simdRmsNormActive).
 */
export function simdRmsNorm(x: tf.Tensor2D, weight: tf.Tensor, eps: number): tf.Tensor2D {
  let op = ops.get(eps);
  if (!op) {
    op = normOp(eps);
    ops.set(eps, op);
  }
  return op(x, weight) as tf.Tensor2D;
}

/**
 * RMSNorm of x (rows, D) without a gradient (decoding, prefill): the forward kernel alone (check
 * simdRmsNormActive). At decoding's sizes the six tfjs ops are mostly dispatch: 1 x 256 took 21.9
 * µs as ops, 5.6 through simdRmsNorm, 8 x 256 32.3 against 7.5 (nine norms a step of the bench
 * model).
 */
export function simdRmsNormValue(x: tf.Tensor2D, weight: tf.Tensor, eps: number): tf.Tensor2D {
  const [y, r] = tf
    .engine()
    .runKernel(FORWARD, { x, w: weight }, { eps } as unknown as tf.NamedAttrMap) as unknown as [
    tf.Tensor2D,
    tf.Tensor,
  ];
  r.dispose();
  return y;
}

/**
 * x + delta and the RMSNorm of that sum, both (rows, D), without a gradient: a decoder layer's
 * residual add and the next norm in one pass, the same bits as tf.add then simdRmsNormValue
 * (check simdRmsNormActive). Saves the add's dispatch, eight a decoding step of the bench model.
 */
export function simdAddRmsNormValue(
  x: tf.Tensor2D,
  delta: tf.Tensor2D,
  weight: tf.Tensor,
  eps: number,
): [tf.Tensor2D, tf.Tensor2D] {
  return tf.engine().runKernel(ADD_FORWARD, { x, delta, w: weight }, {
    eps,
  } as unknown as tf.NamedAttrMap) as unknown as [tf.Tensor2D, tf.Tensor2D];
}

function normOp(eps: number): NormOp {
  return tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input, w, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    const [y, r] = tf
      .engine()
      .runKernel(FORWARD, { x: input, w }, { eps } as unknown as tf.NamedAttrMap) as unknown as [
      tf.Tensor,
      tf.Tensor,
    ];
    save([input, w, r]);
    return {
      value: y,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sx, sw, sr] = saved as [tf.Tensor, tf.Tensor, tf.Tensor];
        return tf
          .engine()
          .runKernel(BACKWARD, { x: sx, w: sw, r: sr, dy }) as unknown as tf.Tensor[];
      },
    };
  }) as NormOp;
}
