// registerWasmKernel where a kernel of the same name is already registered: test files share tfjs
// but evaluate our modules afresh, and the kernel that answers must be the one the caller's copy
// registered (it reads that copy's state: the 16-bit store, the switches).
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { describe, expect, it } from 'vitest';
import { selectBackend } from '../../../src/kernels/backend.ts';
import { registerWasmKernel } from '../../../src/kernels/tfjs/wasm_backend.ts';

describe('registerWasmKernel', () => {
  it('replaces a kernel registered under the same name: the latest registration answers', async () => {
    await selectBackend({ force: 'wasm' });
    const name = 'TestRegisteredTwice';
    const constant =
      (value: number) =>
      (args: Parameters<tf.KernelFunc>[0]): tf.TensorInfo => {
        const { x } = args.inputs as { x: tf.TensorInfo };
        const values = new Float32Array(x.shape[0]!).fill(value);
        return {
          dataId: (args.backend as tf.KernelBackend).write(values, x.shape, 'float32'),
          shape: x.shape,
          dtype: 'float32',
        };
      };
    const before = tf.memory().numTensors;
    const run = async () => {
      const x = tf.zeros([2]);
      const y = tf.engine().runKernel(name, { x }) as tf.Tensor;
      const values = Array.from(await y.data());
      tf.dispose([x, y]);
      return values;
    };
    registerWasmKernel(name, constant(1));
    expect(await run()).toEqual([1, 1]);
    registerWasmKernel(name, constant(2));
    expect(await run()).toEqual([2, 2]);
    tf.unregisterKernel(name, 'wasm');
    expect(tf.memory().numTensors).toBe(before);
  });
});
