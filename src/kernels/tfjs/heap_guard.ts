// tfjs-wasm's malloc returns 0 when the heap cannot grow (its build does not abort), and tfjs then
// writes the tensor at address 0, over the heap's own data: the run goes on corrupted, or dies later
// as "memory access out of bounds" (measured: two 3 GB allocations, the second at offset 0, no
// error). guardWasmHeap() makes every tfjs-wasm allocation that fails throw a RangeError before
// anything is written, so a failed training step can be undone exactly
// (src/training/out_of_memory.ts recognises the message).
import * as tf from '@tensorflow/tfjs';

/** The parts of tfjs-wasm's Emscripten module the guard touches. */
interface WasmHeapModule {
  _malloc(bytes: number): number;
  HEAPU8: Uint8Array;
}

// The mark lives on the wasm module, not in a module-level set: where this file is evaluated again
// over the same tfjs (test files sharing tfjs but not our modules), a fresh set would wrap malloc
// once more each time, until the nested guards overflow the stack.
const GUARDED = Symbol.for('agentic-rl.tfjs-wasm-heap-guard');

/**
 * Makes tfjs-wasm's allocations throw a RangeError ("tfjs-wasm could not allocate …") where malloc
 * fails, instead of handing tfjs address 0. Idempotent; nothing on other backends.
 */
export function guardWasmHeap(): void {
  if (tf.getBackend() !== 'wasm') return;
  const wasm = (tf.backend() as unknown as { wasm?: WasmHeapModule }).wasm;
  if (!wasm || GUARDED in wasm) return;
  Object.defineProperty(wasm, GUARDED, { value: true });
  // Emscripten's _malloc rebinds itself to the raw export on first call: the guard stays in front
  // of the raw export whenever it is set again. A JavaScript function set in its place (a test
  // counting allocations) goes in front of the guard, which it captured and calls; setting the
  // guard back takes it off. (Putting such a wrapper behind the guard made the guard call the
  // wrapper, which called the guard: a stack overflow, and every later allocation failed.)
  let malloc = wasm._malloc;
  let outer: ((bytes: number) => number) | null = null;
  const guard = (bytes: number) => {
    // malloc takes a 32-bit size: a larger one would wrap around to a small block
    const pointer = bytes > 0xffff_ffff ? 0 : malloc(bytes);
    if (pointer === 0 && bytes > 0)
      throw new RangeError(
        `tfjs-wasm could not allocate ${bytes} bytes: out of memory (the WebAssembly heap holds ${wasm.HEAPU8.buffer.byteLength} bytes, at most 4 GiB)`,
      );
    return pointer;
  };
  Object.defineProperty(wasm, '_malloc', {
    configurable: true,
    enumerable: true,
    get: () => outer ?? guard,
    set: (value: (bytes: number) => number) => {
      if (value === guard) outer = null;
      else if (Function.prototype.toString.call(value).includes('[native code]')) malloc = value;
      else outer = value;
    },
  });
}
