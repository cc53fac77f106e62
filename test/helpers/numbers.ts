// Numeric test helpers on plain arrays: deterministic test data, bit patterns and tolerances.
// No tfjs at run time (tensors only as a type), so kernel tests on raw wasm memory stay light.
import { expect } from 'vitest';
import type { Tensor } from '@tensorflow/tfjs';

/** The sine wave `filled` draws from: value i is sin(i * step + seed) * scale + offset. */
export interface Wave {
  /** Phase step per element (default 0.37). */
  step?: number;
  /** Amplitude (default 2), or one per element. */
  scale?: number | ((i: number) => number);
  /** Added after scaling (default 0). */
  offset?: number;
}

/** `length` deterministic float32 test values, sin(i * step + seed) * scale + offset (see Wave). */
export function filled(
  length: number,
  seed: number,
  { step = 0.37, scale = 2, offset = 0 }: Wave = {},
): Float32Array {
  return Float32Array.from({ length }, (_, i) => {
    const value = Math.sin(i * step + seed) * (typeof scale === 'number' ? scale : scale(i));
    return offset === 0 ? value : value + offset;
  });
}

/** A tensor's (or a float32 array's) values as their 32-bit patterns, for bit-for-bit comparisons. */
export function bits(x: Tensor | Float32Array): number[] {
  return [...new Uint32Array((x instanceof Float32Array ? x : x.dataSync()).slice().buffer)];
}

/** Expects |got - want| <= relative |want| + absolute at every element (absolute: a number, or one per element). */
export function expectClose(
  got: ArrayLike<number>,
  want: ArrayLike<number>,
  relative: number,
  absolute: number | ArrayLike<number>,
): void {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const floor = typeof absolute === 'number' ? absolute : absolute[i]!;
    expect(Math.abs(got[i]! - want[i]!)).toBeLessThanOrEqual(relative * Math.abs(want[i]!) + floor);
  }
}

/** Largest absolute difference between two equally long number lists. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} != ${b.length}`);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  return worst;
}
