/// <reference types="@webgpu/types" />
// The decoding engine's KV cache to and from tfjs tensors (decoding_engine.ts): a prefix entry's
// keys and values copied into a cache row, and a finished sequence's slots copied out for a later
// turn. Both only record buffer copies; the engine submits them after tfjs's pending work. A cache
// layer is float32, (rows, kvHeads, capacity, headDim); a tensor is (1, kvHeads, L, headDim).
import type * as tf from '@tensorflow/tfjs';
import { type WebGpuBackendLike, bufferOf } from './gpu.ts';
import type { Buffers } from './engine_buffers.ts';
import type { EngineModel } from './engine_model.ts';

/**
 * Records the copies of cached keys and values (per layer (1, kvHeads, L, hd) tensors) into cache
 * row `row` at slots [firstSlot, firstSlot + L).
 */
export function recordPreload(
  encoder: GPUCommandEncoder,
  backend: WebGpuBackendLike,
  model: EngineModel,
  b: Buffers,
  row: number,
  entry: { keys: tf.Tensor[]; values: tf.Tensor[] },
  firstSlot: number,
): void {
  const { kvHeads: Hkv, headDim: hd } = model;
  for (let layer = 0; layer < model.layers.length; layer++) {
    for (const [store, entries] of [
      [b.keys, entry.keys],
      [b.values, entry.values],
    ] as const) {
      const source = entries[layer]!;
      const L = source.shape[2]!;
      if (L === 0) continue;
      const from = bufferOf(backend, source);
      for (let j = 0; j < Hkv; j++)
        encoder.copyBufferToBuffer(
          from,
          j * L * hd * 4,
          store[layer]!,
          ((row * Hkv + j) * b.capacity + firstSlot) * hd * 4,
          L * hd * 4,
        );
    }
  }
}

/** The slots [start, end) of `ranges` that hold any, and how many slots they hold in all. */
export function cacheRuns(ranges: [number, number][]): {
  runs: [number, number][];
  length: number;
} {
  const runs = ranges.filter(([start, end]) => end > start);
  return { runs, length: runs.reduce((sum, [start, end]) => sum + end - start, 0) };
}

/**
 * Records the copies of cache row `row`'s slots of `runs` (from cacheRuns), one after another,
 * into `out`'s per layer (1, kvHeads, length, hd) tensors.
 */
export function recordExtract(
  encoder: GPUCommandEncoder,
  backend: WebGpuBackendLike,
  model: EngineModel,
  b: Buffers,
  row: number,
  runs: [number, number][],
  out: { keys: tf.Tensor[]; values: tf.Tensor[] },
): void {
  const { kvHeads: Hkv, headDim: hd } = model;
  const length = out.keys[0]?.shape[2] ?? 0;
  for (let layer = 0; layer < model.layers.length; layer++) {
    for (const [store, target] of [
      [b.keys, out.keys[layer]!],
      [b.values, out.values[layer]!],
    ] as const) {
      const to = bufferOf(backend, target);
      for (let j = 0; j < Hkv; j++) {
        let at = 0;
        for (const [start, end] of runs) {
          encoder.copyBufferToBuffer(
            store[layer]!,
            ((row * Hkv + j) * b.capacity + start) * hd * 4,
            to,
            (j * length + at) * hd * 4,
            (end - start) * hd * 4,
          );
          at += end - start;
        }
      }
    }
  }
}
