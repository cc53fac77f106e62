// The main-thread side of one sandbox worker: starts it, runs one program at a time, and enforces
// the deadline from outside (docs/architecture.md §1: "timeout enforced on the caller's side"). At
// the deadline it raises KeyboardInterrupt through the shared interrupt cell; if the program is
// still running after the grace period (time.sleep in C, one long C call, `except BaseException`),
// or there is no SharedArrayBuffer to interrupt with, the worker is terminated.
import { wrap, type Remote } from 'comlink';
import type {
  JudgeProbe,
  RawExecution,
  SandboxInit,
  SandboxReady,
  SandboxRunnerApi,
  SandboxWorkerFactory,
  SandboxWorkerHandle,
} from './types.ts';

/** How one run ended, before it becomes an ExecResult. */
export type SandboxOutcome =
  | { kind: 'done'; raw: RawExecution; durationMs: number }
  | { kind: 'interrupted'; raw: RawExecution; durationMs: number; rearms: number }
  | { kind: 'terminated'; durationMs: number; rearms: number }
  | { kind: 'crashed'; reason: string; durationMs: number };

/** Pyodide's code for SIGINT in the interrupt cell. */
const SIGINT = 2;

/**
 * How long an interrupt that Pyodide has read may go without ending the run before it is raised
 * again. Sometimes one is lost: Pyodide reads the cell (resetting it to 0) but no KeyboardInterrupt
 * reaches the program (2 busy loops in 40 ran on for the whole 8 s grace; cause not found). A
 * delivered interrupt ends the run within milliseconds, so 200 ms does not interrupt a run that is
 * already unwinding; a program that catches KeyboardInterrupt and carries on gets it again, which
 * is what the deadline wants anyway.
 */
const REARM_MS = 200;

let nextSandboxId = 1;

