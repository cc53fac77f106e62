// LoRA layers without a gradient (sampling, prefill) as one product on a merged weight: the dot
// store (kernels/matmul/decode_products.ts) keeps (W + scale A B)^T for each adapted projection,
// and the dot-product kernel (kernels/matmul/tfjs_kernels.ts) runs x against it instead of the
// adapter's five ops.
import type * as tf from '@tensorflow/tfjs';
import { productOnCopy } from '../kernels/matmul/tfjs_kernels.ts';
import { TRANSPOSED_MIN } from '../kernels/matmul/dispatch.ts';
import { mergedTransposedWeight } from '../kernels/matmul/decode_products.ts';
import { fastPaths } from './fast_paths.ts';

/**
 * Largest product (m * (k + n) numbers of x and the result, the dot store's scratch: 16 MB) that
 * mergedLoraProduct takes, past the 128 rows where matMul2d leaves the dot kernel: a rollout's
 * prefill of 6 x 128 rows on the demo model's shapes took 280 ms on the fused kernel with the
 * adapter's ops, 247 ms merged.
 */
const MERGED_MAX_NUMBERS = 1 << 22;

/**
 * x (m, k) @ (w + scale a b) for a LoRA layer (w (k, n), a (k, r), b (r, n)) as one dot product on
 * the merged weight's transposed copy (kernels/matmul/decode_products.ts mergedTransposedWeight),
 * outside a gradient computation (sampling, prefill; up to MERGED_MAX_NUMBERS). Null elsewhere, or
 * when the copies' budget is spent: the caller then runs the adapter's ops. The same numbers as x w
 * + ((x a) scale) b up to float32 rounding (~1e-7 relative).
 */
export function mergedLoraProduct(
  x: tf.Tensor2D,
  w: tf.Variable,
  a: tf.Variable,
  b: tf.Variable,
  scale: number,
): tf.Tensor2D | null {
  const [m, k] = x.shape;
  const n = w.shape[1]!;
  const fits = () =>
    k * n >= TRANSPOSED_MIN && m * (k + n) <= MERGED_MAX_NUMBERS && w.shape[0] === k;
  if (fastPaths.mergedAdapters(fits) !== 'merged') return null;
  const merged = mergedTransposedWeight(w, a, b, scale);
  if (merged === null) return null;
  return productOnCopy(x, merged, n, k);
}
