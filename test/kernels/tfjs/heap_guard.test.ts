// The guard that makes tfjs-wasm's failed malloc throw, before anything is written.
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it, vi } from 'vitest';
import { selectBackend } from '../../../src/kernels/backend.ts';
import { guardWasmHeap } from '../../../src/kernels/tfjs/heap_guard.ts';
import { memorySource } from '../../../src/training/out_of_memory.ts';

describe('the tfjs-wasm heap guard', () => {
  it('turns a malloc that fails at the heap limit into a RangeError before anything is written', async () => {
    await selectBackend({ force: 'wasm' });
    guardWasmHeap();
    guardWasmHeap(); // idempotent
    const before = tf.memory().numTensors;
    // 5 GB: past the 4 GiB heap (and past malloc's 32-bit size, which would wrap to 0.7 GB)
    const thrown = (() => {
      try {
        tf.tidy(() => tf.ones([1]).tile([1_250_000_000]));
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(RangeError);
    expect(memorySource(thrown)).toEqual({ source: 'tfjs-wasm', clean: true });
    expect(tf.memory().numTensors).toBe(before);
    const sum = tf.tidy(() => tf.add(tf.ones([4]), 1));
    expect(Array.from(await sum.data())).toEqual([2, 2, 2, 2]); // the backend goes on
    sum.dispose();
  });

  it('wraps malloc once, even where its module is evaluated again over the same tfjs', async () => {
    await selectBackend({ force: 'wasm' });
    guardWasmHeap();
    const wasm = (tf.backend() as unknown as { wasm: { _malloc: unknown } }).wasm;
    const installed = wasm._malloc;
    // what test files that share tfjs but not our modules do: a fresh copy of the guard's module
    vi.resetModules();
    const fresh = await import('../../../src/kernels/tfjs/heap_guard.ts');
    fresh.guardWasmHeap();
    expect(wasm._malloc).toBe(installed);
  });

  it('a wrapper set in front of the guard and taken off again leaves it working (no recursion)', async () => {
    await selectBackend({ force: 'wasm' });
    guardWasmHeap();
    const wasm = (tf.backend() as unknown as { wasm: { _malloc(bytes: number): number } }).wasm;
    const guard = wasm._malloc;
    let counted = 0;
    wasm._malloc = (bytes) => {
      counted += 1;
      return guard(bytes);
    };
    const x = tf.ones([1000]);
    expect(counted).toBeGreaterThan(0);
    wasm._malloc = guard;
    expect(wasm._malloc).toBe(guard);
    const y = tf.ones([1000]);
    expect(Array.from(await y.data()).slice(0, 2)).toEqual([1, 1]);
    // the guard still refuses what cannot be allocated
    expect(() => tf.tidy(() => tf.ones([1]).tile([1_250_000_000]))).toThrow(RangeError);
    tf.dispose([x, y]);
  });
});
