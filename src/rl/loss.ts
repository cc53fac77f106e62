// The GRPO loss (DeepSeekMath eqs. 3-4, as the reference design computes it), written as a tfjs
// function of tensors so it can be differentiated through the policy's log-prob face.
//
// Shapes: B trajectories, T packed positions. Per token t of trajectory b:
//   ratio        = exp(logprobs - oldLogprobs)
//   ratioClipped = clip(ratio, 1 - clipEps, 1 + clipEpsHigh)
//   pgLoss       = -min(ratio * A_b, ratioClipped * A_b)
//   kl (k3)      = exp(ref - new) - (ref - new) - 1     (joschu.net/blog/kl-approx.html)
//   perToken     = pgLoss + klCoef * kl
// then an aggregation over action tokens (actionMask = 1):
//   'seed'    mean over each trajectory's action tokens, then mean over trajectories that have
//             any (the reference design; trajectories with none neither count nor contribute);
//   'token'   sum over all action tokens / number of action tokens (DAPO);
//   'dr_grpo' sum over all action tokens / (B * maxTokens) (Dr. GRPO: a constant normalizer, so a
//             trajectory's weight does not depend on its length; pass maxTokens = the most tokens
//             a trajectory can generate, maxTurns * maxNewTokens).
//
// Only differentiable arithmetic sits on the gradient path: the mask is multiplied in (never
// `where`), and min/clip use tf.minimum/tf.clipByValue, whose gradients exist on every backend.
import * as tf from '@tensorflow/tfjs';
import { AGGREGATIONS, type Aggregation } from './types.ts';

export { AGGREGATIONS, type Aggregation };

/**
 * Tensors of one (micro-)batch. All values must be finite, masked ones included (they are
 * multiplied by 0).
 */
export interface GrpoInputs {
  /** (B, T) log-probs under the current weights; differentiate the loss with respect to these. */
  logprobs: tf.Tensor2D;
  /** (B, T) rollout-time log-probs, or null for the current log-probs detached (ratio = 1). */
  oldLogprobs: tf.Tensor2D | null;
  /**
   * (B) 1 where a row's oldLogprobs are given, 0 where that row has none and takes the current
   * log-probs detached (ratio 1), each row on its own; absent or null: every row is given.
   */
  oldGiven?: tf.Tensor1D | null;
  /** (B, T) reference-model log-probs, or null for no KL term. */
  refLogprobs: tf.Tensor2D | null;
  /** (B, T) 1 on generated tokens, 0 elsewhere. */
  actionMask: tf.Tensor2D;
  /** (B) one advantage per trajectory. */
  advantages: tf.Tensor1D;
}

/** Hyper-parameters of the loss. */
export interface GrpoLossOptions {
  clipEps: number;
  /** Upper clip (DAPO's clip-higher); defaults to clipEps. */
  clipEpsHigh?: number;
  /** β, the weight of the k3 KL term. */
  klCoef: number;
  aggregation: Aggregation;
  /** 'dr_grpo' only: the constant per-trajectory token budget. */
  maxTokens?: number;
  /**
   * The final divisor, for micro-batches: pass `lossNormalizer(...)` of the WHOLE batch so that the
   * micro-batch losses sum to the full-batch loss. Defaults to this batch's own normalizer.
   */
  normalizer?: number;
}

/**
 * The loss and its diagnostics, all scalars. Inside a gradient closure return `loss` and tf.keep()
 * the rest.
 */
export interface GrpoLossTerms {
  loss: tf.Scalar;
  /** Mean k3 KL over action tokens (0 without a reference). */
  kl: tf.Scalar;
  /** Fraction of action tokens where the clipped branch is active (so their gradient is 0). */
  clipFraction: tf.Scalar;
  /** Mean ratio over action tokens. */
  ratioMean: tf.Scalar;
  /** Number of action tokens in this batch. */
  actionTokens: tf.Scalar;
}

