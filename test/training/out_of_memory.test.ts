// Out-of-memory errors as each backend really words them (runs at the heap's limit, V8, Firefox,
// Safari, Dawn, tfjs-wasm and XNNPACK), turned into one message that names the step, the phase and
// the fix; and the page reads that message back.
import { describe, expect, it } from 'vitest';
import {
  memoryFix,
  memorySource,
  OutOfMemoryError,
  outOfMemoryError,
  parseOutOfMemory,
} from '../../src/training/out_of_memory.ts';

/** Real texts, with the source and whether memory is intact after them. */
const REAL: [string, Error, string, boolean][] = [
  [
    'V8: a WebAssembly memory at its maximum',
    new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded'),
    'WebAssembly memory',
    true,
  ],
  [
    'V8: a memory the system cannot back',
    new RangeError('WebAssembly.Memory.grow(): Unable to grow instance memory'),
    'WebAssembly memory',
    true,
  ],
  [
    'Firefox',
    new RangeError('WebAssembly.Memory.grow: failed to grow memory'),
    'WebAssembly memory',
    true,
  ],
  [
    'Safari',
    new RangeError("WebAssembly.Memory.grow would exceed the memory's declared maximum size"),
    'WebAssembly memory',
    true,
  ],
  ['V8: JavaScript', new RangeError('Array buffer allocation failed'), 'JavaScript memory', true],
  [
    'our kernels',
    new Error("dot products: no room for a 12 x 896 x 151936 product's operands"),
    'our kernels',
    true,
  ],
  [
    'the guard on tfjs-wasm',
    new RangeError(
      'tfjs-wasm could not allocate 1500000000 bytes: out of memory (the WebAssembly heap holds 4294967296 bytes, at most 4 GiB)',
    ),
    'tfjs-wasm',
    true,
  ],
  [
    'tfjs-wasm aborting (the SmolLM2-135M shape)',
    new WebAssembly.RuntimeError('Aborted(). Build with -sASSERTIONS for more info.'),
    'tfjs-wasm',
    false,
  ],
  [
    'tfjs-wasm writing through a failed allocation (the Qwen2.5-0.5B shape)',
    new WebAssembly.RuntimeError('memory access out of bounds'),
    'tfjs-wasm',
    false,
  ],
  [
    'Emscripten with assertions',
    new Error(
      'Aborted(Cannot enlarge memory arrays to size 4294975488 bytes (OOM). Either (1) compile with -sINITIAL_MEMORY=X with X higher than the current value 16777216)',
    ),
    'tfjs-wasm',
    false,
  ],
  [
    'XNNPACK (status 6 is xnn_status_out_of_memory)',
    new Error(
      'XNN status for xnn_create_fully_connected_nc_f32 is not successful. Got status 6. Use -c dbg to see XNN logs.',
    ),
    'XNNPACK',
    false,
  ],
  [
    'WebGPU: the device lost',
    new Error("Failed to execute 'mapAsync' on 'GPUBuffer': Device is lost"),
    'WebGPU',
    false,
  ],
  [
    'WebGPU: an out-of-memory error scope',
    new Error('GPUOutOfMemoryError: Not enough memory left to allocate the buffer'),
    'WebGPU',
    false,
  ],
  ['Firefox: JavaScript', new Error('out of memory'), 'the backend', false],
];

describe('out of memory: the classifier', () => {
  it.each(REAL)('recognises %s', (_, error, source, clean) => {
    expect(memorySource(error)).toEqual({ source, clean });
  });

  it('leaves other errors alone, including ones that merely mention room or memory', () => {
    for (const message of [
      "task seed/fib: its prompt is 301 tokens, and the model's context is 256, so there is no room to answer.",
      'XNN status for xnn_create_fully_connected_nc_f32 is not successful. Got status 2.',
      'the sandbox timed out',
      'Tensor is disposed.',
      'memoryCapBytes must be a whole number',
    ])
      expect(memorySource(new Error(message))).toBeNull();
  });

  it('says the step, the phase and what to change, by phase, with the current values', () => {
    const settings = {
      microBatchSize: 4,
      maxNewTokens: 128,
      maxTurns: 3,
      groupSize: 6,
      promptsPerStep: 3,
    };
    const error = outOfMemoryError(
      new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded'),
      { step: 7, phase: 'update', settings, restored: true },
    )!;
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toBe(
      'out of memory at step 7 in the update (RangeError: WebAssembly.Memory.grow(): Maximum memory size exceeded). ' +
        'Nothing of step 7 was applied: the run stands as after step 6. ' +
        'Fix: micro-batch 1 (now 4), fewer tokens per turn (now 128), or a smaller model.',
    );
    expect(memoryFix('reference', { ...settings, microBatchSize: 1 })).toBe(
      'fewer tokens per turn (now 128) or fewer turns (now 3), or a smaller model',
    );
    expect(memoryFix('rollout', settings)).toBe(
      'fewer sequences at once (group size 6 × 3 prompts = 18), fewer tokens per turn (now 128), or a smaller model',
    );
    // a source that may have written through a failed allocation is never "restored"
    const aborted = outOfMemoryError(new WebAssembly.RuntimeError('Aborted()'), {
      step: 2,
      phase: 'rollout',
      restored: true,
    })!;
    expect(aborted.restored).toBe(false);
    expect(aborted.message).toMatch(/tfjs-wasm may be left damaged: reload the page/);
    expect(
      outOfMemoryError(new Error('the sandbox timed out'), {
        step: 1,
        phase: 'update',
        restored: true,
      }),
    ).toBeNull();
    expect(outOfMemoryError(error, { step: 9, phase: 'rollout', restored: false })).toBe(error);
  });

  it('reads its own message back (the page gets only the message from the worker)', () => {
    for (const phase of ['rollout', 'reward', 'reference', 'update', 'evaluation'] as const) {
      for (const restored of [true, false]) {
        const error = outOfMemoryError(new RangeError('Array buffer allocation failed'), {
          step: 12,
          phase,
          restored,
        })!;
        expect(parseOutOfMemory(error.message)).toEqual({ step: 12, phase, restored });
      }
    }
    expect(parseOutOfMemory('memory access out of bounds')).toBeNull();
  });
});
