// Out of memory, recognised wherever our backends report it, and said as what to change. A run that
// passes the heap's limit fails in one of several ways, none of which says "out of memory" plainly
// (measured on 2 cores with shape models of SmolLM2-135M and Qwen2.5-0.5B):
//   - tfjs-wasm: its malloc returns 0 at the 4 GiB limit (no error at all; the heap guard,
//     src/kernels/tfjs/heap_guard.ts, turns that into a RangeError), then "Aborted()" or "memory
//     access out of bounds";
//   - XNNPACK inside tfjs-wasm: "XNN status for xnn_create_… is not successful. Got status 6"
//     (6 is xnn_status_out_of_memory);
//   - a WebAssembly.Memory of our own kernels or the engine: "WebAssembly.Memory.grow(): Maximum
//     memory size exceeded" (V8), "failed to grow memory" (Firefox), "Out of memory" (Safari);
//   - our kernels' own refusals: "… no room for …" (src/kernels/matmul/decode_products.ts);
//   - JavaScript itself: "Array buffer allocation failed";
//   - WebGPU: a lost device, or a GPUOutOfMemoryError.
// `clean` says whether the allocation was refused before anything was written (a JavaScript
// exception at the allocation), so the backend's memory is intact and the trainer's rollback to the
// step's start (step_rollback.ts) is exact; the others may have written through a null pointer.

/** Where in a step memory ran out. */
export type MemoryPhase =
  | 'rollout'
  | 'reward'
  | 'advantage'
  | 'reference'
  | 'update'
  | 'evaluation';

/** The run settings the advice names, with their current values. */
export interface MemorySettings {
  microBatchSize: number;
  maxNewTokens: number;
  maxTurns: number;
  groupSize: number;
  promptsPerStep: number;
}

/** A recognised out-of-memory report: where it came from, and whether memory is intact after it. */
export interface MemorySource {
  source: string;
  clean: boolean;
}

const SOURCES: readonly (MemorySource & { test: RegExp })[] = [
  { source: 'tfjs-wasm', clean: true, test: /tfjs-wasm could not allocate/ },
  { source: 'our kernels', clean: true, test: /\bno room for\b/i },
  {
    source: 'WebAssembly memory',
    clean: true,
    test: /Maximum memory size exceeded|failed to grow memory|Unable to grow instance memory|exceed the memory's declared maximum size/i,
  },
  { source: 'JavaScript memory', clean: true, test: /Array buffer allocation failed/i },
  { source: 'XNNPACK', clean: false, test: /XNN status .*Got status 6\b/i },
  {
    source: 'tfjs-wasm',
    clean: false,
    test: /Cannot enlarge memory|\bAborted\(|memory access out of bounds|out of bounds memory access/i,
  },
  {
    source: 'WebGPU',
    clean: false,
    test: /device (is |was |has been )?lost|GPUOutOfMemoryError|not enough memory/i,
  },
  { source: 'the backend', clean: false, test: /out of memory|\bOOM\b|failed to allocate/i },
];

/** The text of anything thrown, with its name when that carries meaning (RangeError, …). */
function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  if (typeof error === 'object' && error !== null && 'message' in error)
    return String((error as { message: unknown }).message);
  return String(error);
}

/** The source of an out-of-memory error, or null when `error` is something else. */
export function memorySource(error: unknown): MemorySource | null {
  const text = errorText(error);
  const found = SOURCES.find((s) => s.test.test(text));
  return found ? { source: found.source, clean: found.clean } : null;
}

const PHASE_TEXT: Record<MemoryPhase, string> = {
  rollout: 'the rollout',
  reward: 'the reward',
  advantage: 'the advantage',
  reference: 'the reference pass',
  update: 'the update',
  evaluation: 'the evaluation',
};

/** What to change, by phase: the update's knobs (micro-batch) differ from the rollout's (batch). */
export function memoryFix(phase: MemoryPhase, settings?: MemorySettings): string {
  const now = (value: number | undefined) => (value === undefined ? '' : ` (now ${value})`);
  const tokens = `fewer tokens per turn${now(settings?.maxNewTokens)}`;
  if (phase === 'update' || phase === 'reference') {
    const turns = `fewer turns${now(settings?.maxTurns)}`;
    return settings?.microBatchSize === 1
      ? `${tokens} or ${turns}, or a smaller model`
      : `micro-batch 1${now(settings?.microBatchSize)}, ${tokens}, or a smaller model`;
  }
  const batch = settings
    ? ` (group size ${settings.groupSize} × ${settings.promptsPerStep} prompts = ${settings.groupSize * settings.promptsPerStep})`
    : ' (group size × prompts per step)';
  return `fewer sequences at once${batch}, ${tokens}, or a smaller model`;
}

/** An out-of-memory failure of a training step, said as where it happened and what to change. */
export class OutOfMemoryError extends Error {
  override readonly name = 'OutOfMemoryError';

  constructor(
    /** The step that failed (1-based). */
    readonly step: number,
    readonly phase: MemoryPhase,
    readonly source: MemorySource,
    /** True when the run stands exactly as after step - 1 (nothing of this step applied). */
    readonly restored: boolean,
    settings: MemorySettings | undefined,
    readonly original: unknown,
  ) {
    const state = restored
      ? `Nothing of step ${step} was applied: the run stands as after step ${step - 1}.`
      : `The ${source.source} may be left damaged: reload the page (or rerun the command) before going on.`;
    super(
      `out of memory at step ${step} in ${PHASE_TEXT[phase]} (${errorText(original)}). ${state} ` +
        `Fix: ${memoryFix(phase, settings)}.`,
    );
  }
}

/**
 * `error` as an OutOfMemoryError naming the step and phase (itself if it is one already), or null
 * when it is not about memory. `restored` says whether the trainer undid the step; a source that
 * may have written through a failed allocation never counts as restored.
 */
export function outOfMemoryError(
  error: unknown,
  where: { step: number; phase: MemoryPhase; settings?: MemorySettings; restored: boolean },
): OutOfMemoryError | null {
  if (error instanceof OutOfMemoryError) return error;
  const source = memorySource(error);
  if (!source) return null;
  return new OutOfMemoryError(
    where.step,
    where.phase,
    source,
    where.restored && source.clean,
    where.settings,
    error,
  );
}

/**
 * Reads back what an OutOfMemoryError's message says (the page gets only the message across the
 * worker boundary), or null for any other message.
 */
export function parseOutOfMemory(
  message: string,
): { step: number; phase: MemoryPhase; restored: boolean } | null {
  const match = /^out of memory at step (\d+) in (the [a-z ]+?) \(/.exec(message);
  if (!match) return null;
  const phase = (Object.keys(PHASE_TEXT) as MemoryPhase[]).find((p) => PHASE_TEXT[p] === match[2]);
  if (!phase) return null;
  return {
    step: Number(match[1]),
    phase,
    restored: message.includes(`Nothing of step ${match[1]} was applied`),
  };
}