/** A timer that can be cancelled, so a settled race leaves nothing pending. */
function delay(ms: number): { promise: Promise<void>; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/** One worker with a locked-down Pyodide in it. */
export class Sandbox {
  readonly id = nextSandboxId++;
  executions = 0;
  private alive = true;
  private readonly death: Promise<string>;

  private constructor(
    private readonly handle: SandboxWorkerHandle,
    private readonly remote: Remote<SandboxRunnerApi>,
    private readonly interruptCell: Int32Array | null,
    readonly ready: SandboxReady,
    readonly coldStartMs: number,
    death: Promise<string>,
  ) {
    this.death = death;
  }

  /** Starts a worker and waits until its interpreter is locked down and ready. */
  static async start(
    factory: SandboxWorkerFactory,
    init: Omit<SandboxInit, 'interruptBuffer'>,
    options: { interrupts: boolean; startTimeoutMs: number },
  ): Promise<Sandbox> {
    const started = performance.now();
    const handle = factory();
    const death = new Promise<string>((resolve) => handle.onDeath(resolve));
    const remote = wrap<SandboxRunnerApi>(handle.endpoint);
    const buffer = options.interrupts ? new SharedArrayBuffer(4) : undefined;
    const timer = delay(options.startTimeoutMs);
    // Every branch resolves (never rejects), so the losers of the race cannot surface later as
    // unhandled rejections.
    const outcome = await Promise.race([
      remote.init({ ...init, ...(buffer ? { interruptBuffer: buffer } : {}) }).then(
        (ready) => ({ ready }),
        (error: unknown) => ({
          error: `sandbox worker failed to start: ${error instanceof Error ? error.message : String(error)}`,
        }),
      ),
      death.then((reason) => ({ error: `sandbox worker died while starting: ${reason}` })),
      timer.promise.then(() => ({
        error: `sandbox worker did not start within ${options.startTimeoutMs} ms`,
      })),
    ]);
    timer.cancel();
    if ('error' in outcome) {
      handle.terminate();
      throw new Error(outcome.error);
    }
    return new Sandbox(
      handle,
      remote,
      buffer ? new Int32Array(buffer) : null,
      outcome.ready,
      performance.now() - started,
      death,
    );
  }

  /**
   * The memory snapshot the worker made at start (`makeSnapshot`), once; null if none or the worker
   * is gone.
   */
  async takeSnapshot(): Promise<Uint8Array | null> {
    if (!this.alive) return null;
    return this.remote.takeSnapshot().catch(() => null);
  }

  /** Resolves with the reason when the worker dies on its own (not after terminate()). */
  whenDead(): Promise<string> {
    return this.death;
  }

  get interruptible(): boolean {
    return this.interruptCell !== null;
  }

  get isAlive(): boolean {
    return this.alive;
  }

  /** Runs one program with a deadline; never rejects for anything the program does. */
  run(code: string, timeoutMs: number, graceMs: number): Promise<SandboxOutcome> {
    return this.call((remote) => remote.execute(code), timeoutMs, graceMs);
  }

  /**
   * Judges one program against hidden tests (runner.ts `judge`) under the same deadline, interrupt
   * and termination as `run`: the deadline covers the program and all its tests. The outcome's raw
   * execution is a RawJudgement.
   */
  judge(
    code: string,
    tests: readonly JudgeProbe[],
    timeoutMs: number,
    graceMs: number,
  ): Promise<SandboxOutcome> {
    return this.call((remote) => remote.judge(code, tests), timeoutMs, graceMs);
  }

  private async call(
    invoke: (remote: Remote<SandboxRunnerApi>) => Promise<RawExecution>,
    timeoutMs: number,
    graceMs: number,
  ): Promise<SandboxOutcome> {
    this.executions += 1;
    const cell = this.interruptCell;
    // The worker is idle here, so clearing a late signal from the previous run is race-free.
    if (cell) Atomics.store(cell, 0, 0);
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    type Step =
      | { kind: 'done'; raw: RawExecution }
      | { kind: 'failed'; reason: string }
      | { kind: 'deadline' };
    const call: Promise<Step> = invoke(this.remote).then(
      (raw) => ({ kind: 'done' as const, raw }),
      (error: unknown) => ({
        kind: 'failed' as const,
        reason: error instanceof Error ? error.message : String(error),
      }),
    );
    const died: Promise<Step> = this.death.then((reason) => ({ kind: 'failed' as const, reason }));

    const deadline = delay(timeoutMs);
    const first = await Promise.race([
      call,
      died,
      deadline.promise.then(() => ({ kind: 'deadline' as const })),
    ]);
    deadline.cancel();
    if (first.kind === 'done') return { kind: 'done', raw: first.raw, durationMs: elapsed() };
    if (first.kind === 'failed') {
      this.terminate();
      return { kind: 'crashed', reason: first.reason, durationMs: elapsed() };
    }
    let rearms = 0;
    if (cell) {
      const raise = () => {
        Atomics.store(cell, 0, SIGINT);
        Atomics.notify(cell, 0);
      };
      raise();
      // Pyodide clears the cell when it reads it. Read, but still running REARM_MS later: the
      // KeyboardInterrupt was lost or caught by the program, so raise it again.
      const rearm = setInterval(() => {
        if (Atomics.load(cell, 0) === 0) {
          rearms += 1;
          raise();
        }
      }, REARM_MS);
      const grace = delay(graceMs);
      const second = await Promise.race([
        call,
        died,
        grace.promise.then(() => ({ kind: 'deadline' as const })),
      ]);
      grace.cancel();
      clearInterval(rearm);
      if (second.kind === 'done')
        return { kind: 'interrupted', raw: second.raw, durationMs: elapsed(), rearms };
    }
    this.terminate();
    return { kind: 'terminated', durationMs: elapsed(), rearms };
  }

  /** Kills the worker at once (a runaway, a crash, a recycle, or close). */
  terminate(): void {
    if (!this.alive) return;
    this.alive = false;
    this.handle.terminate();
  }
}
