// A decoder block without a gradient as the WASM fast path runs it, where the seam
// (fast_paths.ts block()) names it: each residual add and the norm after it are one kernel
// (kernels/simd/rmsnorm.ts; with a 16-bit product and few rows, the product too:
// kernels/matmul/linears16.ts), so the block ends with the next block's input norm already
// computed. The same ops and bits as the reference block (decoder.ts), the norms moved across the
// block boundary (test/model/fast_paths.test.ts).
import type * as tf from '@tensorflow/tfjs';
import { applyGatedLinears, applyLinearAddNorm, type ForwardMode } from './linear.ts';
import type { DecoderLayer } from './params.ts';

/**
 * One block: from x (N, D) and its input norm `normed`, [x', the norm of x' by `nextNorm`] (the
 * next block's input norm, or the final norm after the last). `attend` is the decoder's attention
 * of normed rows (its context rows before o_proj).
 */
export function fusedBlock(
  layer: DecoderLayer,
  x: tf.Tensor2D,
  normed: tf.Tensor2D,
  nextNorm: tf.Tensor,
  eps: number,
  mode: ForwardMode,
  attend: (normed: tf.Tensor2D) => tf.Tensor2D,
): [tf.Tensor2D, tf.Tensor2D] {
  // each block's last product, its residual add and the next norm: one kernel where the weights
  // are 16-bit and the rows few (decoding), else the product and then the add-norm
  const { o_proj, gate_proj, up_proj, down_proj } = layer.projections;
  const [h, hNormed] = applyLinearAddNorm(
    attend(normed),
    o_proj,
    x,
    { weight: layer.postAttentionNorm, eps },
    mode,
  );
  return applyLinearAddNorm(
    applyGatedLinears(hNormed, gate_proj, up_proj, mode),
    down_proj,
    h,
    { weight: nextNorm, eps },
    mode,
  );
}
