// The differentiable linear ops of ops.ts for a frozen 16-bit weight (half_weight.ts): the
// products through W run on the 16-bit kernels (src/kernels/matmul/weights16.ts), x W^T-as-stored
// forward and dy W backward, and everything else is as for a float32 frozen weight: the weight has
// no gradient, LoRA's factors do. Shapes: N rows, I input width, O output width, r the LoRA rank.
import * as tf from '@tensorflow/tfjs';
import { matMul2d, matMulTransposeA } from '../kernels/matmul/dispatch.ts';
import { product16, productT16, rows16 } from '../kernels/matmul/weights16.ts';
import { gpuProduct16, gpuProductT16, gpuRows16 } from '../kernels/webgpu/products16.ts';
import type { HalfWeight } from './half_weight.ts';
import { customOp } from './custom_op.ts';

/** x (N, I) @ W (I, O) with no gradient recorded: decoding, prefill, the reference pass. */
export function halfProduct(x: tf.Tensor2D, w: HalfWeight): tf.Tensor2D {
  // W is stored (O, I): x W^T-as-stored
  return w.packed ? gpuProductT16(x, w.packed) : productT16(x, w.resident!);
}

/** dy (N, O) @ W^T (O, I): the input gradient through W. */
export function halfInputGrad(dy: tf.Tensor2D, w: HalfWeight): tf.Tensor2D {
  return w.packed ? gpuProduct16(dy, w.packed) : product16(dy, w.resident!);
}

/** Rows `ids` of a 16-bit embedding (V, D) as stored, widened: (N, D). No gradient. */
export function halfRows(ids: tf.Tensor1D, w: HalfWeight): tf.Tensor2D {
  return w.packed ? gpuRows16(ids, w.packed) : rows16(ids, w.resident!);
}

/** y = x W for a frozen 16-bit W, differentiable with respect to x. */
export function halfLinear(x: tf.Tensor2D, w: HalfWeight): tf.Tensor2D {
  const op = customOp(([input]) => ({
    value: halfProduct(input as tf.Tensor2D, w),
    gradFunc: (dy) => halfInputGrad(dy as tf.Tensor2D, w),
  }));
  return op(x) as tf.Tensor2D;
}

/**
 * y = x W + (scale x a) b for a frozen 16-bit W and trainable LoRA factors a (I, r), b (r, O):
 * ops.ts loraLinear's gradients (dx = dy W^T + (scale dy b^T) a^T, da = x^T (scale dy b^T),
 * db = (scale x a)^T dy) with the two products through W on the 16-bit kernels.
 */
export function halfLoraLinear(
  x: tf.Tensor2D,
  w: HalfWeight,
  a: tf.Tensor2D,
  b: tf.Tensor2D,
  scale: number,
): tf.Tensor2D {
  const op = customOp(([input, factorA, factorB], save) => {
    const scaled = tf.mul(
      matMul2d(input as tf.Tensor2D, factorA as tf.Tensor2D),
      scale,
    ) as tf.Tensor2D; // (N, r)
    save([input!, scaled, factorA!, factorB!]);
    return {
      value: tf.tidy(() =>
        tf.add(halfProduct(input as tf.Tensor2D, w), matMul2d(scaled, factorB as tf.Tensor2D)),
      ),
      gradFunc: (dy, saved) => {
        const [xs, xas, as, bs] = saved as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D, tf.Tensor2D];
        const g = dy as tf.Tensor2D;
        const dxa = tf.mul(matMul2d(g, tf.transpose(bs)), scale) as tf.Tensor2D; // (N, r)
        return [
          tf.add(halfInputGrad(g, w), matMul2d(dxa, tf.transpose(as))),
          matMulTransposeA(xs, dxa),
          matMulTransposeA(xas, g),
        ];
      },
    };
  });
  return op(x, a, b) as tf.Tensor2D;
}
