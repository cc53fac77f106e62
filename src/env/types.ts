// Contracts of the Environment (docs/architecture.md §1, §7): what one execution returns, the
// worker-side runner interface that workers/sandbox.worker.ts exposes with comlink, and the
// injected worker factory that keeps this folder free of browser and Node specifics.
import type { Endpoint } from 'comlink';
import type { EncodedValue, PlainValue } from './plain_value.ts';

export type { PlainValue } from './plain_value.ts';

/** The exception that ended a program, by class name (`AssertionError`) and `str()` of it. */
export interface ExecError {
  type: string;
  message: string;
}

/** What the learner and the rewards read of one program's run (src/rl/types.ts Execution). */
export interface ExecOutcome {
  /** The tail of stdout+stderr in the order printed (`maxOutputChars`), or `TIMEOUT`. */
  observation: string;
  /**
   * True when the program ran to its end without an uncaught exception (SystemExit counts as not
   * ok).
   */
  ok: boolean;
  error: ExecError | null;
  /** The deadline passed; the observation is `TIMEOUT`. */
  timedOut: boolean;
}

/**
 * Anything that runs Python: the sandbox pool, a fake in tests. `execute` runs `code` in a fresh
 * namespace and never rejects for errors in the code itself. The rollout and the rewards need only
 * an ExecOutcome; tools get the pool's whole ExecResult.
 */
export interface CodeExecutor<Result extends ExecOutcome = ExecOutcome> {
  execute(code: string, options?: CallOptions): Promise<Result>;
  /**
   * Judges `code` against hidden tests where the program cannot reach the verdict (the sandbox
   * pool; docs/sandbox.md "The judge"). Optional so that executors which only run programs (a
   * CPython subprocess in tests, the demo scripts' runners) still fit; the `tests` reward says
   * which path it took (src/rl/rewards.ts).
   */
  judge?(code: string, tests: readonly HiddenTest[], options?: CallOptions): Promise<Judgement>;
}

/** Options of one call to an executor. */
export interface CallOptions {
  /** The call's deadline (default: the executor's). */
  timeoutMs?: number;
  /**
   * Ask where the call ran: a pool that knows adds `ranOn` to the result (the timeline's sandbox
   * lanes, src/rl/timeline.ts); executors that do not ignore it.
   */
  trace?: boolean;
}

/** Which pool worker ran a traced call, and when (wall-clock ms: performance.timeOrigin + now). */
export interface RanOn {
  /** The worker's slot in the pool, 0 to size - 1 (a replacement takes the slot it fills). */
  worker: number;
  startWallMs: number;
  endWallMs: number;
}

/**
 * One statement of a task's test source, split by src/tasks/tests_harness.ts; the statements run
 * in order in one namespace. `value`: `assert EXPR == VALUE`; Python evaluates only `expr`, and its
 * plain-data result is compared with `expected` in JavaScript. `statement`: any other assert (or a
 * compound statement holding one), run as statements: it passes when it raises nothing. `setup`: a
 * statement with no assert (`r = add(2, 3)`): it runs, binds names for the statements after it, and
 * is not a test.
 */
export type HiddenTest =
  | { kind: 'value'; expr: string; expected: PlainValue; literal?: string; source?: string }
  | { kind: 'statement'; source: string }
  | { kind: 'setup'; source: string };

/** A hidden test as the worker gets it: the expected value never enters the sandbox. */
export type JudgeProbe =
  | { kind: 'value'; expr: string; literal?: string }
  | { kind: 'statement'; source: string }
  | { kind: 'setup'; source: string };

/** One test's result as the worker reports it. */
export type RawTestResult =
  | { status: 'value'; value: EncodedValue }
  | { status: 'pass' }
  | { status: 'error'; error: string };

/** How one hidden test went. */
export interface TestVerdict {
  passed: boolean;
  /** Why it failed (the exception's type, `got [1, 2]`, `timed out`), null when it passed. */
  detail: string | null;
}

/** The verdict of a program against its hidden tests. */
export interface Judgement {
  /** The program's own run (its definitions, before the tests). */
  execution: ExecOutcome;
  /** One per hidden test, in order; all failed when the run timed out, crashed or was cut short. */
  tests: TestVerdict[];
  passed: number;
  total: number;
  /**
   * Tampering seen while the program and its tests ran (short reasons, deduplicated, e.g.
   * "redefines builtin exec"); a program with any scores 0 for tests whatever passed.
   */
  tampered: string[];
  /**
   * Where the judge could not keep Python's meaning (a program object compared by identity, an
   * argument change it could not carry back), in words; empty or absent when none. Shown with the
   * verdict.
   */
  limits?: string[];
  /** The deadline passed (the whole judgement shares one). */
  timedOut: boolean;
}

/** One program's run as the sandbox reports it: the outcome, and the details behind it. */
export interface ExecResult extends ExecOutcome {
  /** Tail of what went to stdout (`maxCaptureChars`). */
  stdout: string;
  /** Tail of what went to stderr, tracebacks included (`maxCaptureChars`). */
  stderr: string;
  /**
   * The worker was terminated (a runaway the interrupt could not stop, or a crash) and replaced.
   */
  terminated: boolean;
  /** Wall time from dispatch to a sandbox until the result, queue wait excluded. */
  durationMs: number;
  /** More output was produced than the tails kept. */
  truncated: boolean;
}

