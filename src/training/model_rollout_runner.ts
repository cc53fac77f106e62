// The rollout worker's own side: the episode loop over its copy of the policy, one job at a time,
// each generation round and sandbox call streamed as a span. The worker thread's service runs it
// (src/service/rollout_worker_service.ts); localRolloutSource runs it in this thread.
import type { CodeExecutor } from '../env/types.ts';
import type { CausalLM } from '../model/model.ts';
import { Rng } from '../model/rng.ts';
import { runEpisodes } from '../rl/episode_loop.ts';
import { modelSampler } from '../rl/policy.ts';
import { timedExecutor, type SpanKind } from '../rl/timeline.ts';
import type { Task } from '../tasks/task.ts';
import type { Tokenizer } from '../tokenizer/tokenizer.ts';
import {
  applyWeights,
  type RolloutJob,
  type RolloutOutcome,
  type RolloutRunner,
  type WeightSet,
} from './rollout_runner.ts';
import { wallNow, type SpanEvent } from './worker_spans.ts';

/** The rollout worker's own side: samples jobs with its model, streaming its spans. */
export class ModelRolloutRunner implements RolloutRunner {
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
