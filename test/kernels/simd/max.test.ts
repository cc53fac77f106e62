// The SIMD row maximum (kernels/simd/max.ts) in front of tfjs-wasm's Max: the same numbers as
// tfjs-wasm's own kernel over the last axis (every tail of the 4-lane steps, keepDims or not), NaN
// propagated, and other reductions left to tfjs-wasm.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { simdMatMulActive } from '../../../src/kernels/matmul/kernels.ts';
import { simdMaxModule } from '../../../src/kernels/simd/max.ts';
import { filled } from '../../helpers/numbers.ts';
import { kernelCounts, setSwitches } from '../../../src/kernels/switches.ts';

describe("SIMD row maximum in front of tfjs-wasm's Max", () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
    expect(simdMatMulActive()).toBe(true); // installs the overrides
  });
  afterEach(() => {
    setSwitches({ tfjsWasmOverrides: true });
  });

  it('is a valid module', () => {
    expect(WebAssembly.validate(simdMaxModule())).toBe(true);
  });

  /** tf.max(x, axis, keepDims) with the overrides and without, and whether the kernel ran. */
  function both(
    shape: number[],
    axis: number | number[],
    keepDims: boolean,
    values?: Float32Array,
  ) {
    const x = tf.tensor(
      values ??
        filled(
          shape.reduce((p, q) => p * q, 1),
          shape.length,
          { scale: 3, offset: -1 },
        ),
      shape,
    );
    const run = (on: boolean) => {
      setSwitches({ tfjsWasmOverrides: on });
      const y = tf.max(x, axis, keepDims);
      const result = { shape: y.shape, values: [...y.dataSync()] };
      y.dispose();
      return result;
    };
    const count = kernelCounts.simdMaxes;
    const simd = run(true);
    const used = kernelCounts.simdMaxes > count;
    const tfjs = run(false);
    x.dispose();
    return { simd, tfjs, used };
  }

  // columns 1-3 (tail only), 4, 5-7, many; keepDims both ways; a negative axis
  it.each([
    [[3, 1], -1, false],
    [[2, 3], 1, false],
    [[5, 4], 1, true],
    [[2, 3, 7], 2, false],
    [[512, 2000], -1, false],
    [[4, 129], 1, true],
    [[9], 0, false],
  ] as const)(
    "%j over axis %j (keepDims %s): the numbers of tfjs-wasm's Max",
    (shape, axis, keepDims) => {
      const { simd, tfjs, used } = both([...shape], axis, keepDims);
      expect(used).toBe(true);
      expect(simd).toEqual(tfjs);
    },
  );

  it('finds a largest number in any lane or the tail, and -Infinity rows; NaN in a row gives NaN', () => {
    const values = Float32Array.from({ length: 7 * 7 }, () => -5);
    for (let r = 0; r < 7; r++) values[r * 7 + r] = r; // the largest at column r of row r
    values[6 * 7 + 6] = -Infinity; // row 6: -5 everywhere else
    const { simd, used } = both([7, 7], 1, false, values);
    expect(used).toBe(true);
    expect(simd.values).toEqual([0, 1, 2, 3, 4, 5, -5]);
    values.fill(-Infinity, 0, 7);
    values[7 + 5] = Number.NaN; // row 1, in the tail
    values[2 * 7 + 2] = Number.NaN; // row 2, in a vector
    const rows = both([7, 7], 1, false, values).simd.values;
    expect(rows[0]).toBe(-Infinity);
    expect(Number.isNaN(rows[1])).toBe(true);
    expect(Number.isNaN(rows[2])).toBe(true);
  });

  it('leaves other axes, several axes and int32 to tfjs-wasm', () => {
    expect(both([3, 5], 0, false).used).toBe(false);
    expect(both([2, 3, 4], [1, 2], false).used).toBe(false);
    const x = tf.tensor2d(
      [
        [1, 5],
        [7, 2],
      ],
      [2, 2],
      'int32',
    );
    const count = kernelCounts.simdMaxes;
    expect([...tf.max(x, 1).dataSync()]).toEqual([5, 7]);
    expect(kernelCounts.simdMaxes).toBe(count);
    x.dispose();
  });
});