/** The divisor an aggregation uses, from each trajectory's action-token count (plain numbers). */
export function lossNormalizer(
  actionTokenCounts: readonly number[],
  aggregation: Aggregation,
  maxTokens?: number,
): number {
  switch (aggregation) {
    case 'seed':
      return Math.max(actionTokenCounts.filter((n) => n > 0).length, 1);
    case 'token':
      return Math.max(
        actionTokenCounts.reduce((sum, n) => sum + n, 0),
        1,
      );
    case 'dr_grpo':
      return actionTokenCounts.length * requireMaxTokens(maxTokens);
  }
}

function requireMaxTokens(maxTokens: number | undefined): number {
  if (maxTokens === undefined || !Number.isFinite(maxTokens) || maxTokens <= 0) {
    throw new Error(
      `aggregation 'dr_grpo' needs maxTokens > 0, got ${maxTokens}. Fix: pass maxTokens = maxTurns * maxNewTokens.`,
    );
  }
  return maxTokens;
}

/** tf.stopGradient, which tfjs lacks: identity forward, zero gradient. */
export const stopGradient = tf.customGrad((...inputs) => ({
  value: tf.clone(inputs[0] as tf.Tensor),
  gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy),
})) as <T extends tf.Tensor>(x: T) => T;

function checkInputs(inputs: GrpoInputs, options: GrpoLossOptions): void {
  const [B, T] = inputs.logprobs.shape;
  const shape = `[${B}, ${T}]`;
  for (const name of ['oldLogprobs', 'refLogprobs', 'actionMask'] as const) {
    const tensor = inputs[name];
    if (tensor && (tensor.shape[0] !== B || tensor.shape[1] !== T)) {
      throw new Error(
        `${name} has shape [${tensor.shape}] but logprobs has ${shape}. Fix: pack every (B, T) input to the same shape.`,
      );
    }
  }
  if (inputs.oldGiven && inputs.oldGiven.shape[0] !== B) {
    throw new Error(
      `oldGiven has shape [${inputs.oldGiven.shape}] for ${B} trajectories. Fix: pass one flag per trajectory.`,
    );
  }
  if (inputs.advantages.shape[0] !== B) {
    throw new Error(
      `advantages has shape [${inputs.advantages.shape}] for ${B} trajectories. Fix: pass one advantage per trajectory.`,
    );
  }
  const { clipEps, clipEpsHigh = clipEps, klCoef, aggregation } = options;
  if (!(clipEps >= 0 && clipEps < 1))
    throw new Error(`clipEps must be in [0, 1), got ${clipEps}. Fix: use e.g. 0.2.`);
  if (!(clipEpsHigh >= 0 && Number.isFinite(clipEpsHigh)))
    throw new Error(
      `clipEpsHigh must be >= 0, got ${clipEpsHigh}. Fix: use e.g. 0.28, or leave it out.`,
    );
  if (!(klCoef >= 0 && Number.isFinite(klCoef)))
    throw new Error(`klCoef must be >= 0, got ${klCoef}. Fix: use e.g. 0.04, or 0 for no KL.`);
  if (!(AGGREGATIONS as readonly string[]).includes(aggregation)) {
    throw new Error(
      `unknown aggregation ${JSON.stringify(aggregation)}. Fix: use one of ${AGGREGATIONS.join(', ')}.`,
    );
  }
  if (options.normalizer !== undefined && !(options.normalizer > 0)) {
    throw new Error(
      `normalizer must be > 0, got ${options.normalizer}. Fix: compute it with lossNormalizer() over the whole batch.`,
    );
  }
}

/** Each row's old log-probs: the given ones, or the current ones detached where a row has none. */
function oldLogprobsOf(inputs: GrpoInputs): tf.Tensor2D {
  const current = stopGradient(inputs.logprobs);
  if (!inputs.oldLogprobs) return current;
  if (!inputs.oldGiven) return inputs.oldLogprobs;
  const [B, T] = inputs.logprobs.shape;
  const given = tf.tile(tf.reshape(tf.cast(inputs.oldGiven, 'bool'), [B, 1]), [1, T]); // (B, T)
  return tf.where(given, inputs.oldLogprobs, current);
}

