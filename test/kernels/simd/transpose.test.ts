// The SIMD transpose: the raw kernel against index arithmetic in plain JS (every tail of the 4 x 4
// blocks), and tf.transpose on wasm with the kernel in front of tfjs-wasm's against tfjs-wasm's
// own kernel (same bits), for the permutations it takes and the ones it leaves alone.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { simdMatMulActive } from '../../../src/kernels/matmul/kernels.ts';
import { instantiateTranspose, simdTransposeModule } from '../../../src/kernels/simd/transpose.ts';
import { filled } from '../../helpers/numbers.ts';
import { kernelCounts, setSwitches } from '../../../src/kernels/switches.ts';

describe('SIMD transpose kernel', () => {
  it('is a valid module small enough for a synchronous compile anywhere (4 KB)', () => {
    const bytes = simdTransposeModule();
    expect(WebAssembly.validate(bytes)).toBe(true);
    expect(bytes.length).toBeLessThan(4096);
  });

  // full 4 x 4 blocks, the column tail, the row tail, both, single rows and columns, a batch
  const shapes: [number, number, number][] = [
    [1, 1, 1],
    [1, 4, 4],
    [1, 8, 12],
    [1, 5, 7],
    [3, 6, 9],
    [2, 1, 9],
    [2, 9, 1],
    [4, 3, 3],
    [2, 17, 33],
  ];
  it.each(shapes)(
    'moves every number of batch %i of %i x %i to its place',
    (batch, rows, columns) => {
      const memory = new WebAssembly.Memory({ initial: 1 });
      const { transpose } = instantiateTranspose(memory)!;
      const size = batch * rows * columns;
      const heap = new Float32Array(memory.buffer);
      const src = 16; // float offsets; the output right after the input, then a guard
      const dst = src + size;
      heap.set(filled(size, 1), src);
      heap.fill(-7, dst, dst + size + 8);
      transpose(src * 4, dst * 4, batch, rows, columns);
      for (let b = 0; b < batch; b++) {
        for (let i = 0; i < rows; i++) {
          for (let j = 0; j < columns; j++) {
            expect(heap[dst + b * rows * columns + j * rows + i]).toBe(
              heap[src + b * rows * columns + i * columns + j],
            );
          }
        }
      }
      expect([...heap.subarray(dst + size, dst + size + 8)]).toEqual(Array(8).fill(-7)); // nothing written past the output
      expect(heap[src - 1]).toBe(0);
    },
  );
});

describe('tf.transpose on wasm with the SIMD kernel in front', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
    expect(simdMatMulActive()).toBe(true); // installs the kernel
  });
  afterEach(() => {
    setSwitches({ simdTranspose: true });
  });

  /**
   * tf.transpose with the SIMD kernel and without it (tfjs-wasm's), as arrays of bits, and how many
   * tensors it leaves.
   */
  function both(
    shape: number[],
    perm: number[],
    dtype: 'float32' | 'int32' = 'float32',
  ): { simd: number[]; tfjs: number[]; used: boolean } {
    const size = shape.reduce((p, q) => p * q, 1);
    const x =
      dtype === 'float32'
        ? tf.tensor(filled(size, 2), shape)
        : tf.tensor(
            Int32Array.from({ length: size }, (_, i) => i * 7 - 3),
            shape,
            'int32',
          );
    const run = (on: boolean) => {
      setSwitches({ simdTranspose: on });
      const y = tf.transpose(x, perm);
      const bits =
        dtype === 'float32'
          ? [...new Uint32Array((y.dataSync() as Float32Array).slice().buffer)]
          : [...y.dataSync()];
      const outShape = y.shape;
      y.dispose();
      return { bits, outShape };
    };
    const count = kernelCounts.simdTransposes;
    const simd = run(true);
    const used = kernelCounts.simdTransposes > count;
    const tfjs = run(false);
    expect(kernelCounts.simdTransposes).toBe(count + Number(used)); // off means off
    x.dispose();
    expect(simd.outShape).toEqual(tfjs.outShape);
    return { simd: simd.bits, tfjs: tfjs.bits, used };
  }

  // [shape, perm, whether the SIMD kernel takes it]
  const cases: [number[], number[], boolean][] = [
    [[512, 256], [1, 0], true],
    [[7, 5], [1, 0], true],
    [[16, 128, 64], [0, 2, 1], true],
    [[2, 3, 5, 6], [0, 1, 3, 2], true],
    [[4, 1, 9, 6], [0, 1, 3, 2], true],
    [[4, 9, 1, 6], [0, 3, 2, 1], true], // the last two axes swap once size-1 axes are dropped
    // two middle axes over blocks of a multiple of 4 numbers (the block-copy kernel): attention's
    // heads
    [[4, 6, 3, 8], [0, 2, 1, 3], true],
    [[4, 128, 4, 64], [0, 2, 1, 3], true],
    [[4, 4, 128, 64], [0, 2, 1, 3], true],
    [[6, 3, 8], [1, 0, 2], true],
    [[2, 6, 3, 4, 2], [0, 2, 1, 3, 4], true],
    [[2, 1, 3, 5, 4], [0, 3, 2, 1, 4], true],
    [[4, 6, 3, 5], [0, 2, 1, 3], false],
    [[2, 3, 4, 4], [1, 2, 0, 3], false],
    [[3, 4, 5], [2, 1, 0], false],
    [[1, 6], [1, 0], false],
    [[3, 4], [0, 1], false],
  ];
  it.each(cases)(
    '%j by %j: the same bits as tfjs-wasm (SIMD kernel: %s)',
    (shape, perm, simdKernel) => {
      const { simd, tfjs, used } = both(shape, perm);
      expect(simd).toEqual(tfjs);
      expect(used).toBe(simdKernel);
    },
  );

  it('leaves int32 to tfjs-wasm, and the gradient of a transpose (itself a transpose) is right', () => {
    const { simd, tfjs, used } = both([5, 6], [1, 0], 'int32');
    expect(simd).toEqual(tfjs);
    expect(used).toBe(false);
    const x = tf.tensor2d(filled(12, 3), [3, 4]);
    const w = tf.tensor2d(filled(12, 4), [4, 3]);
    const grad = tf.grad((v: tf.Tensor) => tf.sum(tf.mul(tf.transpose(v), w)))(x); // d/dx sum(x^T * w) = w^T
    const wv = w.dataSync();
    expect([...grad.dataSync()]).toEqual(
      Array.from({ length: 12 }, (_, e) => wv[(e % 4) * 3 + Math.floor(e / 4)]),
    );
    expect(grad.shape).toEqual([3, 4]);
    tf.dispose([x, w, grad]);
  });

  it('leaves no tensors behind', () => {
    const x = tf.tensor3d(filled(2 * 8 * 4, 5), [2, 8, 4]);
    const before = tf.memory().numTensors;
    tf.tidy(() => {
      tf.transpose(x, [0, 2, 1]);
    });
    expect(tf.memory().numTensors).toBe(before);
    x.dispose();
  });
});
