// LoRA (Hu et al., arxiv.org/abs/2106.09685): a frozen linear layer W gets a trainable low-rank
// update, y = x W + (alpha / rank) (x A) B, with B = 0 at initialization so the adapted model
// starts equal to the base. Switching adapters off gives back the base model, which is how the
// KL reference is computed without a second copy of the weights.
import * as tf from '@tensorflow/tfjs';
import { LORA_TARGETS, type LoraTarget } from './lora_targets.ts';
import type { Rng } from './rng.ts';

/** LoRA hyper-parameters (PEFT's names: r, lora_alpha, lora_dropout, target_modules). */
export interface LoraConfig {
  rank: number;
  alpha: number;
  /**
   * Only 0 is supported: dropout would make scoring stochastic and break old/new log-prob ratios.
   */
  dropout: number;
  targetModules: LoraTarget[];
  /** Seeds the A matrices. */
  seed: number;
}

/** Rank 8, alpha 16, every attention and MLP projection. */
export const defaultLoraConfig: LoraConfig = {
  rank: 8,
  alpha: 16,
  dropout: 0,
  targetModules: [...LORA_TARGETS],
  seed: 0,
};

/** A pair of trainable factors for one projection (I, O): A (I, r), B (r, O). */
export interface LoraAdapter {
  a: tf.Variable;
  b: tf.Variable;
  /** alpha / rank. */
  scale: number;
}

/** Checks a LoRA config, saying how to fix it. */
export function validateLoraConfig(config: LoraConfig): void {
  if (!Number.isInteger(config.rank) || config.rank <= 0)
    throw new Error(`LoRA rank must be a positive integer, got ${config.rank}`);
  if (!(config.alpha > 0)) throw new Error(`LoRA alpha must be positive, got ${config.alpha}`);
  if (config.dropout !== 0)
    throw new Error(
      `LoRA dropout must be 0 (got ${config.dropout}): dropout would make old and new log-probs disagree`,
    );
  for (const target of config.targetModules) {
    if (!LORA_TARGETS.includes(target))
      throw new Error(
        `unknown LoRA target module ${JSON.stringify(target)}; choose from ${LORA_TARGETS.join(', ')}`,
      );
  }
  if (config.targetModules.length === 0) throw new Error('LoRA needs at least one target module');
}

/** A new adapter: A ~ U(-1/sqrt(I), 1/sqrt(I)) as PEFT's kaiming_uniform(a=sqrt(5)), B = 0. */
export function createAdapter(
  inputSize: number,
  outputSize: number,
  config: LoraConfig,
  rng: Rng,
): LoraAdapter {
  const bound = 1 / Math.sqrt(inputSize);
  const values = new Float32Array(inputSize * config.rank);
  for (let i = 0; i < values.length; i++) values[i] = (2 * rng.uniform() - 1) * bound;
  // tf.variable copies its initial value, so the initial tensors are freed here (each load used to
  // leave two behind per adapter).
  const initialA = tf.tensor2d(values, [inputSize, config.rank]);
  const initialB = tf.zeros([config.rank, outputSize]);
  const adapter = {
    a: tf.variable(initialA, true),
    b: tf.variable(initialB, true),
    scale: config.alpha / config.rank,
  };
  tf.dispose([initialA, initialB]);
  return adapter;
}
