// Allocation failures, made to happen (tests) and made to fail cleanly (always).
//
// The guard: tfjs-wasm's malloc returns 0 when the heap cannot grow (its build does not abort), and
// tfjs then writes the tensor at address 0, over the heap's own data: the run goes on corrupted, or
// dies later as "memory access out of bounds" (measured: two 3 GB allocations, the second at
// offset 0, no error). guardWasmHeap() makes every tfjs-wasm allocation that fails throw a
// RangeError before anything is written, so the failed step can be undone exactly.
// TODO(issue 29): the guard belongs with the other tfjs-wasm hooks in
// src/kernels/tfjs/wasm_backend.ts; it lives here until that file is free to change.
//
// The injection: failAllocationAt({step, phase}) makes step `step` run out of memory in `phase`,
// either with the error V8 gives when a WebAssembly memory cannot grow, thrown at the phase's start
// (in the update: in the optimizer step, after half of the variables were written, the worst case
// for the run's state), or, with `real: true` on the wasm backend, for real: the heap is filled to
// its 4 GiB limit (untouched pages, so it costs no RAM) and the phase's next sizeable allocation
// fails as it would in a run too large for the device.
import * as tf from '@tensorflow/tfjs';
import type { AdamW } from '../model/adamw.ts';
import type { MemoryPhase } from './out_of_memory.ts';

/** Where an injected allocation failure happens. */
export interface AllocationFailure {
  step: number;
  phase: MemoryPhase;
  /** Fill the wasm heap instead of throwing: the phase's own allocations then fail. */
  real?: boolean;
}

/** The parts of tfjs-wasm's Emscripten module the guard touches. */
interface WasmHeapModule {
  _malloc(bytes: number): number;
  _free(pointer: number): void;
  HEAPU8: Uint8Array;
}

let armed: AllocationFailure | null = null;
let reserved: { wasm: WasmHeapModule; pointers: number[] } | null = null;
const unguarded = new WeakMap<WasmHeapModule, (bytes: number) => number>();

/** The error V8 throws when a WebAssembly memory cannot grow past its maximum. */
function growError(): RangeError {
  return new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded');
}

function wasmModule(): WasmHeapModule | null {
  if (tf.getBackend() !== 'wasm') return null;
  return (tf.backend() as unknown as { wasm?: WasmHeapModule }).wasm ?? null;
}

/**
 * Makes tfjs-wasm's allocations throw a RangeError ("tfjs-wasm could not allocate …") where malloc
 * fails, instead of handing tfjs address 0. Idempotent; nothing on other backends.
 */
export function guardWasmHeap(): void {
  const wasm = wasmModule();
  if (!wasm || unguarded.has(wasm)) return;
  // Emscripten's _malloc rebinds itself to the raw export on first call: a setter keeps the guard
  // in front of whatever it is set to.
  let malloc = wasm._malloc;
  unguarded.set(wasm, (bytes) => malloc(bytes));
  const guarded = (bytes: number) => {
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
    get: () => guarded,
    set: (raw: (bytes: number) => number) => {
      malloc = raw;
    },
  });
}

/** Arms (or with null, disarms) an injected allocation failure; it fires once. */
export function failAllocationAt(at: AllocationFailure | null): void {
  armed = at;
  if (!at) releaseReservedHeap();
}

/**
 * The trainer calls this as `phase` of step `step` begins: an armed failure for it fires here
 * (thrown, or the heap filled), except a thrown one in the update, which armOptimizer fires.
 */
export function allocationPoint(step: number, phase: MemoryPhase): void {
  if (!armed || armed.step !== step || armed.phase !== phase) return;
  if (armed.real) {
    armed = null;
    fillHeap();
    return;
  }
  if (phase === 'update') return;
  armed = null;
  throw growError();
}

/**
 * For the update of step `step`: when a thrown failure is armed for it, the optimizer's next step
 * writes half of the variables (and their moments) and then fails. Returns the undo of that.
 */
export function armOptimizer(optimizer: AdamW, step: number): () => void {
  if (!armed || armed.real || armed.step !== step || armed.phase !== 'update') return () => {};
  armed = null;
  const apply = optimizer.apply;
  optimizer.apply = (grads, learningRate, gradScale) => {
    const names = Object.keys(grads);
    const half = Object.fromEntries(
      names.slice(0, Math.ceil(names.length / 2)).map((name) => [name, grads[name]!]),
    );
    apply.call(optimizer, half, learningRate, gradScale);
    throw growError();
  };
  return () => {
    Reflect.deleteProperty(optimizer, 'apply');
  };
}

/** Fills the wasm heap up to its limit with blocks nothing touches (a real failure's setup). */
function fillHeap(): void {
  const wasm = wasmModule();
  if (!wasm)
    throw new Error(`a real allocation failure needs the wasm backend, not ${tf.getBackend()}`);
  const malloc = unguarded.get(wasm) ?? wasm._malloc;
  const pointers: number[] = [];
  // largest blocks first, down to 64 KiB: what is left are fragments smaller than that
  for (let bytes = 2 ** 30; bytes >= 2 ** 16; bytes /= 2) {
    for (let pointer = malloc(bytes); pointer !== 0; pointer = malloc(bytes))
      pointers.push(pointer);
  }
  reserved = { wasm, pointers };
}

/** Frees what fillHeap() took (the trainer calls it when a step fails). */
export function releaseReservedHeap(): void {
  if (!reserved) return;
  for (const pointer of reserved.pointers) reserved.wasm._free(pointer);
  reserved = null;
}
