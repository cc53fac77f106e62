import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { selectBackend } from '../../src/kernels/backend.ts';

describe('selectBackend in Node', () => {
  it('skips WebGPU without navigator.gpu and picks single-threaded SIMD WASM', async () => {
    const info = await selectBackend();
    expect(info.name).toBe('wasm');
    expect(tf.getBackend()).toBe('wasm');
    expect(info.simd).toBe(true);
    expect(info.threads).toBe(1); // tfjs's own threads are off in Node, and ours are asked for with `threads`
    expect(info.skipped[0]).toMatch(/^webgpu: no WebGPU adapter/);
  });

  it('starts helper threads for the matmul kernel when asked (threads: 2, or auto for every core), and stops them', async () => {
    expect((await selectBackend({ force: 'wasm', threads: 2 })).threads).toBe(2);
    const cores = (await import('node:os')).availableParallelism();
    expect((await selectBackend({ force: 'wasm', threads: 'auto' })).threads).toBe(
      Math.min(4, cores),
    );
    expect((await selectBackend({ force: 'wasm' })).threads).toBe(1);
  });

  it('can be forced, and a forced backend that cannot start is an error', async () => {
    expect((await selectBackend({ force: 'cpu' })).name).toBe('cpu');
    expect(tf.getBackend()).toBe('cpu');
    await expect(selectBackend({ force: 'webgpu' })).rejects.toThrow(
      /cannot start the forced backend webgpu: no WebGPU adapter/,
    );
  });
});
