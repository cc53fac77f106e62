// Two independent products of a backward pass computed at once, one on each thread: the linear
// layers' dx = dy W^T beside dW = x^T dy, and the output head's dh = g W^T beside g^T h. Why:
// splitting each product over the helper threads (matmul_threads.ts run/runTA) costs copies of
// its B, half its A and half its C through the pool, and the hand-off, for every product:
// instrumented on the bench's training step, ~25 ms of ~170 ms of split products. The two products
// of a linear layer's backward pass do the same work (N x I x O multiply-adds each), so the caller
// computes dx in place while a helper computes dW from copies of x and dy, and only dW comes back.
// Each product is the same kernel over the same k order as on one thread, so the bits are those
// of matMul2d and matMulTransposeA (tested).
import * as tf from '@tensorflow/tfjs';
import { fusedKernels, kernelTakes, LINEAR_MIN_ROWS, matMul2d, matMulTransposeA } from './batch_matmul.ts';
import { MIN_THREADED_MACS } from './matmul_threads.ts';
import { byteOffset, registerWasmKernel, wasmMemory } from './wasm_backend.ts';

const KERNEL = 'AgenticRlSimdMatMulBeside';

let enabled = true;

/** Turns pairing off (true: back on), so a benchmark or test can compare it with splitting each product. */
export function usePairedProducts(on: boolean): void {
  enabled = on;
}

let paired = 0;

/** Products run as pairs in this process (tests: that the pair path is the one taken). */
export function pairedProductCount(): number {
  return paired;
}

registerWasmKernel(KERNEL, ({ inputs }, wasm) => {
  const { a1, b1, a2, b2 } = inputs as Record<'a1' | 'b1' | 'a2' | 'b2', tf.TensorInfo>;
  const [m1, k1] = a1.shape as [number, number];
  const n1 = b1.shape[1]!;
  const [k2, m2] = a2.shape as [number, number];
  const n2 = b2.shape[1]!;
  if (b1.shape[0] !== k1 || b2.shape[0] !== k2) throw new Error(`productsBeside: shapes ${a1.shape} @ ${b1.shape} and ${a2.shape}^T @ ${b2.shape} do not multiply`);
  const c1 = wasm.makeOutput([m1, n1], 'float32');
  const c2 = wasm.makeOutput([m2, n2], 'float32');
  const scratch = wasm.makeOutput([k2, 4], 'float32'); // matmulTA's packed block of A, should the caller run it
  const at = (t: tf.TensorInfo) => byteOffset(wasm, t); // after the allocations: they may move the heap
  const { kernels, threads } = fusedKernels(wasm)!;
  const fused = kernels.fused!;
  const ta = kernels.ta!;
  const own = () => fused(at(a1), at(b1), at(c1), 1, m1, k1, n1, 0, 0);
  const call = { a: at(a2), b: at(b2), c: at(c2), m: m2, k: k2, n: n2, scratch: at(scratch) };
  if (!threads?.runBeside(own, ta, wasmMemory(wasm)!, call)) {
    own();
    ta(call.a, call.b, call.c, m2, k2, n2, m2, call.scratch);
  } else paired++;
  wasm.disposeData(scratch.dataId);
  return [c1, c2];
});

/**
 * [a1 @ b1, a2^T @ b2] for a1 (m1, k1), b1 (k1, n1), a2 (k2, m2), b2 (k2, n2), with no gradient of
 * their own (inside a customGrad's backward pass): with helper threads and both products on the
 * fused kernels (as matMul2d and matMulTransposeA would run them) and of similar size, one
 * product on each thread; otherwise matMul2d and matMulTransposeA, each split over the threads.
 */
export function productsBeside(a1: tf.Tensor2D, b1: tf.Tensor2D, a2: tf.Tensor2D, b2: tf.Tensor2D): [tf.Tensor2D, tf.Tensor2D] {
  const [m1, k1] = a1.shape;
  const n1 = b1.shape[1];
  const [k2, m2] = a2.shape;
  const n2 = b2.shape[1];
  const [work1, work2] = [m1 * k1 * n1, m2 * k2 * n2];
  const fits = enabled && !tf.engine().isTapeOn() && tf.getBackend() === 'wasm' && b1.shape[0] === k1 && b2.shape[0] === k2
    && m1 >= LINEAR_MIN_ROWS && m2 >= LINEAR_MIN_ROWS && kernelTakes(k1, n1) && kernelTakes(k2, n2)
    && Math.min(work1, work2) >= MIN_THREADED_MACS / 2 && Math.max(work1, work2) <= 2 * Math.min(work1, work2);
  const context = fits ? fusedKernels(tf.backend() as never) : null;
  if (!context?.threads || !context.kernels.ta) return [matMul2d(a1, b1), matMulTransposeA(a2, b2)];
  return tf.engine().runKernel(KERNEL, { a1, b1, a2, b2 }) as [tf.Tensor2D, tf.Tensor2D];
}
