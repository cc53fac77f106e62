// Differentiable building blocks with hand-written gradients, for two reasons measured on the WASM
// backend: (1) autograd's matMul backward uses transposeA/transposeB, a path about 10x slower there
// than transposing first; (2) the gather gradient needs UnsortedSegmentSum, which WASM lacks. A
// weight that is frozen (not trainable) is captured instead of passed, so its gradient (the costly
// x^T dy product) is never computed; a captured weight must outlive the backward pass (variables
// do), while any other tensor the backward needs goes through save().
//
// Shapes: N rows (tokens), I input width, O output width, D model width, V vocabulary, C chunk
// rows.
import * as tf from '@tensorflow/tfjs';
import { fastPaths } from './fast_paths.ts';
import {
  kernelTakes,
  matMul2d,
  matMulPair,
  matMulPairTransposeB,
  matMulTransposeA,
  matMulTransposeB,
  transposesAreCopies,
} from '../kernels/matmul/dispatch.ts';
import { productsBeside } from '../kernels/matmul/backward_pairs.ts';
import { customOp } from './custom_op.ts';
import { halfInputGrad, halfProduct, halfRows } from './half_ops.ts';
import { type HalfWeight, isHalf } from './half_weight.ts';

/** Inputs per addN: tfjs's WebGPU AddN binds every input in one shader, and WebGPU's default
 * allows 8 storage buffers per stage (output included), so 57 gradients' squares in one addN gave
 * an invalid pipeline and a garbage sum there (Dawn, measured). */
const ADD_N_MAX = 4;

/** The sum of same-shape tensors, addN in groups small enough for any backend. */
export function sumTensors<T extends tf.Tensor>(list: T[]): T {
  if (list.length === 0) throw new Error('sumTensors: nothing to sum');
  let level: tf.Tensor[] = list;
  return tf.tidy(() => {
    while (level.length > 1) {
      const next: tf.Tensor[] = [];
      for (let i = 0; i < level.length; i += ADD_N_MAX) {
        const group = level.slice(i, i + ADD_N_MAX);
        next.push(group.length === 1 ? group[0]! : tf.addN(group));
      }
      level = next;
    }
    return level[0]!.clone();
  }) as T;
}

/** y = x @ w, x (N, I), w (I, O), with a backward pass that uses explicit transposes. */
export function matMulLinear(x: tf.Tensor2D, w: tf.Tensor2D, trainable: boolean): tf.Tensor2D {
  if (!trainable) {
    const frozen = customOp(([input]) => ({
      value: matMul2d(input as tf.Tensor2D, w),
      gradFunc: (dy) => matMulTransposeB(dy as tf.Tensor2D, w),
    }));
    return frozen(x) as tf.Tensor2D;
  }
  const linear = customOp(([input, weight], save) => {
    save([input!, weight!]);
    return {
      value: matMul2d(input as tf.Tensor2D, weight as tf.Tensor2D),
      gradFunc: (dy, saved) => {
        const [xs, ws] = saved as [tf.Tensor2D, tf.Tensor2D];
        const g = dy as tf.Tensor2D;
        return productsBeside(g, ws, xs, g); // dx = dy w^T, dw = x^T dy
      },
    };
  });
  return linear(x, w) as tf.Tensor2D;
}

/**
 * A frozen linear layer with a LoRA adapter, y = x w + (scale x a) b, for x (N, I), w (I, O)
 * frozen, a (I, r), b (r, O) trainable: one op with a hand-written gradient instead of autograd
 * over two linear ops, a scale and an add. Forward, x w and (scale x a) b come out of one kernel
 * (matMulPair: the second product adds into the first, no (N, O) add); backward, dx = dy w^T +
 * (scale dy b^T) a^T likewise, da = x^T (scale dy b^T), db = (scale x a)^T dy. The same numbers as
 * the ops (each sum formed in the same order; tested bit for bit on wasm).
 */
