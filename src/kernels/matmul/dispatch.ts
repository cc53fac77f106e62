// Matrix products on WASM: the SIMD kernels of simd/matmul.ts run on tfjs's heap, registered as
// tfjs kernels (so tensors keep their normal lifetime); elsewhere, or without WebAssembly SIMD,
// tf.matMul. Attention's batched, differentiable products build on stridedMatMul
// (matmul/attention_products.ts). Where the engine has relaxed SIMD the kernel's
// fused multiply-add build runs, and then the linear layers' 2-D products with many rows take it
// too (matMul2d): a training step is 1.3-1.4x faster than on XNNPACK (bench: train_step_no_fma_ms).
// Their products with few rows (decoding) take a second kernel of simd/matmul.ts, dot products
// against a transposed copy of the weight, kept in matmul/decode_products.ts's memory, where the
// matmul helper threads split them by columns (bench: decode_batch8_xnnpack_tok_s,
// decode_batch*_1thread).
//
// The kernels on the heap and the helper threads are in matmul/kernels.ts, their tfjs kernels in
// matmul/tfjs_kernels.ts; this file chooses, product by product, which one runs.
import * as tf from '@tensorflow/tfjs';
import { rowsOfCopy, transposedWeight } from './decode_products.ts';
import { dotProductActive, fusedMultiplyAddActive, kernelsFor } from './kernels.ts';
import { KERNEL_PAIR, KERNEL_TA, productOnCopy, stridedMatMul } from './tfjs_kernels.ts';
import { switches } from '../switches.ts';
import { asWasm } from '../tfjs/wasm_backend.ts';

/**
 * a1 @ b1 + a2 @ b2 with no gradient of its own (inside customGrad: LoRA's y = x W + (s x A) B and
 * its dx): where matMul2d takes the fused kernel for both products, one kernel whose second
 * product adds into the first's result (simd/matmul_variants.ts matmulAdd), the same bits as
 * tf.add(matMul2d(a1, b1), matMul2d(a2, b2)) without the add's pass over (m, n); else exactly that.
 */
export function matMulPair(
  a1: tf.Tensor2D,
  b1: tf.Tensor2D,
  a2: tf.Tensor2D,
  b2: tf.Tensor2D,
): tf.Tensor2D {
  const [m, k1] = a1.shape;
  const [k2, n] = [a2.shape[1], b1.shape[1]];
  const fits =
    switches.pairKernel &&
    !tf.engine().isTapeOn() &&
    fusedMultiplyAddActive() &&
    kernelsFor(asWasm(tf.backend()))!.add !== null &&
    m >= LINEAR_MIN_ROWS &&
    k1 * n <= LINEAR_MAX_B &&
    k2 * n <= LINEAR_MAX_B &&
    !(b1 instanceof tf.Variable && m <= DOT_MAX_ROWS && tf.engine().state.gradientDepth === 0);
  if (!fits) return tf.tidy(() => tf.add(matMul2d(a1, b1), matMul2d(a2, b2)));
  return tf.engine().runKernel(KERNEL_PAIR, { a1, b1, a2, b2 }) as tf.Tensor2D;
}

/**
 * Largest right operand (k * n numbers) matMul2d sends to the kernel: 2 MB, this CPU's L2. The
 * kernel streams all of B for every 4 rows of A, without XNNPACK's packing and cache blocking,
 * so a larger B (a 150k-token vocabulary projection) stays on XNNPACK.
 */
const LINEAR_MAX_B = 1 << 19;

/**
 * Whether matMul2d runs a product with a right operand of k x n (and at least LINEAR_MIN_ROWS
 * rows) on the fused kernel: callers that can choose the layout of a product pick the one it takes.
 */
export function kernelTakes(k: number, n: number): boolean {
  return k * n <= LINEAR_MAX_B && fusedMultiplyAddActive();
}

/**
 * Fewest rows of A for which matMul2d uses the kernel. With few rows each product streams the
 * weights from memory once, and XNNPACK's packed weights stream faster (measured on 256 x 768
 * weights not in cache: XNNPACK 24 vs 19 GFLOP/s at 8 rows, even at 32, the kernel 1.2-1.5x
 * ahead from 64 rows on). So decoding stays on XNNPACK and training and prefill take the kernel.
 */
export const LINEAR_MIN_ROWS = 64;

/**
 * Most rows for which a product outside a gradient computation (prefill, scoring without a
 * gradient) takes the dot-product kernel rather than the fused one. Measured on the bench model's
 * 29 products with the helper thread: 64 rows 7.1 vs 9.8 ms, 128 rows 12.0 vs 14.2, 512 rows 49.7
 * vs 52.8 (one thread: 11.4 vs 12.6, 22.8 vs 24.2, 93.8 vs 89.6). The resident copies save the
 * fused kernel's per-call copy of the weight into the helper's memory. A training step's products
 * stay on the fused kernel: its weights change every step, and their copies would be remade each
 * time.
 */
const DOT_MAX_ROWS = 128;

/**
 * Smallest weight (k * n numbers) that gets a transposed copy for the dot-product kernel: smaller
 * ones (LoRA's rank-8 factors) cost little either way and would only churn the copies.
 */
export const TRANSPOSED_MIN = 1 << 14;

/**
 * Columns `ids` of the embedding `table` (D, V) as rows (N, D), read from its transposed copy in
 * the dot store (made once, like a weight's): whole rows of the copy rather than one number from
 * each of D rows of the table (~30 ns each, a cache miss apiece). For decoding: null under a
 * gradient computation, off wasm, without the dot-product kernel, for a table that is not a
 * variable or when the copies' budget is spent; the caller then gathers from the table.
 */
