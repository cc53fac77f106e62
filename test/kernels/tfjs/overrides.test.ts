// The tfjs-wasm kernel replacements of kernels/tfjs/overrides.ts against tfjs-wasm's own kernels
// (turned back on with setSwitches({ tfjsWasmOverrides: false })) and the cpu backend: Identity and
// same-dtype Cast share data and nothing else changes; GatherV2 gives the same numbers on every
// axis and shape, and the same error for an index out of range.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { simdMatMulActive } from '../../../src/kernels/matmul/kernels.ts';
import { filled } from '../../helpers/numbers.ts';
import { setSwitches } from '../../../src/kernels/switches.ts';

describe('tfjs-wasm kernel replacements', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
    expect(simdMatMulActive()).toBe(true); // installs them
  });
  afterAll(() => {
    setSwitches({ tfjsWasmOverrides: true });
  });

  it('clone and cast to the same dtype make no copy; a real cast still converts; data outlives the original', () => {
    for (const on of [true, false]) {
      setSwitches({ tfjsWasmOverrides: on });
      const buffers = tf.memory().numDataBuffers;
      const x = tf.tensor1d([1.5, -2.25, 3.75]);
      const clone = tf.clone(x);
      const same = tf.cast(x, 'float32');
      expect(tf.memory().numDataBuffers - buffers).toBe(on ? 1 : 3);
      const integers = tf.cast(x, 'int32');
      expect(integers.dtype).toBe('int32');
      expect(Array.from(integers.dataSync())).toEqual([1, -2, 3]);
      x.dispose();
      expect(Array.from(clone.dataSync())).toEqual([1.5, -2.25, 3.75]);
      expect(Array.from(same.dataSync())).toEqual([1.5, -2.25, 3.75]);
      tf.dispose([clone, same, integers]);
      expect(tf.memory().numDataBuffers).toBe(buffers);
    }
  });

  it('gather equals tfjs-wasm and cpu on every axis, with repeated ids and 2-D indices', async () => {
    const cases: [number[], number, number[], number[]][] = [
      [[6, 5], 0, [4], [5, 0, 5, 2]], // rows
      [[6, 5], 1, [3], [4, 0, 4]], // columns (the embedding lookup)
      [[6, 5], -1, [2, 2], [1, 3, 0, 1]], // negative axis, 2-D indices
      [[3, 4, 5], 1, [2], [3, 1]], // a middle axis
      [[7], 0, [3], [6, 6, 0]],
      [[6, 5], 0, [0], []], // nothing picked
    ];
    const results = async (backend: string, on: boolean) => {
      await tf.setBackend(backend);
      setSwitches({ tfjsWasmOverrides: on });
      return cases.map(([shape, axis, indexShape, ids]) =>
        tf.tidy(() => {
          const x = tf.tensor(
            filled(
              shape.reduce((a, b) => a * b, 1),
              shape.length,
            ),
            shape,
          );
          const out = tf.gather(x, tf.tensor(ids, indexShape, 'int32'), axis);
          return { shape: out.shape, values: Array.from(out.dataSync()) };
        }),
      );
    };
    const ours = await results('wasm', true);
    expect(ours).toEqual(await results('wasm', false));
    expect(ours).toEqual(await results('cpu', true));
    expect(ours[1]!.values.slice(0, 3)).toEqual([
      filled(30, 2)[4],
      filled(30, 2)[0],
      filled(30, 2)[4],
    ]); // row 0 of the columns case
    await tf.setBackend('wasm');
    setSwitches({ tfjsWasmOverrides: true });
  });

  it('gather refuses an index out of range, naming it', () => {
    const x = tf.tensor2d(filled(6, 1), [2, 3]);
    for (const bad of [[0, 3], [-1]]) {
      const ids = tf.tensor1d(bad, 'int32');
      expect(() => tf.gather(x, ids, 1)).toThrow(
        `GatherV2: the index value ${bad.at(-1)} is not in [0, 2]`,
      );
      ids.dispose();
    }
    x.dispose();
  });

  it('gradients through saved (cloned) tensors are unchanged', () => {
    // (gather has no gradient on wasm: tfjs-wasm lacks UnsortedSegmentSum; ops.ts embedColumns has
    // its own)
    const x = tf.tensor2d(filled(12, 3), [3, 4]);
    const f = (t: tf.Tensor) => tf.sum(tf.mul(tf.sigmoid(t), tf.square(tf.reverse(t, 0))));
    const gradients = (on: boolean) => {
      setSwitches({ tfjsWasmOverrides: on });
      return tf.tidy(() => Array.from(tf.grad(f)(x).dataSync()));
    };
    expect(gradients(true)).toEqual(gradients(false));
    x.dispose();
  });

  it("installed again from a fresh copy of the module, one wrapper answers to that copy's switch", async () => {
    // what test files sharing tfjs but not our modules do: the replacement must not stack, or the
    // first copy's wrapper (its switch on) would still answer when the fresh copy's is off
    setSwitches({ tfjsWasmOverrides: true });
    vi.resetModules();
    const overrides = await import('../../../src/kernels/tfjs/overrides.ts');
    const fresh = await import('../../../src/kernels/switches.ts');
    overrides.installWasmOverrides();
    for (const on of [true, false]) {
      fresh.setSwitches({ tfjsWasmOverrides: on });
      const buffers = tf.memory().numDataBuffers;
      const x = tf.tensor1d([1, 2]);
      const clone = tf.clone(x);
      expect(tf.memory().numDataBuffers - buffers).toBe(on ? 1 : 2);
      tf.dispose([x, clone]);
    }
    fresh.setSwitches({ tfjsWasmOverrides: true });
  });
});
