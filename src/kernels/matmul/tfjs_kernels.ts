// Our matrix products as tfjs-wasm kernels, each running a SIMD kernel of matmul/kernels.ts in
// place on tfjs's heap (split over the helper threads where that pays): the strided batched
// product, the LoRA pair a1 @ b1 + a2 @ b2, A^T @ B, and the dot product on a weight's transposed
// copy. Registered here so tensors keep their normal lifetime; matmul/dispatch.ts decides which
// product takes which kernel.
import * as tf from '@tensorflow/tfjs';
import { ALL_K } from '../simd/matmul_variants.ts';
import type { MatmulTKernel } from '../simd/dot.ts';
import { dotStore, type DotCall } from './decode_products.ts';
import { kernelsFor, matmulThreads } from './kernels.ts';
import { switches } from '../switches.ts';
import { byteOffset, registerWasmKernel, wasmMemory as memoryOf } from '../tfjs/wasm_backend.ts';

const KERNEL = 'AgenticRlSimdStridedMatMul';

/**
 * Attributes of the strided product: C (batch, m, n) = A[i] (m, k) @ B[i] (k, n), strides in
 * floats; `causal` (optional): the causal kernel's mode (1, 2; 0 or absent: none), period, offset.
 */
export interface StridedAttrs {
  batch: number;
  m: number;
  k: number;
  n: number;
  strideA: number;
  strideB: number;
  causal?: number;
  period?: number;
  offset?: number;
}

registerWasmKernel(KERNEL, ({ inputs, attrs }, wasm) => {
  const threads = matmulThreads();
  const { a, b } = inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
  const {
    batch,
    m,
    k,
    n,
    strideA,
    strideB,
    causal: mode = 0,
    period = 0,
    offset: keyOffset = 0,
  } = attrs as unknown as StridedAttrs;
  const size = (t: tf.TensorInfo) => t.shape.reduce((p, q) => p * q, 1);
  // The last matrix must end inside its operand: the kernel reads raw heap memory.
  if ((batch - 1) * strideA + m * k > size(a) || (batch - 1) * strideB + k * n > size(b)) {
    throw new Error(
      `stridedMatMul: (${batch} x ${m} x ${k}) @ (${k} x ${n}) with strides ${strideA}, ${strideB} reads past operands of ${size(a)} and ${size(b)} numbers`,
    );
  }
  const out = wasm.makeOutput([batch, m, n], 'float32');
  // Offsets are read after makeOutput: the allocation may grow (and move views of) the heap.
  const offset = (t: tf.TensorInfo) => byteOffset(wasm, t);
  const { plain, fused, causal } = kernelsFor(wasm)!;
  const kernel = (switches.fusedMultiplyAdd && fused) || plain;
  const call = {
    a: offset(a),
    b: offset(b),
    c: offset(out),
    batch,
    m,
    k,
    n,
    strideA: strideA * 4,
    strideB: strideB * 4,
  };
  // (not for one column: the plain kernel's matrix-vector path sums in another order)
  if (mode !== 0 && n > 1 && causal && kernel === fused && switches.causalSkipping) {
    const limits: [number, number, number] = [mode, period, keyOffset];
    if (!threads?.run(causal, true, memoryOf(wasm)!, call, limits))
      causal(call.a, call.b, call.c, batch, m, k, n, call.strideA, call.strideB, ...limits);
    return out;
  }
  if (!threads?.run(kernel, kernel === fused, memoryOf(wasm)!, call))
    kernel(call.a, call.b, call.c, batch, m, k, n, call.strideA, call.strideB);
  return out;
});

export const KERNEL_PAIR = 'AgenticRlSimdMatMulPair';

