// Where an overlapped run's episodes come from (overlapped_trainer.ts): a rollout worker with its
// own copy of the policy, which samples step t+1's episodes while the trainer updates on step t.
// The worker is any RolloutRunner (rollout_runner.ts): a thread (RestartingRolloutWorkers over a
// Web Worker in the page, worker_threads in Node) or the same thread with a second model
// (`localRolloutSource`: the tests', with the same semantics and no parallelism).
//
// The queue is bounded at one job: the trainer asks for step t+1 only after step t's advantages,
// and the worker applies published weights only between jobs, so a batch is at most one update
// behind (its `policyVersion` says which) and the worker never samples from half-applied weights.
import { ModelRolloutRunner } from './model_rollout_runner.ts';
import type {
  KillOptions,
  RolloutJob,
  RolloutOutcome,
  RolloutRunner,
  WeightSet,
} from './rollout_runner.ts';
import { SpanLog, type WallSpan } from './worker_spans.ts';

/** The trainer's side of a rollout worker. */
export interface RolloutSource {
  /** Starts sampling `job` with the last published weights; at most one job is outstanding. */
  request(job: RolloutJob): void;
  /** The outcome of the outstanding job. */
  take(): Promise<RolloutOutcome>;
  /** Whether a job is outstanding (requested, not yet taken). */
  readonly pending: boolean;
  /** The weights after `version` updates; the worker applies them before its next job. */
  publish(version: number, weights: WeightSet): Promise<void>;
  /** Drops the outstanding job; its episodes count as dropped. */
  discard(): Promise<void>;
  /** Episodes sampled and then dropped (a failed step, a resume, a restarted worker). */
  readonly droppedTrajectories: number;
  /** Episodes the worker has sampled and handed over or dropped. */
  readonly sampledTrajectories: number;
  /** Counts episodes taken and then not trained on (a step that failed and was undone). */
  countDropped(trajectories: number): void;
  /** Spans the worker recorded that end after `sinceWallMs` (its rollout lane and sandbox slots). */
  spansSince(sinceWallMs: number): WallSpan[];
  close(): Promise<void>;
  /** Workers started so far (1 + restarts). */
  readonly workerStarts?: number;
  /** Ends the worker as a crash would (tests of the restart); see RolloutRunner.kill. */
  killWorker?(options?: KillOptions): Promise<void>;
}

/**
 * The trainer's side over any RolloutRunner: one outstanding job, and jobs and weight loads in the
 * order they were sent.
 */
export class QueuedRolloutSource implements RolloutSource {
  private dropped = 0;
  private sampled = 0;
  private chain: Promise<unknown> = Promise.resolve();
  private outstanding: {
    promise: Promise<RolloutOutcome>;
    dropped: boolean;
    size: number | null;
  } | null = null;

  constructor(
    private readonly runner: RolloutRunner,
    /** Where the runner's spans arrive. */
    readonly spans: SpanLog = new SpanLog(),
  ) {}

  get pending(): boolean {
    return this.outstanding !== null;
  }

  get droppedTrajectories(): number {
    return this.dropped;
  }

  get sampledTrajectories(): number {
    return this.sampled;
  }

  /** Counts episodes a worker was sampling when it died: sampled, and dropped. */
  countLost(trajectories: number): void {
    this.sampled += trajectories;
    this.dropped += trajectories;
  }

  countDropped(trajectories: number): void {
    this.dropped += trajectories;
  }

  request(job: RolloutJob): void {
    if (this.outstanding) throw new Error('the rollout queue holds one step; take it first');
    const entry = {
      promise: this.enqueue(() => this.runner.run(job)),
      dropped: false,
      size: null as number | null,
    };
    entry.promise.then(
      (outcome) => {
        entry.size = outcome.trajectories.length;
        this.sampled += entry.size;
        if (entry.dropped) this.dropped += entry.size;
      },
      () => {},
    );
    this.outstanding = entry;
  }

  async take(): Promise<RolloutOutcome> {
    const entry = this.outstanding;
    if (!entry) throw new Error('no rollout was requested');
    try {
      return await entry.promise;
    } finally {
      if (this.outstanding === entry) this.outstanding = null;
    }
  }

  publish(version: number, weights: WeightSet): Promise<void> {
    return this.enqueue(() => this.runner.load(version, weights));
  }

  async discard(): Promise<void> {
    const entry = this.outstanding;
    if (!entry) return;
    entry.dropped = true;
    this.outstanding = null;
    if (entry.size !== null) this.dropped += entry.size; // already sampled: count it now
    await entry.promise.catch(() => {});
  }

  spansSince(sinceWallMs: number): WallSpan[] {
    return this.spans.since(sinceWallMs);
  }

  /** Workers started so far (1 + restarts); 1 where the runner never restarts. */
  get workerStarts(): number {
    return this.runner.starts ?? 1;
  }

  /** Ends the worker as a crash would (tests); the next job starts another. */
  async killWorker(options?: KillOptions): Promise<void> {
    if (!this.runner.kill) throw new Error('this rollout worker cannot be killed and restarted');
    await this.runner.kill(options);
  }

  /** Resolves once every job and weight load sent so far has run (the worker is idle). */
  async settled(): Promise<void> {
    await this.chain.catch(() => {});
  }

  async close(): Promise<void> {
    await this.discard();
    await this.chain.catch(() => {});
    await this.runner.close();
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => {});
    return next;
  }
}

/** A rollout worker in this thread with its own model (tests; no parallelism). */
export function localRolloutSource(
  deps: Omit<ConstructorParameters<typeof ModelRolloutRunner>[0], 'onSpan'>,
): QueuedRolloutSource {
  const log = new SpanLog();
  return new QueuedRolloutSource(
    new ModelRolloutRunner({ ...deps, onSpan: (event) => log.add(event) }),
    log,
  );
}