export function embeddingRows(table: tf.Tensor2D, ids: tf.Tensor1D): tf.Tensor2D | null {
  if (!(table instanceof tf.Variable) || tf.engine().state.gradientDepth > 0 || !dotProductActive())
    return null;
  const [width, rows] = table.shape;
  const copy = transposedWeight(table);
  if (copy === null) return null;
  return rowsOfCopy(ids, copy, rows, width);
}

/**
 * a (m, k) @ b (k, n) with no gradient of its own, for the linear layers' forward and backward
 * products (inside customGrad, or with no gradient recorded). On wasm with relaxed SIMD: with at
 * least LINEAR_MIN_ROWS rows and b fitting in L2, the fused kernel; with fewer rows (decoding), or
 * up to DOT_MAX_ROWS outside a gradient computation (prefill), and b a model weight (a
 * tf.Variable), the dot-product kernel on b's transposed copy, which streams the weights once and
 * in order (1.5x XNNPACK at 8 rows; bench decode_batch8_tok_s). Otherwise tf.matMul (XNNPACK), so
 * without relaxed SIMD nothing changes.
 */
export function matMul2d(a: tf.Tensor2D, b: tf.Tensor2D): tf.Tensor2D {
  const [m, k] = a.shape;
  const n = b.shape[1];
  if (tf.engine().isTapeOn() || !fusedMultiplyAddActive()) return tf.matMul(a, b);
  if (b.shape[0] !== k)
    throw new Error(`matMul2d: shapes ${a.shape} and ${b.shape} do not multiply`);
  // A customGrad's forward runs with the tape paused, so a training step is told by its gradient
  // depth.
  const decoding = m <= DOT_MAX_ROWS && tf.engine().state.gradientDepth === 0;
  if (m < LINEAR_MIN_ROWS || decoding) {
    const transposed =
      b instanceof tf.Variable && k * n >= TRANSPOSED_MIN && dotProductActive()
        ? transposedWeight(b)
        : null;
    if (transposed !== null) {
      return productOnCopy(a, transposed, n, k);
    }
    if (m < LINEAR_MIN_ROWS) return tf.matMul(a, b);
  }
  if (k * n > LINEAR_MAX_B) return tf.matMul(a, b);
  return tf.tidy(
    () =>
      tf.reshape(stridedMatMul(a, b, { batch: 1, m, k, n, strideA: 0, strideB: 0 }), [
        m,
        n,
      ]) as tf.Tensor2D,
  );
}

/**
 * a^T @ b for a (k, m), b (k, n), with no gradient of its own: the linear layers' weight gradients
 * x^T @ dy. The transposed-A kernel reads a as stored instead of transposing it first, for a b
 * within L2 (as matMul2d) or any b when m < 64: LoRA's factor gradients (x A)^T dy, rank 8 by
 * N tokens, which XNNPACK (matMul2d's choice for few rows) took 4.7 ms for at 8 x 1924 x 576,
 * packing the fresh b every call, against ~1.1 ms here. Otherwise matMul2d(a^T, b).
 */
export function matMulTransposeA(a: tf.Tensor2D, b: tf.Tensor2D): tf.Tensor2D {
  const [k, m] = a.shape;
  const n = b.shape[1];
  const direct =
    switches.transposeAKernel &&
    !tf.engine().isTapeOn() &&
    fusedMultiplyAddActive() &&
    kernelsFor(asWasm(tf.backend()))!.ta !== null &&
    (m < LINEAR_MIN_ROWS || k * n <= LINEAR_MAX_B) &&
    b.shape[0] === k;
  if (!direct)
    return transposesAreCopies()
      ? tf.tidy(() => matMul2d(tf.transpose(a), b))
      : tf.matMul(a, b, true, false);
  return tf.engine().runKernel(KERNEL_TA, { a, b }) as tf.Tensor2D;
}

/**
 * Whether a transposed operand should be transposed first (a copy): on wasm and cpu, where
 * tf.matMul's transposed-operand path is the slow one (model/ops.ts). WebGPU's matmul shaders read
 * a transposed operand in place, and a copy costs a dispatch and a pass: on the software adapter
 * a (576, 192) weight's took ~70 ms, a third of a training step's kernel time.
 */
export function transposesAreCopies(): boolean {
  return tf.getBackend() !== 'webgpu';
}

/** a (m, k) @ b^T for b (n, k), with no gradient of its own: matMul2d(a, b^T) or, see above, in place. */
export function matMulTransposeB(a: tf.Tensor2D, b: tf.Tensor2D): tf.Tensor2D {
  return transposesAreCopies()
    ? tf.tidy(() => matMul2d(a, tf.transpose(b)))
    : tf.matMul(a, b, false, true);
}

/** a1 @ w1^T + a2 @ w2^T, with no gradient of its own: matMulPair on the transposes, or in place. */
export function matMulPairTransposeB(
  a1: tf.Tensor2D,
  w1: tf.Tensor2D,
  a2: tf.Tensor2D,
  w2: tf.Tensor2D,
): tf.Tensor2D {
  return transposesAreCopies()
    ? tf.tidy(() => matMulPair(a1, tf.transpose(w1), a2, tf.transpose(w2)))
    : tf.tidy(() => tf.add(matMulTransposeB(a1, w1), matMulTransposeB(a2, w2)));
}
