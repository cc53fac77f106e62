// A pool of N sandboxes (docs/architecture.md §1) so episodes execute in parallel. Calls queue
// first come, first served. A worker that is terminated, crashes, or is due for recycling is
// replaced from a pre-warmed spare, so nobody waits for a cold Pyodide start (seconds) in the
// common case; a new spare then warms in the background. Only pool-level failures reject (closed
// pool, workers that cannot start at all); everything a program does comes back as an ExecResult.
//
// The first workers (`firstReady`, default `size`) load Pyodide cold, side by side, one leaving a
// memory snapshot of its fresh interpreter that every later worker restores (or all restore one
// an earlier pool made: browser_pool.ts). Start times are in docs/sandbox.md. A call asked with
// `trace` says which worker slot ran it and when (the timeline's sandbox lanes).
import { toExecResult } from './exec_result.ts';
import { toJudgement, toProbes } from './judgement.ts';
import { PoolTallies } from './metrics.ts';
import { Sandbox, type SandboxOutcome } from './sandbox.ts';
import {
  checkPositive,
  settingsFrom,
  type SandboxPoolOptions,
  type Settings,
} from './pool_settings.ts';
import type {
  CallOptions,
  ExecResult,
  HiddenTest,
  Judgement,
  RanOn,
  SandboxMetrics,
  SandboxReady,
  SandboxWorkerFactory,
} from './types.ts';

export type { SandboxPoolOptions } from './pool_settings.ts';

/** A queued call: a program to execute, or a program to judge against hidden tests. */
interface Job {
  timeoutMs: number;
  run: (sandbox: Sandbox, graceMs: number) => Promise<SandboxOutcome>;
  settle: (outcome: SandboxOutcome, ranOn: RanOn) => void;
  reject: (error: Error) => void;
}

/** Start attempts in a row that may fail before queued calls are rejected. */
const MAX_START_FAILURES = 3;

/** N locked-down Pyodide workers behind one fair queue. */
export class SandboxPool {
  private readonly idle: Sandbox[] = [];
  private readonly spareSandboxes: Sandbox[] = [];
  /** Sandboxes running a program, with the call they serve (close() settles those calls). */
  private readonly busy = new Map<Sandbox, Job>();
  /** Each active worker's slot (RanOn.worker): the lowest free when it first runs a call. */
  private readonly slots = new Map<Sandbox, number>();
  private readonly queue: Job[] = [];
  private readonly tallies = new PoolTallies();
  /** When each retired worker left, oldest first, to time its replacement. */
  private readonly retiredAt: number[] = [];
  private starting = 0;
  private latestReady: SandboxReady | null = null;
  private startFailures = 0;
  private broken: Error | null = null;
  private closed = false;
  private readonly spareWaiters: Array<() => void> = [];
  /** The snapshot workers start from (~30 MB), while snapshots are in use. */
  private snapshot: Uint8Array | null = null;
  private snapshotAsked = false;
  /** The snapshot given at creation, from an earlier pool. */
  private given: Uint8Array | null = null;
  private onSnapshot: ((snapshot: Uint8Array) => void) | null = null;

  private constructor(
    private readonly settings: Settings,
    private readonly factory: SandboxWorkerFactory,
  ) {}

