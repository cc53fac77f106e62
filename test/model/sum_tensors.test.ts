// sumTensors: addN in groups of at most 4 inputs, because tfjs's WebGPU AddN binds every input in
// one shader and WebGPU allows 8 storage buffers per stage (57 gradients' squares broke there).
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { sumTensors } from '../../src/model/ops.ts';

describe('sumTensors', () => {
  it('sums 57 tensors as plain addition does, and leaves no tensor behind', async () => {
    const list = Array.from({ length: 57 }, (_, i) => tf.tensor1d([i, -2 * i, 0.5]));
    const before = tf.memory().numTensors;
    const total = sumTensors(list);
    expect(tf.memory().numTensors).toBe(before + 1);
    expect(Array.from(await total.data())).toEqual([1596, -3192, 28.5]);
    tf.dispose([total, ...list]);
  });

  it('returns a copy for one tensor, and refuses an empty list', async () => {
    const one = tf.scalar(3);
    const total = sumTensors([one]);
    one.dispose();
    expect(await total.data()).toEqual(new Float32Array([3]));
    total.dispose();
    expect(() => sumTensors([])).toThrow(/nothing to sum/);
  });
});
