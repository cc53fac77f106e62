// SwiGLU's gate on tfjs-wasm's heap: the fused kernels of simd/swiglu.ts (forward and gradient) as
// tfjs kernels, and the differentiable swiglu() and swigluValue() the model calls, which fall back
// to the three tfjs ops where the kernels do not serve.
import * as tf from '@tensorflow/tfjs';
import { simdSwigluModule } from '../simd/swiglu.ts';
import {
  asWasm,
  byteOffset,
  heapModule,
  registerWasmKernel,
  type WasmBackendLike,
} from './wasm_backend.ts';
import { switches } from '../switches.ts';

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
 * kernel's pass, for a kernel that has gate and up at hand (matmul/linears16.ts). False where the
 * SIMD kernels are off or absent (nothing written).
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
