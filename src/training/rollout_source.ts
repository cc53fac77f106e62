// Where an overlapped run's episodes come from (src/training/overlapped_trainer.ts): a rollout worker with
// its own copy of the policy, which samples step t+1's episodes while the trainer updates on step t.
// The contract is plain data (jobs, weights, spans), so the worker can be a thread (a Web Worker in
// the page, worker_threads in Node) or, as here, the same thread with a second model
// (`localRolloutSource`: the tests', with the same semantics and no parallelism).
//
// The queue is bounded at one job: the trainer asks for step t+1 only after step t's advantages,
// and the worker applies published weights only between jobs, so a batch is at most one update
// behind (its `policyVersion` says which) and the worker never samples from half-applied weights.
import * as tf from '@tensorflow/tfjs';
import type { CodeExecutor } from '../env/types.ts';
import type { CausalLM } from '../model/model.ts';
import { Rng, type RngState } from '../model/rng.ts';
import type { Task } from '../tasks/task.ts';
import type { Tokenizer } from '../tokenizer/tokenizer.ts';
import { modelSampler } from '../rl/policy.ts';
import {
  runEpisodes,
  type EpisodeLoopOptions,
  type EpisodeLoopTiming,
} from '../rl/episode_loop.ts';
import { timedExecutor, type SpanKind } from '../rl/timeline.ts';
import type { Trajectory } from '../rl/types.ts';

/** One step's episodes to sample. */
export interface RolloutJob {
  step: number;
  /** The tasks' ids, in the order the trainer's task sampler chose them. */
  taskIds: string[];
  /** The state of the Rng the rollout splits its episodes' streams from. */
  rng: RngState;
  options: EpisodeLoopOptions;
}

/** A span in wall-clock milliseconds (performance.timeOrigin + performance.now()). */
export interface WallSpan {
  lane: string;
  kind: SpanKind;
  startWallMs: number;
  endWallMs: number;
}

/** A sampled step. */
export interface RolloutOutcome {
  step: number;
  trajectories: Trajectory[];
  timing: EpisodeLoopTiming;
  /** How many updates the weights that sampled it had seen (the behaviour policy). */
  policyVersion: number;
}

/** Trainable weights by variable name (LoRA adapters, or every weight in full fine-tuning). */
export type WeightSet = Record<string, { shape: number[]; data: Float32Array }>;

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
  /** Ends the worker as a crash would (tests of the restart); see RolloutBackend.kill. */
  killWorker?(options?: KillOptions): Promise<void>;
}

/** Wall-clock milliseconds, comparable across threads. */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Copies a model's trainable variables out as plain arrays. */
export async function readWeights(model: CausalLM): Promise<WeightSet> {
  const out: WeightSet = {};
  for (const [name, variable] of model.trainableVariables())
    out[name] = { shape: [...variable.shape], data: (await variable.data()) as Float32Array };
  return out;
}

/** Assigns published weights to a model's trainable variables (all of them, or none). */
export async function applyWeights(model: CausalLM, weights: WeightSet): Promise<void> {
  const variables = model.trainableVariables();
  for (const [name, w] of Object.entries(weights)) {
    const variable = variables.get(name);
    if (!variable || variable.shape.join() !== w.shape.join())
      throw new Error(`the rollout worker's model has no variable ${name} of shape ${w.shape}`);
  }
  for (const [name, w] of Object.entries(weights)) {
    const value = tf.tensor(w.data, w.shape);
    variables.get(name)!.assign(value);
    value.dispose();
  }
}

/** A span opening (`endWallMs` null) or closing, as the worker streams them. */
export interface SpanEvent extends Omit<WallSpan, 'endWallMs'> {
  id: number;
  endWallMs: number | null;
}

/** Keeps streamed spans; one still open counts as running until now. */
export class SpanLog {
  private readonly spans = new Map<number, SpanEvent>();

  /** Records an opening or a closing. */
  add(event: SpanEvent): void {
    this.spans.set(event.id, event);
  }

  /** Ends every open span now (its worker died). */
  closeOpen(now = wallNow()): void {
    for (const s of this.spans.values()) if (s.endWallMs === null) s.endWallMs = now;
  }

  /** Spans that end after `sinceWallMs` (open ones end now); those over a minute older go. */
  since(sinceWallMs: number, now = wallNow()): WallSpan[] {
    const out: WallSpan[] = [];
    for (const [id, s] of this.spans) {
      const end = s.endWallMs ?? now;
      if (s.endWallMs !== null && end < sinceWallMs - 60_000) this.spans.delete(id);
      else if (end > sinceWallMs) out.push({ ...s, endWallMs: end });
    }
    return out;
  }
}

/** When a test's kill lands: while the worker samples this step's job (else at once). */
export interface KillOptions {
  whileSampling?: number;
}

