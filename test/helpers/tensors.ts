// Tensor test helpers: deterministic tfjs tensors (plain-array helpers are in numbers.ts).
import * as tf from '@tensorflow/tfjs';
import { filled, type Wave } from './numbers.ts';

/** A float32 tensor of `shape` holding filled(size, seed, wave): sin(i * step + seed) * scale + offset. */
export function filledTensor(shape: [number, number], seed: number, wave?: Wave): tf.Tensor2D;
export function filledTensor(shape: readonly number[], seed: number, wave?: Wave): tf.Tensor;
export function filledTensor(shape: readonly number[], seed: number, wave?: Wave): tf.Tensor {
  return tf.tensor(
    filled(
      shape.reduce((a, b) => a * b, 1),
      seed,
      wave,
    ),
    [...shape],
  );
}