  /**
   * Starts `firstReady` (default `size`) sandboxes side by side and resolves when they are ready,
   * one of them keeping its snapshot; then starts the rest and the spares from it in the
   * background.
   */
  static async create(options: SandboxPoolOptions): Promise<SandboxPool> {
    if (typeof options?.workerFactory !== 'function') {
      throw new Error(
        'SandboxPool.create needs a workerFactory: use createNodeSandboxPool() in Node or createBrowserSandboxPool() in the page',
      );
    }
    const pool = new SandboxPool(settingsFrom(options), options.workerFactory);
    if (pool.settings.snapshots && options.snapshot) pool.snapshot = pool.given = options.snapshot;
    pool.onSnapshot = options.onSnapshot ?? null;
    const started = await Promise.allSettled(
      Array.from({ length: pool.settings.firstReady }, () => pool.startSandbox()),
    );
    const failure = started.find(
      (entry): entry is PromiseRejectedResult => entry.status === 'rejected',
    );
    if (failure) {
      for (const entry of started) if (entry.status === 'fulfilled') entry.value.terminate();
      await pool.close();
      throw failure.reason instanceof Error ? failure.reason : new Error(String(failure.reason));
    }
    for (const entry of started) {
      if (entry.status !== 'fulfilled') continue;
      pool.tallyStart(entry.value);
      pool.idle.push(entry.value);
      void entry.value.whenDead().then(() => pool.forget(entry.value));
    }
    pool.replenish();
    return pool;
  }

  /**
   * Runs one program in a fresh namespace; resolves with its ExecResult, whatever the program does.
   */
  execute(code: string, options: CallOptions = {}): Promise<ExecResult & { ranOn?: RanOn }> {
    if (typeof code !== 'string')
      return Promise.reject(
        new Error(`SandboxPool.execute: code must be a string, got ${typeof code}`),
      );
    return this.enqueue('execute', options, (resolve: (result: ExecResult) => void, timeoutMs) => ({
      run: (sandbox, graceMs) => sandbox.run(code, timeoutMs, graceMs),
      settle: (outcome, ranOn) => resolve(traced(toExecResult(outcome, timeoutMs), options, ranOn)),
    }));
  }

  /**
   * Judges `code` against hidden tests (docs/sandbox.md "The judge"): the program runs, then each
   * test in its namespace under the judge's protections; value tests are compared here with their
   * expected values, which never reach the worker. Same queue, deadline (one for the program and
   * all its tests), interrupt and replacement as execute(); a timeout fails every test.
   */
  judge(
    code: string,
    tests: readonly HiddenTest[],
    options: CallOptions = {},
  ): Promise<Judgement & { ranOn?: RanOn }> {
    if (typeof code !== 'string')
      return Promise.reject(
        new Error(`SandboxPool.judge: code must be a string, got ${typeof code}`),
      );
    if (!Array.isArray(tests))
      return Promise.reject(new Error('SandboxPool.judge: tests must be a list'));
    const probes = toProbes(tests);
    return this.enqueue('judge', options, (resolve: (result: Judgement) => void, timeoutMs) => ({
      run: (sandbox, graceMs) => sandbox.judge(code, probes, timeoutMs, graceMs),
      settle: (outcome, ranOn) =>
        resolve(traced(toJudgement(outcome, tests, timeoutMs), options, ranOn)),
    }));
  }