registerWasmKernel(KERNEL_PAIR, ({ inputs }, wasm) => {
  const threads = matmulThreads();
  const { a1, b1, a2, b2 } = inputs as Record<'a1' | 'b1' | 'a2' | 'b2', tf.TensorInfo>;
  const [m, k1] = a1.shape as [number, number];
  const [k2, n] = [a2.shape[1]!, b1.shape[1]!];
  if (b1.shape[0] !== k1 || a2.shape[0] !== m || b2.shape[0] !== k2 || b2.shape[1] !== n)
    throw new Error(
      `matMulPair: shapes ${a1.shape} @ ${b1.shape} + ${a2.shape} @ ${b2.shape} do not fit`,
    );
  const out = wasm.makeOutput([m, n], 'float32');
  const at = (t: tf.TensorInfo) => byteOffset(wasm, t);
  const { fused, add } = kernelsFor(wasm)!;
  const call = { a: at(a1), b: at(b1), c: at(out), batch: 1, m, k: k1, n, strideA: 0, strideB: 0 };
  if (!threads?.run(fused!, true, memoryOf(wasm)!, call))
    fused!(call.a, call.b, call.c, 1, m, k1, n, 0, 0);
  add!(at(a2), at(b2), at(out), 1, m, k2, n, 0, 0); // C += a2 @ b2, on this thread (k2 is a LoRA rank)
  return out;
});

export const KERNEL_TA = 'AgenticRlSimdMatMulTA';

registerWasmKernel(KERNEL_TA, ({ inputs }, wasm) => {
  const threads = matmulThreads();
  const { a, b } = inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
  const [k, m] = a.shape as [number, number];
  const n = b.shape[1]!;
  if (a.shape.length !== 2 || b.shape.length !== 2 || b.shape[0] !== k)
    throw new Error(
      `matMulTransposeA: shapes ${a.shape} and ${b.shape} do not multiply as a^T @ b`,
    );
  const out = wasm.makeOutput([m, n], 'float32');
  const scratch = wasm.makeOutput([k, 4], 'float32'); // the kernel's packed block of A
  const ta = kernelsFor(wasm)!.ta!;
  const call = {
    a: byteOffset(wasm, a),
    b: byteOffset(wasm, b),
    c: byteOffset(wasm, out),
    m,
    k,
    n,
    scratch: byteOffset(wasm, scratch),
  };
  if (!threads?.runTA(ta, memoryOf(wasm)!, call))
    ta(call.a, call.b, call.c, m, k, n, m, call.scratch, ALL_K);
  wasm.disposeData(scratch.dataId);
  return out;
});

const KERNEL_T = 'AgenticRlSimdMatMulT';

/**
 * Attributes of the dot product: the weight's copy in the dot store (byte offset), its rows and
 * columns.
 */
interface DotAttrs {
  w: number;
  n: number;
  k: number;
}

registerWasmKernel(KERNEL_T, ({ inputs, attrs }, wasm) => {
  const threads = matmulThreads();
  const { a } = inputs as { a: tf.TensorInfo };
  const { w, n, k } = attrs as unknown as DotAttrs;
  const [m, ka] = a.shape as [number, number];
  if (a.shape.length !== 2 || ka !== k)
    throw new Error(`matMulTransposed: shape ${a.shape} does not multiply a weight of ${k} x ${n}`);
  const out = wasm.makeOutput([m, n], 'float32');
  const heap = () => new Float32Array(memoryOf(wasm)!.buffer);
  const pool = switches.dotProductThreads ? threads : null;
  const split = pool
    ? (kernel: MatmulTKernel, call: DotCall) => pool.splitDot(kernel, call)
    : undefined;
  dotStore()!.product(
    heap,
    byteOffset(wasm, a) / 4,
    m,
    k,
    w,
    n,
    heap,
    byteOffset(wasm, out) / 4,
    split,
  );
  return out;
});

/**
 * a (m, k) @ W for the (k, n) weight whose transposed copy sits at byte `w` of the dot store: the
 * dot-product kernel.
 */
export function productOnCopy(a: tf.Tensor2D, w: number, n: number, k: number): tf.Tensor2D {
  const attrs: DotAttrs = { w, n, k };
  return tf.engine().runKernel(KERNEL_T, { a }, attrs as unknown as tf.NamedAttrMap) as tf.Tensor2D;
}

/**
 * C[i] = A[i] @ B[i] for i < batch, where matrix i of A starts `strideA` numbers after matrix i - 1
 * (likewise B): reads the first rows of every (b, h) slice of a preallocated KV cache without a
 * copy. Wasm kernel only (check simdMatMulActive()); no gradient.
 */
export function stridedMatMul(a: tf.Tensor, b: tf.Tensor, attrs: StridedAttrs): tf.Tensor3D {
  return tf
    .engine()
    .runKernel(KERNEL, { a, b }, attrs as unknown as tf.NamedAttrMap) as tf.Tensor3D;
}