/** The GRPO loss of a batch and its diagnostics (see the file comment for the formulas). */
export function grpoLoss(inputs: GrpoInputs, options: GrpoLossOptions): GrpoLossTerms {
  checkInputs(inputs, options);
  const { clipEps, clipEpsHigh = clipEps, klCoef, aggregation } = options;
  const B = inputs.logprobs.shape[0];
  const logprobs = inputs.logprobs;
  const mask =
    inputs.actionMask.dtype === 'float32'
      ? inputs.actionMask
      : tf.cast(inputs.actionMask, 'float32');
  const advantage = tf.reshape(inputs.advantages, [B, 1]); // (B, 1), broadcasts over T
  const old = oldLogprobsOf(inputs);

  // Masking the log-ratio makes ratio = 1 and delta = 0 off the mask, so those tokens stay finite
  // and their gradient (which carries a factor of the mask) is exactly 0.
  const ratio = tf.exp(tf.mul(tf.sub(logprobs, old), mask)); // (B, T)
  const ratioClipped = tf.clipByValue(ratio, 1 - clipEps, 1 + clipEpsHigh); // (B, T)
  const pgLoss = tf.neg(tf.minimum(tf.mul(ratio, advantage), tf.mul(ratioClipped, advantage))); // (B, T)
  let kl: tf.Tensor2D | null = null;
  if (inputs.refLogprobs) {
    const delta = tf.mul(tf.sub(inputs.refLogprobs, logprobs), mask); // (B, T), ref - new
    kl = tf.sub(tf.sub(tf.exp(delta), delta), 1) as tf.Tensor2D; // k3 >= 0, 0 off the mask
  }
  const perToken = kl && klCoef !== 0 ? tf.add(pgLoss, tf.mul(kl, klCoef)) : pgLoss; // (B, T)
  const maskedLoss = tf.mul(perToken, mask); // (B, T)

  const tokensPerRow = tf.sum(mask, 1); // (B)
  const actionTokens = tf.sum(tokensPerRow);
  let total: tf.Scalar;
  let divisor: tf.Scalar | number;
  if (aggregation === 'seed') {
    const rowMean = tf.div(tf.sum(maskedLoss, 1), tf.maximum(tokensPerRow, 1)); // (B), 0 for empty rows
    total = tf.sum(rowMean);
    divisor =
      options.normalizer ?? (tf.maximum(tf.sum(tf.minimum(tokensPerRow, 1)), 1) as tf.Scalar);
  } else {
    total = tf.sum(maskedLoss);
    divisor =
      options.normalizer ??
      (aggregation === 'token'
        ? (tf.maximum(actionTokens, 1) as tf.Scalar)
        : B * requireMaxTokens(options.maxTokens));
  }
  const loss = tf.div(total, divisor) as tf.Scalar;

  // Diagnostics: not on the path to `loss`, so comparisons are fine here.
  const tokenCount = tf.maximum(actionTokens, 1);
  const clipped = tf.add(
    tf.mul(
      tf.cast(tf.greater(advantage, 0), 'float32'),
      tf.cast(tf.greater(ratio, 1 + clipEpsHigh), 'float32'),
    ),
    tf.mul(
      tf.cast(tf.less(advantage, 0), 'float32'),
      tf.cast(tf.less(ratio, 1 - clipEps), 'float32'),
    ),
  ); // (B, T)
  return {
    loss,
    kl: kl ? (tf.div(tf.sum(tf.mul(kl, mask)), tokenCount) as tf.Scalar) : tf.scalar(0),
    clipFraction: tf.div(tf.sum(tf.mul(clipped, mask)), tokenCount) as tf.Scalar,
    ratioMean: tf.div(tf.sum(tf.mul(ratio, mask)), tokenCount) as tf.Scalar,
    actionTokens: actionTokens as tf.Scalar,
  };
}