export function loraLinear(
  x: tf.Tensor2D,
  w: tf.Tensor2D,
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
      value: matMulPair(input as tf.Tensor2D, w, scaled, factorB as tf.Tensor2D),
      gradFunc: (dy, saved) => {
        const [xs, xas, as, bs] = saved as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D, tf.Tensor2D];
        const g = dy as tf.Tensor2D;
        const dxa = tf.mul(matMulTransposeB(g, bs), scale) as tf.Tensor2D; // (N, r)
        return [
          matMulPairTransposeB(g, w, dxa, as),
          matMulTransposeA(xs, dxa),
          matMulTransposeA(xas, g),
        ];
      },
    };
  });
  return op(x, a, b) as tf.Tensor2D;
}

/**
 * Columns of `table` (D, V) picked by `ids` (N), as rows (N, D). The embedding is stored with
 * tokens as columns so the same matrix serves as the tied output projection h @ table.
 * The gradient scatters rows back with scatterND (which sums repeated ids).
 */
export function embedColumns(
  table: tf.Tensor2D | HalfWeight,
  ids: tf.Tensor1D,
  trainable: boolean,
): tf.Tensor2D {
  if (isHalf(table)) return halfRows(ids, table);
  if (!trainable) return tf.tidy(() => permute(tf.gather(table, ids, 1) as tf.Tensor2D, [1, 0]));
  const [depth, vocab] = table.shape;
  const lookup = customOp(([weight], save) => {
    save([ids]); // the caller's ids may be disposed before the backward pass runs
    return {
      value: tf.transpose(tf.gather(weight!, ids, 1)), // (N, D)
      gradFunc: (dy, [savedIds]) => {
        const rows = tf.scatterND(tf.reshape(savedIds!, [-1, 1]), dy as tf.Tensor2D, [
          vocab,
          depth,
        ]); // (V, D)
        return tf.transpose(rows); // (D, V)
      },
    };
  });
  return lookup(table) as tf.Tensor2D;
}

/**
 * log Σ_v exp((h @ w)[:, v] / temperature) for h (C, D), w (D, V): the log-partition of the
 * output softmax. The backward pass needs softmax(h @ w / temperature). By default the (C, V)
 * logits are recomputed there instead of being kept on the tape, so memory stays at one chunk of
 * logits however many chunks the batch has. With `keepSoftmax` (the caller's batch is one chunk,
 * so the chunk's logits are all the memory there is anyway) the forward pass keeps the softmax
 * for the backward, which then skips a vocabulary-wide product and an exp.
 */
