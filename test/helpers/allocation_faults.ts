// Allocation failures made to happen, through the Trainer's `faults` hook (StepFaults): arm({step,
// phase}) makes step `step` run out of memory in `phase`, either with the error V8 gives when a
// WebAssembly memory cannot grow, thrown at the phase's start (in the update: in the optimizer
// step, after half of the variables were written, the worst case for the run's state), or, with
// `real: true` on the wasm backend, for real: the heap is filled to its 4 GiB limit (untouched
// pages, so it costs no RAM) and the phase's next sizeable allocation fails as it would in a run
// too large for the device.
import * as tf from '@tensorflow/tfjs';
import type { AdamW } from '../../src/model/adamw.ts';
import type { MemoryPhase } from '../../src/training/out_of_memory.ts';
import type { StepFaults } from '../../src/training/trainer.ts';

/** Where an injected allocation failure happens. */
export interface AllocationFailure {
  step: number;
  phase: MemoryPhase;
  /** Fill the wasm heap instead of throwing: the phase's own allocations then fail. */
  real?: boolean;
}

/** The parts of tfjs-wasm's Emscripten module that filling the heap touches. */
interface WasmHeapModule {
  _malloc(bytes: number): number;
  _free(pointer: number): void;
}

/** The error V8 throws when a WebAssembly memory cannot grow past its maximum. */
function growError(): RangeError {
  return new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded');
}

/** One armed failure at a time; it fires once. Pass it as a Trainer's `faults`. */
export class AllocationFaults implements StepFaults {
  private armed: AllocationFailure | null = null;
  private reserved: { wasm: WasmHeapModule; pointers: number[] } | null = null;
  private failing: AdamW | null = null;

  /** Arms (or with null, disarms) a failure; disarming also gives back a filled heap. */
  arm(at: AllocationFailure | null): void {
    this.armed = at;
    if (at) return;
    this.afterFailure();
    if (this.failing) Reflect.deleteProperty(this.failing, 'apply');
    this.failing = null;
  }

  beforePhase(at: { step: number; phase: MemoryPhase; optimizer: AdamW }): void {
    const armed = this.armed;
    if (!armed || armed.step !== at.step || armed.phase !== at.phase) return;
    this.armed = null;
    if (armed.real) this.fillHeap();
    else if (at.phase === 'update') this.failMidway(at.optimizer);
    else throw growError();
  }

  /** Frees what fillHeap() took (the trainer calls it when a step fails, before undoing it). */
  afterFailure(): void {
    if (!this.reserved) return;
    for (const pointer of this.reserved.pointers) this.reserved.wasm._free(pointer);
    this.reserved = null;
  }

  /** The optimizer's next step writes half of the variables (and their moments), then fails. */
  private failMidway(optimizer: AdamW): void {
    const apply = optimizer.apply;
    this.failing = optimizer;
    optimizer.apply = (grads, learningRate, gradScale) => {
      Reflect.deleteProperty(optimizer, 'apply');
      this.failing = null;
      const names = Object.keys(grads);
      const half = Object.fromEntries(
        names.slice(0, Math.ceil(names.length / 2)).map((name) => [name, grads[name]!]),
      );
      apply.call(optimizer, half, learningRate, gradScale);
      throw growError();
    };
  }

  /** Fills the wasm heap up to its limit with blocks nothing touches. */
  private fillHeap(): void {
    const wasm =
      tf.getBackend() === 'wasm'
        ? (tf.backend() as unknown as { wasm?: WasmHeapModule }).wasm
        : undefined;
    if (!wasm)
      throw new Error(`a real allocation failure needs the wasm backend, not ${tf.getBackend()}`);
    const malloc = (bytes: number): number => {
      try {
        return wasm._malloc(bytes);
      } catch {
        return 0; // the heap guard (src/kernels/tfjs/heap_guard.ts) throws where malloc gives 0
      }
    };
    const pointers: number[] = [];
    // largest blocks first, down to 64 KiB: what is left are fragments smaller than that
    for (let bytes = 2 ** 30; bytes >= 2 ** 16; bytes /= 2) {
      for (let pointer = malloc(bytes); pointer !== 0; pointer = malloc(bytes))
        pointers.push(pointer);
    }
    this.reserved = { wasm, pointers };
  }
}
