// The parts of tfjs-wasm's backend object that our kernels use (they are not in its public types),
// declared once for our kernels (tfjs/, matmul/, heap_copies.ts), how they register kernels, and
// how they instantiate their modules on its heap.
import * as tf from '@tensorflow/tfjs';

/** tfjs-wasm's BackendWasm, as far as our kernels touch it. */
export interface WasmBackendLike {
  wasm: { asm?: { memory?: WebAssembly.Memory }; wasmMemory?: WebAssembly.Memory };
  dataIdMap: { get(dataId: object): { memoryOffset: number } };
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  incRef(dataId: object): void;
  disposeData(dataId: object, force?: boolean): boolean;
  readSync(dataId: object): ArrayLike<number>;
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
}

/** The backend a kernel function receives, or tf.backend(), seen as tfjs-wasm's. */
export function asWasm(backend: unknown): WasmBackendLike {
  return backend as WasmBackendLike;
}

/** tfjs-wasm's heap (its WebAssembly.Memory; where it lives differs between its builds). */
export function wasmMemory(backend: WasmBackendLike): WebAssembly.Memory | undefined {
  return backend.wasm.asm?.memory ?? backend.wasm.wasmMemory;
}

/**
 * Where a tensor's data starts on the heap, in bytes. Read it after every allocation: one may grow
 * the heap.
 */
export function byteOffset(backend: WasmBackendLike, t: tf.TensorInfo): number {
  return backend.dataIdMap.get(t.dataId).memoryOffset;
}

/**
 * Registers our own kernel `name` for the wasm backend, its function given the backend as
 * tfjs-wasm's. A kernel already registered under the name (this module evaluated again over the
 * same tfjs, as test files sharing tfjs do) is replaced: its function would read the state of the
 * copy that registered it (the 16-bit store, the switches), not the caller's.
 */
export function registerWasmKernel(
  name: string,
  kernel: (
    args: Parameters<tf.KernelFunc>[0],
    backend: WasmBackendLike,
  ) => tf.TensorInfo | tf.TensorInfo[],
): void {
  if (tf.getKernel(name, 'wasm')) tf.unregisterKernel(name, 'wasm');
  tf.registerKernel({
    kernelName: name,
    backendName: 'wasm',
    kernelFunc: (args) => kernel(args, asWasm(args.backend)),
  });
}

const heapModules = new WeakMap<WebAssembly.Memory, Map<string, WebAssembly.Exports | null>>();

/**
 * The exports of our module `name` (its bytes from `bytes`, made once) instantiated on the
 * backend's heap, cached per heap; null where the heap is not exposed or the engine cannot
 * validate the module (no WebAssembly SIMD).
 */
export function heapModule(
  backend: WasmBackendLike,
  name: string,
  bytes: () => Uint8Array<ArrayBuffer>,
): WebAssembly.Exports | null {
  const memory = wasmMemory(backend);
  if (!memory) return null;
  let modules = heapModules.get(memory);
  if (!modules) {
    modules = new Map();
    heapModules.set(memory, modules);
  }
  if (!modules.has(name)) {
    const code = bytes();
    modules.set(
      name,
      WebAssembly.validate(code)
        ? new WebAssembly.Instance(new WebAssembly.Module(code), { env: { memory } }).exports
        : null,
    );
  }
  return modules.get(name) ?? null;
}