export function logPartition(
  h: tf.Tensor2D,
  w: tf.Tensor2D | HalfWeight,
  temperature: number,
  trainable: boolean,
  keepSoftmax = false,
): tf.Tensor1D {
  const [depth, vocab] = w.shape;
  // (at temperature 1, the logits as they are: x / 1 is x, and a (C, V) division less each way)
  const product = (hs: tf.Tensor2D, ws: tf.Tensor2D | HalfWeight) =>
    isHalf(ws) ? halfProduct(hs, ws) : matMul2d(hs, ws);
  const scaledLogits = (hs: tf.Tensor2D, ws: tf.Tensor2D | HalfWeight) =>
    temperature === 1 ? product(hs, ws) : (tf.div(product(hs, ws), temperature) as tf.Tensor2D);
  // On wasm, through tf.softmax (XNNPACK's, ~1 ns a number), not tfjs-wasm's exp (scalar, ~5 ns):
  // the softmax at a row's largest logit m is exp(m - lse), so lse = m - log(max softmax), within
  // an ulp of p_max in the log (p_max >= 1 / V). A (1924, 1536) chunk: 8 ms against 24 for max,
  // subtract, exp, sum and divide.
  const viaSoftmax = fastPaths.logSumExp() === 'softmax';
  // log-sum-exp, and the softmax when kept: max-shifted so exp never overflows
  const forward = (
    hs: tf.Tensor2D,
    ws: tf.Tensor2D | HalfWeight,
  ): { value: tf.Tensor1D; softmax?: tf.Tensor2D } => {
    const logits = scaledLogits(hs, ws);
    if (viaSoftmax) {
      const softmax = tf.softmax(logits) as tf.Tensor2D;
      const value = tf.sub(tf.max(logits, -1), tf.log(tf.max(softmax, -1))) as tf.Tensor1D;
      return keepSoftmax ? { value, softmax } : { value };
    }
    if (!keepSoftmax) return { value: tf.logSumExp(logits, -1) as tf.Tensor1D };
    const peak = tf.max(logits, -1, true); // (C, 1)
    const shifted = tf.exp(tf.sub(logits, peak)); // (C, V)
    const total = tf.sum(shifted, -1, true); // (C, 1)
    return {
      value: tf.reshape(tf.add(tf.log(total), peak), [-1]) as tf.Tensor1D,
      softmax: tf.div(shifted, total) as tf.Tensor2D,
    };
  };
  // d lse / d logits = softmax = exp(logits - lse); chain through the 1/temperature scale
  const logitGrad = (dy: tf.Tensor, softmax: tf.Tensor2D) =>
    tf.mul(softmax, tf.reshape(tf.div(dy, temperature), [-1, 1])) as tf.Tensor2D;
  const recomputed = (hs: tf.Tensor2D, ws: tf.Tensor2D | HalfWeight, lse: tf.Tensor) =>
    (viaSoftmax
      ? tf.softmax(scaledLogits(hs, ws))
      : tf.exp(tf.sub(scaledLogits(hs, ws), tf.reshape(lse, [-1, 1])))) as tf.Tensor2D;
  // The two products of the backward pass, in the layout that keeps them on the fast kernel: with
  // a small head (D * V within what matMul2d sends to the kernel, e.g. the demo's and the
  // benchmark's), g @ w^T and (g^T @ h)^T, whose right operands w^T and h fit it; otherwise (a
  // large vocabulary, where w^T would copy the whole head; or no kernel) (w @ g^T)^T and h^T @ g,
  // which transpose only the chunk-sized g and h.
  const small = kernelTakes(vocab, depth);
  const inputGrad = (g: tf.Tensor2D, ws: tf.Tensor2D | HalfWeight) =>
    isHalf(ws)
      ? halfInputGrad(g, ws)
      : small || !transposesAreCopies()
        ? matMulTransposeB(g, ws)
        : tf.transpose(matMul2d(ws, tf.transpose(g)));
  const weightGrad = (g: tf.Tensor2D, hs: tf.Tensor2D) =>
    small ? tf.transpose(matMulTransposeA(g, hs)) : matMulTransposeA(hs, g);
  if (!trainable) {
    const frozen = customOp(([input], save) => {
      const { value, softmax } = forward(input as tf.Tensor2D, w);
      save(softmax ? [softmax] : [input!, value]);
      return {
        value,
        gradFunc: (dy, saved) => {
          const probabilities = softmax
            ? (saved[0]! as tf.Tensor2D)
            : recomputed(saved[0] as tf.Tensor2D, w, saved[1]!);
          return inputGrad(logitGrad(dy, probabilities), w);
        },
      };
    });
    return frozen(h) as tf.Tensor1D;
  }
  if (isHalf(w)) throw new Error('logPartition: a 16-bit weight is frozen (trainable is false)');
  const full = customOp(([input, weight], save) => {
    const { value, softmax } = forward(input as tf.Tensor2D, weight as tf.Tensor2D);
    save(softmax ? [input!, weight!, softmax] : [input!, weight!, value]);
    return {
      value,
      gradFunc: (dy, saved) => {
        const [hs, ws, kept] = saved as [tf.Tensor2D, tf.Tensor2D, tf.Tensor];
        const g = logitGrad(dy, softmax ? (kept as tf.Tensor2D) : recomputed(hs, ws, kept));
        if (!small) return [inputGrad(g, ws), weightGrad(g, hs)];
        const [dh, dwT] = productsBeside(g, ws, g, hs); // g w^T and g^T h at once
        return [dh, tf.transpose(dwT)];
      },
    };
  });
  return full(h, w) as tf.Tensor1D;
}

/**
 * tf.transpose(x, perm), or a reshape (no copy) when the axes that move all have size 1, so the
 * data's order is unchanged: in decoding (T = 1, one query per key head) every attention
 * transpose is one of these, and a transpose is a full copy on WASM.
 */
export function permute<T extends tf.Tensor>(x: T, perm: number[]): T {
  const moved = perm.filter((axis) => x.shape[axis] !== 1);
  const kept = [...moved].sort((a, b) => a - b);
  if (moved.every((axis, i) => axis === kept[i]))
    return tf.reshape(
      x,
      perm.map((axis) => x.shape[axis]!),
    ) as T;
  return tf.transpose(x, perm);
}
