// What the WebAssembly memories hold, for the memory figures (bench, the page's run view): tfjs-wasm's
// heap (activations, float32 weights, adapters, optimizer state, the KV cache), the dot store's
// memory (16-bit frozen weights, decoding's transposed copies, product scratch) and the matmul
// helper threads' pool. A WebAssembly memory never shrinks, so each length is also its peak so far.
import * as tf from '@tensorflow/tfjs';
import { dotStore } from './matmul/decode_products.ts';
import { matmulThreads } from './matmul/kernels.ts';
import { asWasm, wasmMemory } from './tfjs/wasm_backend.ts';

/** Bytes of each WebAssembly memory the model's work uses (0 where one does not exist). */
export interface HeapUsage {
  tfjs: number;
  dotStore: number;
  threadPool: number;
  total: number;
}

/** The memories' current lengths, which are their peaks so far. */
export function heapUsage(): HeapUsage {
  const backend = tf.getBackend() === 'wasm' ? asWasm(tf.backend()) : null;
  const tfjs = backend ? (wasmMemory(backend)?.buffer.byteLength ?? 0) : 0;
  const store = tf.getBackend() === 'wasm' ? (dotStore()?.memory.buffer.byteLength ?? 0) : 0;
  const threadPool = matmulThreads()?.memoryBytes ?? 0;
  return { tfjs, dotStore: store, threadPool, total: tfjs + store + threadPool };
}