/** What a rollout worker does, wherever it runs (this thread, a worker thread, a Web Worker). */
export interface RolloutBackend {
  /** Applies the weights after `version` updates. */
  load(version: number, weights: WeightSet): Promise<void>;
  /** Samples one job with the current weights. */
  run(job: RolloutJob): Promise<RolloutOutcome>;
  close(): Promise<void>;
  /** Workers started so far (1 + restarts), where workers are restarted. */
  readonly starts?: number;
  /**
   * Ends the worker as a crash would (tests), where workers are restarted; with `whileSampling`,
   * while it samples that step's job (at once if it is, else as the job is sent).
   */
  kill?(options?: KillOptions): Promise<void>;
}

/** The rollout worker's own side: samples jobs with its model, streaming its spans. */
export class RolloutWorkerCore implements RolloutBackend {
  version = 0;
  /** Span ids: a random start per worker, so a restarted worker's never meet a dead one's. */
  private nextId = Math.floor(Math.random() * 2 ** 31) * 2 ** 20;

  constructor(
    private readonly deps: {
      model: CausalLM;
      tokenizer: Tokenizer;
      executor: CodeExecutor;
      tasks: readonly Task[];
      /** Sees every span open and close (the trainer's timeline). */
      onSpan?: (event: SpanEvent) => void;
    },
  ) {}

  async load(version: number, weights: WeightSet): Promise<void> {
    await applyWeights(this.deps.model, weights);
    this.version = version;
  }

  async run(job: RolloutJob): Promise<RolloutOutcome> {
    const byId = new Map(this.deps.tasks.map((t) => [t.id, t]));
    const tasks = job.taskIds.map((id) => {
      const task = byId.get(id);
      if (!task) throw new Error(`the rollout worker has no task ${id}`);
      return task;
    });
    const version = this.version;
    const sampler = modelSampler(this.deps.model);
    const result = await runEpisodes(
      tasks,
      {
        sampler: {
          maxPositions: sampler.maxPositions,
          sample: (contexts, rngs, options) =>
            this.span('rollout', 'generate', () => sampler.sample(contexts, rngs, options)),
          release: () => sampler.release?.(),
          forget: (ids) => sampler.forget?.(ids),
        },
        tokenizer: this.deps.tokenizer,
        executor: this.slots(this.deps.executor),
        rng: new Rng(job.rng),
        record: (kind, a, b) => {
          if (kind === 'waiting') this.emitClosed('rollout', kind, a, b);
        },
      },
      job.options,
    );
    return { step: job.step, ...result, policyVersion: version };
  }

  async close(): Promise<void> {}

  private emitClosed(lane: string, kind: SpanKind, startMs: number, endMs: number): void {
    const origin = performance.timeOrigin;
    this.deps.onSpan?.({
      id: this.nextId++,
      lane,
      kind,
      startWallMs: origin + startMs,
      endWallMs: origin + endMs,
    });
  }

  private async span<T>(lane: string, kind: SpanKind, work: () => Promise<T>): Promise<T> {
    const event: SpanEvent = {
      id: this.nextId++,
      lane,
      kind,
      startWallMs: wallNow(),
      endWallMs: null,
    };
    this.deps.onSpan?.({ ...event });
    try {
      return await work();
    } finally {
      this.deps.onSpan?.({ ...event, endWallMs: wallNow() });
    }
  }

  /** The executor with each execution on the lane of the pool worker that ran it (timedExecutor). */
  private slots(inner: CodeExecutor): CodeExecutor {
    return timedExecutor(inner, 'sandbox', {
      now: () => performance.now(),
      busySlots: [],
      add: (lane, kind, startMs, endMs) => this.emitClosed(lane, kind, startMs, endMs),
    });
  }
}

/**
 * The trainer's side over any RolloutBackend: one outstanding job, and jobs and weight loads in the
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
    private readonly backend: RolloutBackend,
    /** Where the backend's spans arrive. */
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
      promise: this.enqueue(() => this.backend.run(job)),
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
    return this.enqueue(() => this.backend.load(version, weights));
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

  /** Workers started so far (1 + restarts); 1 where the backend never restarts. */
  get workerStarts(): number {
    return this.backend.starts ?? 1;
  }

  /** Ends the worker as a crash would (tests); the next job starts another. */
  async killWorker(options?: KillOptions): Promise<void> {
    if (!this.backend.kill) throw new Error('this rollout worker cannot be killed and restarted');
    await this.backend.kill(options);
  }

  /** Resolves once every job and weight load sent so far has run (the worker is idle). */
  async settled(): Promise<void> {
    await this.chain.catch(() => {});
  }

  async close(): Promise<void> {
    await this.discard();
    await this.chain.catch(() => {});
    await this.backend.close();
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => {});
    return next;
  }
}

/** A rollout worker in this thread with its own model (tests; no parallelism). */
export function localRolloutSource(
  deps: Omit<ConstructorParameters<typeof RolloutWorkerCore>[0], 'onSpan'>,
): QueuedRolloutSource {
  const log = new SpanLog();
  return new QueuedRolloutSource(
    new RolloutWorkerCore({ ...deps, onSpan: (event) => log.add(event) }),
    log,
  );
}
