// Supervised fine-tuning on transcripts: −mean log p of the assistant's tokens (mask 1), the
// other tokens being context. Used to make the demo model and the tiny models of learning tests.
import * as tf from '@tensorflow/tfjs';
import { clipByGlobalNorm, type AdamW } from '../model/adamw.ts';
import { tokenLogprobs } from '../model/logprobs.ts';
import type { CausalLM } from '../model/model.ts';

/**
 * One training sequence: ids and a mask over them (0 = context; above 0 = learn to predict this
 * token, with that weight in the loss: 1 usually, more for tokens a recipe stresses).
 */
export interface SftExample {
  ids: number[];
  mask: number[];
}

/** Settings of one SFT step. */
export interface SftStepOptions {
  learningRate: number;
  gradClip?: number;
  /**
   * Divide the summed NLL by this fixed number instead of the batch's own count of learned
   * tokens, so every token weighs the same whatever batch it lands in. With the per-batch mean, a
   * batch of short sequences gives each of its tokens more weight, which skews decisions that
   * short and long sequences make differently (e.g. answering at once vs running code).
   */
  normalizer?: number;
}

/** Learned (predicted) tokens of a batch, each counted by its weight: the per-batch mean's divisor. */
export function learnedTokens(batch: readonly SftExample[]): number {
  return batch.reduce((sum, e) => sum + e.mask.slice(1).reduce((a, b) => a + b, 0), 0);
}

/** The step's divisor (the options' normalizer, else the learned tokens) and its learned tokens. */
export function sftDivisor(
  batch: readonly SftExample[],
  options: Pick<SftStepOptions, 'normalizer'>,
): { count: number; divisor: number } {
  const count = Math.max(learnedTokens(batch), 1);
  return { count, divisor: options.normalizer ?? count };
}

/**
 * Gradients of (summed masked NLL of `batch`) / `divisor` for every trainable variable, by name,
 * and that value. The caller owns the tensors. Summing these over disjoint parts of a batch, each
 * with the whole batch's divisor, gives the whole batch's gradient (data-parallel training).
 */
export function sftGradients(
  model: CausalLM,
  batch: readonly SftExample[],
  divisor: number,
): { value: number; grads: Record<string, tf.Tensor> } {
  if (!(divisor > 0)) throw new Error(`sftStep: normalizer must be positive, got ${divisor}`);
  const variables = [...model.trainableVariables()];
  const T = Math.max(...batch.map((e) => e.ids.length)) - 1;
  const mask = tf.tensor2d(
    batch.map((e) => Array.from({ length: T }, (_, t) => e.mask[t + 1] ?? 0)),
    [batch.length, T],
  ); // (B, T-1)
  const { value, grads } = tf.variableGrads(
    () => {
      const logprobs = tokenLogprobs(
        model,
        batch.map((e) => e.ids),
        { temperature: 1 },
      ); // (B, T-1)
      return tf.div(tf.neg(tf.sum(tf.mul(logprobs, mask))), divisor) as tf.Scalar;
    },
    variables.map(([, v]) => v),
  );
  const byName: Record<string, tf.Tensor> = {};
  for (const [name, variable] of variables)
    if (grads[variable.name]) byName[name] = grads[variable.name]!;
  const result = value.dataSync()[0]!;
  value.dispose();
  mask.dispose();
  return { value: result, grads: byName };
}

/** Clips (optionally) and applies summed gradients; disposes them. */
export function applySftGradients(
  optimizer: AdamW,
  grads: Record<string, tf.Tensor>,
  options: Pick<SftStepOptions, 'learningRate' | 'gradClip'>,
): void {
  const clipped = options.gradClip ? clipByGlobalNorm(grads, options.gradClip) : null;
  optimizer.apply(clipped ? clipped.grads : grads, options.learningRate);
  if (clipped) {
    Object.values(clipped.grads).forEach((g) => g.dispose());
    clipped.norm.dispose();
  }
  Object.values(grads).forEach((g) => g.dispose());
}

/** One optimizer step on a batch; returns the mean masked negative log-likelihood (nats/token). */
export function sftStep(
  model: CausalLM,
  optimizer: AdamW,
  batch: readonly SftExample[],
  options: SftStepOptions,
): number {
  const { count, divisor } = sftDivisor(batch, options);
  const { value, grads } = sftGradients(model, batch, divisor);
  applySftGradients(optimizer, grads, options);
  return (value * divisor) / count; // per learned token, whatever the divisor
}