  private enqueue<T>(
    name: string,
    options: CallOptions,
    job: (resolve: (result: T) => void, timeoutMs: number) => Pick<Job, 'run' | 'settle'>,
  ): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`SandboxPool.${name}: the pool is closed`));
    if (this.broken) return Promise.reject(this.broken);
    let timeoutMs: number;
    try {
      timeoutMs = checkPositive('timeoutMs', options.timeoutMs ?? this.settings.timeoutMs);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ timeoutMs, reject, ...job(resolve, timeoutMs) });
      this.pump();
    });
  }

  /** Counters, latencies and the state of the workers. */
  metrics(): SandboxMetrics {
    return {
      ...this.tallies.counts(),
      queued: this.queue.length,
      busy: this.busy.size,
      idle: this.idle.length,
      spares: this.spareSandboxes.length,
      interruptible: this.settings.interrupts,
    };
  }

  /**
   * What the most recently started worker reported: load and lockdown times, removed globals,
   * audit.
   */
  lastReady(): SandboxReady | null {
    return this.latestReady;
  }

  /** Resolves once the configured number of spares is warm (benchmarks and tests). */
  whenSparesReady(): Promise<void> {
    if (this.closed || this.spareSandboxes.length >= this.settings.spares) return Promise.resolve();
    return new Promise((resolve) => this.spareWaiters.push(resolve));
  }

  /** Terminates every worker; queued calls reject. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.queue.splice(0))
      job.reject(new Error('SandboxPool closed before the program ran'));
    for (const [sandbox, job] of this.busy) {
      job.reject(new Error('SandboxPool closed while the program ran'));
      sandbox.terminate();
    }
    for (const sandbox of [...this.idle, ...this.spareSandboxes]) sandbox.terminate();
    this.idle.length = 0;
    this.spareSandboxes.length = 0;
    this.snapshot = null;
    for (const resolve of this.spareWaiters.splice(0)) resolve();
  }

  /**
   * Starts one worker: from the snapshot when there is one; the first (snapshots on) cold, keeping
   * its snapshot. A restore of the pool's own snapshot that fails ends the use of snapshots, and
   * the worker is started cold; one of a snapshot given at creation is replaced by one made here.
   */
  private async startSandbox(): Promise<Sandbox> {
    const s = this.settings;
    const init = {
      maxOutputChars: s.maxOutputChars,
      maxCaptureChars: s.maxCaptureChars,
      memoryCapBytes: s.memoryCapBytes,
      audit: s.audit,
      isolate: s.isolate,
    };
    const options = { interrupts: s.interrupts, startTimeoutMs: s.startTimeoutMs };
    const snapshot = this.snapshot;
    if (snapshot) {
      try {
        return await Sandbox.start(this.factory, { ...init, snapshot }, options);
      } catch {
        if (this.snapshot === snapshot) this.snapshot = null;
        if (snapshot !== this.given) return Sandbox.start(this.factory, init, options);
      }
    }
    const makeSnapshot = s.snapshots && !this.snapshotAsked;
    this.snapshotAsked ||= makeSnapshot;
    const sandbox = await Sandbox.start(
      this.factory,
      { ...init, ...(makeSnapshot ? { makeSnapshot } : {}) },
      options,
    );
    if (makeSnapshot && !this.closed) {
      this.snapshot = await sandbox.takeSnapshot();
      if (this.snapshot) {
        try {
          this.onSnapshot?.(this.snapshot);
        } catch {
          /* keeping it is the caller's business */
        }
      }
    }
    return sandbox;
  }

  /** Counts a started worker's start time (cold or restored) and keeps what it reported. */
  private tallyStart(sandbox: Sandbox): void {
    (sandbox.ready.fromSnapshot ? this.tallies.restoreStartsMs : this.tallies.coldStartsMs).push(
      sandbox.coldStartMs,
    );
    this.latestReady = sandbox.ready;
  }

  /** Starts workers until active + spare + starting covers size + spares. */
  private replenish(): void {
    if (this.closed || this.broken) return;
    const have = this.idle.length + this.busy.size + this.spareSandboxes.length + this.starting;
    for (let i = have; i < this.settings.size + this.settings.spares; i++) {
      this.starting += 1;
      this.startSandbox().then(
        (sandbox) => {
          this.starting -= 1;
          this.startFailures = 0;
          this.place(sandbox);
        },
        (error: unknown) => {
          this.starting -= 1;
          this.onStartFailure(error);
        },
      );
    }
  }

  /** A freshly started worker: fill an empty active slot first, else keep it as a spare. */
  private place(sandbox: Sandbox): void {
    if (this.closed) {
      sandbox.terminate();
      return;
    }
    // A worker that dies while idle or spare (out of memory, killed) is dropped and replaced; one
    // that dies while busy is handled by its run's outcome.
    void sandbox.whenDead().then(() => this.forget(sandbox));
    this.tallyStart(sandbox);
    if (this.idle.length + this.busy.size < this.settings.size) this.activate(sandbox);
    else this.spareSandboxes.push(sandbox);
    if (this.spareSandboxes.length >= this.settings.spares)
      for (const resolve of this.spareWaiters.splice(0)) resolve();
    this.pump();
  }

  private forget(sandbox: Sandbox): void {
    const idleAt = this.idle.indexOf(sandbox);
    const spareAt = this.spareSandboxes.indexOf(sandbox);
    if (idleAt < 0 && spareAt < 0) return;
    if (idleAt >= 0) this.idle.splice(idleAt, 1);
    if (spareAt >= 0) this.spareSandboxes.splice(spareAt, 1);
    sandbox.terminate();
    this.slots.delete(sandbox);
    this.tallies.crashes += 1;
    this.tallies.terminations += 1;
    if (idleAt >= 0) this.retire(sandbox);
    else this.replenish();
  }

  private activate(sandbox: Sandbox): void {
    const retired = this.retiredAt.shift();
    if (retired !== undefined) {
      this.tallies.respawns += 1;
      this.tallies.lastRespawnMs = performance.now() - retired;
    }
    this.idle.push(sandbox);
  }

  private onStartFailure(error: unknown): void {
    this.startFailures += 1;
    if (this.closed) return;
    if (this.startFailures < MAX_START_FAILURES) {
      setTimeout(() => this.replenish(), 500 * this.startFailures);
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    this.broken = new Error(`SandboxPool: sandbox workers fail to start (${message})`);
    for (const job of this.queue.splice(0)) job.reject(this.broken);
  }

  /** Hands queued programs to idle sandboxes, oldest call first. */
  private pump(): void {
    while (!this.closed && this.queue.length > 0 && this.idle.length > 0) {
      const sandbox = this.idle.shift()!;
      const job = this.queue.shift()!;
      void this.dispatch(sandbox, job);
    }
  }

  private async dispatch(sandbox: Sandbox, job: Job): Promise<void> {
    this.busy.set(sandbox, job);
    const worker = this.slotOf(sandbox);
    const startWallMs = performance.timeOrigin + performance.now();
    const outcome = await job.run(sandbox, this.settings.graceMs);
    const ranOn = { worker, startWallMs, endWallMs: performance.timeOrigin + performance.now() };
    this.busy.delete(sandbox);
    this.tallies.record(outcome);
    if (this.closed) sandbox.terminate();
    else if (this.mustRetire(sandbox, outcome)) this.retire(sandbox);
    else this.idle.push(sandbox);
    job.settle(outcome, ranOn);
    this.pump();
  }

  private slotOf(sandbox: Sandbox): number {
    let slot = this.slots.get(sandbox);
    if (slot === undefined) {
      const used = new Set(this.slots.values());
      for (slot = 0; used.has(slot); slot++);
      this.slots.set(sandbox, slot);
    }
    return slot;
  }

  private mustRetire(sandbox: Sandbox, outcome: SandboxOutcome): boolean {
    if (!sandbox.isAlive || outcome.kind === 'terminated' || outcome.kind === 'crashed')
      return true;
    const raw = outcome.raw;
    if (raw.fatal) return true;
    const due = this.settings.recycleEvery > 0 && sandbox.executions >= this.settings.recycleEvery;
    if (raw.tainted || due || raw.memoryBytes > this.settings.memoryCapBytes / 2) {
      this.tallies.recycles += 1;
      return true;
    }
    return false;
  }

  /** Terminates a worker, swaps in a warm spare if there is one, and starts a replacement. */
  private retire(sandbox: Sandbox): void {
    sandbox.terminate();
    this.slots.delete(sandbox);
    this.retiredAt.push(performance.now());
    const spare = this.spareSandboxes.shift();
    if (spare) this.activate(spare);
    this.replenish();
  }
}

/** The result, with where it ran when the call asked (`trace`). */
function traced<T extends object>(
  result: T,
  options: CallOptions,
  ranOn: RanOn,
): T & { ranOn?: RanOn } {
  return options.trace ? { ...result, ranOn } : result;
}