/** Counters and latencies the trainer shows (all since the pool was created). */
export interface SandboxMetrics {
  executions: number;
  /** Median and 95th percentile of `durationMs` over the recent executions. */
  medianExecMs: number;
  p95ExecMs: number;
  timeouts: number;
  /** Timeouts stopped by the interrupt buffer, the worker kept. */
  interrupts: number;
  /**
   * Interrupts raised again in a grace period because the first was read but did not end the run.
   */
  rearms: number;
  /** Workers terminated: runaways past the grace period plus crashes. */
  terminations: number;
  /** Workers whose Python runtime died (stack overflow, os.abort, worker error). */
  crashes: number;
  /** Workers retired healthy: every `recycleEvery` runs, memory over the cap, tainted state. */
  recycles: number;
  /** Workers started to replace retired ones. */
  respawns: number;
  /** Time from retiring a worker to its replacement taking work (≈0 with a warm spare). */
  lastRespawnMs: number | null;
  /** Median cold start (worker + Pyodide load + lockdown) of the workers started so far. */
  medianColdStartMs: number | null;
  /**
   * Median start of the workers restored from the first one's snapshot (restore + lockdown); null
   * when none was.
   */
  medianRestoreStartMs: number | null;
  queued: number;
  busy: number;
  idle: number;
  spares: number;
  /** Whether runaways are stopped by interrupt (SharedArrayBuffer) or only by terminate. */
  interruptible: boolean;
}

/** Options the main thread sends to a fresh worker. */
export interface SandboxInit {
  /** Int32 interrupt cell shared with the main thread; absent without SharedArrayBuffer. */
  interruptBuffer?: SharedArrayBuffer;
  maxOutputChars: number;
  maxCaptureChars: number;
  /** Hard cap on the wasm heap; growth past it fails inside Python as MemoryError. */
  memoryCapBytes: number;
  /** Where pyodide.asm.wasm and python_stdlib.zip live; the worker picks a default when absent. */
  indexURL?: string;
  /** Run the reachability audit of the lockdown (tests; costs a few hundred ms). */
  audit?: boolean;
  /**
   * A memory snapshot of a freshly loaded interpreter, made by another worker (`makeSnapshot`):
   * loading from it skips Python's start-up, a fraction of a cold start. The hardening and the
   * lockdown run after it as after a cold load.
   */
  snapshot?: Uint8Array;
  /**
   * Load cold and keep a memory snapshot of the fresh interpreter, taken before anything else runs,
   * for takeSnapshot().
   */
  makeSnapshot?: boolean;
  /**
   * Put the clean interpreter's memory image back before every run (memory_image.ts; default on):
   * no program runs where another ran. Off only to measure what it costs.
   */
  isolate?: boolean;
}

/** What a worker reports once Pyodide is loaded and locked down. */
export interface SandboxReady {
  loadMs: number;
  /**
   * Whether the interpreter was restored from another worker's snapshot rather than loaded cold.
   */
  fromSnapshot: boolean;
  lockdownMs: number;
  /** Loading the second, trusted interpreter that runs the tests (runner.ts loadTrusted). */
  trustedMs: number;
  memoryBytes: number;
  /** Globals removed from the worker scope before user code (fetch, WebSocket, …). */
  removedGlobals: string[];
  /** Findings of the reachability audit: empty means nothing dangerous was reachable. */
  audit: string[] | null;
  /** Objects the audit visited (a sanity check that it walked the graph at all). */
  auditVisited: number | null;
}

/** One execution as the worker reports it (the main thread adds timing and timeouts). */
export interface RawExecution {
  ok: boolean;
  error: ExecError | null;
  /** Tail of stdout+stderr in order (maxOutputChars). */
  combined: string;
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** The program saw a KeyboardInterrupt (our deadline signal). */
  interrupted: boolean;
  /** The Python runtime died; the worker must be replaced. */
  fatal: boolean;
  /** State could not be fully restored (or grew past limits); recycle the worker. */
  tainted: boolean;
  memoryBytes: number;
  /** Files and folders the program created, deleted after it ran. */
  filesRemoved: number;
}

/**
 * A judgement as the worker reports it: the program's run, one result per test it ran, tampering.
 */
export interface RawJudgement extends RawExecution {
  results: RawTestResult[];
  tampered: string[];
  /** Where Python's meaning could not be kept across the crossing, in words (python/trusted.py). */
  limits?: string[];
}

/** The runner a sandbox worker exposes (workers/sandbox.worker.ts). */
export interface SandboxRunnerApi {
  init(options: SandboxInit): Promise<SandboxReady>;
  execute(code: string): Promise<RawExecution>;
  /** Runs `code`, then each test in its namespace under the judge's protections (python/judge.py). */
  judge(code: string, tests: readonly JudgeProbe[]): Promise<RawJudgement>;
  /**
   * The snapshot init made (`makeSnapshot`), once; null when none was asked for or the engine could
   * not make one.
   */
  takeSnapshot(): Uint8Array | null;
}

/** A started worker: a comlink endpoint, a way to kill it, and news of its death. */
export interface SandboxWorkerHandle {
  endpoint: Endpoint;
  terminate(): void;
  /** Calls `listener` once if the worker dies on its own (uncaught error, out of memory, exit). */
  onDeath(listener: (reason: string) => void): void;
}

/**
 * Starts one sandbox worker: Node (worker_threads) and the browser (Web Worker) each supply one.
 */
export type SandboxWorkerFactory = () => SandboxWorkerHandle;
