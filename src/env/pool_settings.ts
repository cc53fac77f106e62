// The options of a SandboxPool (pool.ts), their defaults, and their checks with messages that say
// how to fix them.
import type { SandboxWorkerFactory } from './types.ts';

/** Options of SandboxPool.create; only `workerFactory` is required. */
export interface SandboxPoolOptions {
  /** Sandboxes executing at once (default 2). */
  size?: number;
  /** Warm spares kept ready to replace terminated or recycled workers (default 1). */
  spares?: number;
  /**
   * create() resolves once this many workers are ready (default: size); the others start after
   * them, from the snapshot, and take calls as they come up. The page uses 1: a lone cold Pyodide
   * loads faster than two side by side.
   */
  firstReady?: number;
  /** Deadline of one program (default 10 000 ms, as in the reference design). */
  timeoutMs?: number;
  /** Time an interrupted program gets to stop before its worker is terminated (default 500 ms). */
  graceMs?: number;
  /** Characters of output the observation keeps, from the end (default 500). */
  maxOutputChars?: number;
  /** Characters of stdout and of stderr kept in ExecResult (default 10 000). */
  maxCaptureChars?: number;
  /** Replace a worker after this many programs (default 200; 0 = never). */
  recycleEvery?: number;
  /** Hard cap on a worker's wasm heap; a worker that used more than half of it is recycled (default 1 GiB). */
  memoryCapBytes?: number;
  /** Stop runaways by interrupt when SharedArrayBuffer is usable (default); false = terminate only. */
  interrupts?: boolean;
  /** Give up on a worker that is not ready within this time (default 120 000 ms). */
  startTimeoutMs?: number;
  /** Run the lockdown's reachability audit in every worker (tests). */
  audit?: boolean;
  /**
   * Every run starts from the worker's clean memory image (memory_image.ts; default true); false
   * only to measure its cost or to show what it prevents.
   */
  isolate?: boolean;
  /** Start workers after the first from its interpreter's memory snapshot (default true); false: each loads cold. */
  snapshots?: boolean;
  /**
   * A snapshot an earlier pool made (the page keeps one from the last visit, snapshot_store.ts): the
   * first workers restore it instead of loading cold. One that does not restore (another Pyodide
   * build, damaged) is dropped, and the pool makes its own as it would without.
   */
  snapshot?: Uint8Array | null;
  /** Told of the snapshot the pool makes from a cold start, to keep for a later pool. */
  onSnapshot?: (snapshot: Uint8Array) => void;
  /** Starts one worker: see node_pool.ts and browser_pool.ts. */
  workerFactory: SandboxWorkerFactory;
}

/** The options with every default filled in. */
export type Settings = Required<
  Omit<SandboxPoolOptions, 'workerFactory' | 'snapshot' | 'onSnapshot'>
>;

function canInterrupt(): boolean {
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
  return typeof SharedArrayBuffer === 'function' && isolated !== false;
}

function checkCount(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min)
    throw new Error(`SandboxPool: ${name} must be an integer >= ${min}, got ${value}`);
  return value;
}

/** `value` if it is a positive finite number, else an error naming the option. */
export function checkPositive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`SandboxPool: ${name} must be a positive number, got ${value}`);
  return value;
}

/** Checks `options` and fills in the defaults. */
export function settingsFrom(options: SandboxPoolOptions): Settings {
  const size = checkCount('size', options.size ?? 2, 1);
  return {
    size,
    spares: checkCount('spares', options.spares ?? 1, 0),
    firstReady: Math.min(checkCount('firstReady', options.firstReady ?? size, 1), size),
    timeoutMs: checkPositive('timeoutMs', options.timeoutMs ?? 10_000),
    graceMs: checkCount('graceMs', options.graceMs ?? 500, 0),
    maxOutputChars: checkCount('maxOutputChars', options.maxOutputChars ?? 500, 1),
    maxCaptureChars: checkCount('maxCaptureChars', options.maxCaptureChars ?? 10_000, 1),
    recycleEvery: checkCount('recycleEvery', options.recycleEvery ?? 200, 0),
    memoryCapBytes: checkCount('memoryCapBytes', options.memoryCapBytes ?? 2 ** 30, 64 * 2 ** 20),
    interrupts: (options.interrupts ?? true) && canInterrupt(),
    startTimeoutMs: checkPositive('startTimeoutMs', options.startTimeoutMs ?? 120_000),
    audit: options.audit ?? false,
    snapshots: options.snapshots ?? true,
    isolate: options.isolate ?? true,
  };
}
