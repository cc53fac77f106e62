// The overlapped (`async`) Trainer: a rollout worker (rollout_source.ts) samples step t+1's
// episodes while this thread updates on step t, as in veRL's and AReaL's asynchronous GRPO.
//
// - Step t+1's tasks and Rng stream are drawn as the update of step t begins: after step t's
//   advantages (which the `learnable` task sampler observes), with nothing drawing from the Rng in
//   between, so every step's tasks and streams are those of the synchronous loop and step 1's
//   samples are identical to it.
// - After each update the trainer publishes its trainable weights (the LoRA adapters; every weight
//   in full fine-tuning); the worker applies them between jobs, so a batch is at most one update
//   stale (`staleness` 0 or 1) and never sampled from half-applied weights. The loss's ratio uses
//   the behaviour policy's rollout-time log-probs (`Trajectory.oldLogprobs`), which is what makes
//   a stale batch's update correct.
// - The cursor a checkpoint or an undo saves is the one from before the outstanding request, and
//   going back to it drops that request (counted in `droppedTrajectories`): the next step draws
//   the same tasks again, from the weights as they are then.
import type { RngState } from '../model/rng.ts';
import { readWeights } from './rollout_runner.ts';
import type { RolloutSource } from './rollout_source.ts';
import type { StepState } from './step_state.ts';
import type { SamplerState, SavedSamplerState } from '../rl/task_sampler.ts';
import { timelineFigures, type StepTimeline } from '../rl/timeline.ts';
import { Trainer, type TrainerDeps, type TrainerSettings } from './trainer.ts';
import type { StepMetrics } from '../rl/types.ts';

type Cursor = { rng: RngState } & SamplerState;

/** An overlapped run's episode accounting (the CLI's summary line, the page's run panel). */
export interface AsyncAccounting {
  workers_started: number;
  episodes_sampled: number;
  episodes_trained: number;
  episodes_dropped: number;
}

/**
 * Yields to the event loop so messages already queued (the worker's spans) are handled: Node runs
 * port messages in its poll phase, before setImmediate's check phase (a timer can come first).
 */
async function letMessagesIn(): Promise<void> {
  const later = (globalThis as { setImmediate?: (f: () => void) => void }).setImmediate;
  for (let hop = 0; hop < 2; hop++)
    await new Promise<void>((resolve) => (later ? later(resolve) : setTimeout(resolve, 0)));
}

/** A Trainer whose rollouts come from a rollout worker, overlapped with its updates. */
export class OverlappedTrainer extends Trainer {
  /** Episodes trained on (the other side of `source.droppedTrajectories`). */
  trainedEpisodes = 0;
  /** The cursor from before the outstanding request, while one is outstanding. */
  private beforeRequest: Cursor | null = null;
  /** The update count whose weights the worker has (-1: none sent). */
  private published = -1;
  private behaviourVersion = 0;
  private publishing: Promise<void> = Promise.resolve();
  /** The accounting at the last metrics line (its per-step differences go on the next). */
  private reported: AsyncAccounting = {
    workers_started: 1,
    episodes_sampled: 0,
    episodes_trained: 0,
    episodes_dropped: 0,
  };
  /** The step whose episodes were last counted as trained (an evaluation after it may still fail). */
  private counted: StepState | null = null;

  constructor(
    deps: TrainerDeps,
    settings: TrainerSettings,
    readonly source: RolloutSource,
  ) {
    super(deps, settings);
  }

  override saveCursor(): Cursor {
    return this.beforeRequest ?? super.saveCursor();
  }

  override loadCursor(saved: { rng: RngState } & SavedSamplerState): void {
    super.loadCursor(saved);
    this.dropRequest();
    this.published = -1; // a restore may have changed the weights: send them again
  }

  /** Every sampled episode is trained on or dropped; and the rollout workers started (1 + restarts). */
  accounting(): AsyncAccounting {
    return {
      workers_started: this.source.workerStarts ?? 1,
      episodes_sampled: this.source.sampledTrajectories,
      episodes_trained: this.trainedEpisodes,
      episodes_dropped: this.source.droppedTrajectories,
    };
  }

  /** Frees the optimizer and stops the rollout worker. */
  async close(): Promise<void> {
    this.dropRequest();
    await this.source.close();
    this.dispose();
  }

  protected override async rolloutPhase(state: StepState): Promise<void> {
    this.enterPhase('rollout', state);
    // step 1, or the step after an undo or a restore: nothing was asked for it yet
    if (!this.source.pending) await this.request(state.start.step + 1);
    const outcome = await state.timeline.time('trainer', 'waiting', async () => {
      await this.publishing;
      return this.source.take();
    });
    this.beforeRequest = null;
    state.trajectories = outcome.trajectories;
    state.timing = outcome.timing;
    this.behaviourVersion = outcome.policyVersion;
  }

  protected override async updatePhase(state: StepState): Promise<StepMetrics> {
    const next = state.start.step + 2;
    // sampled while this update runs; none past the run's last step (settings.finalStep)
    if (next <= (this.settings.finalStep ?? Number.POSITIVE_INFINITY)) await this.request(next);
    const metrics = await super.updatePhase(state);
    // the worker's spans reach this thread as messages, which a busy update leaves queued: let
    // them in, then add the ones that fell within this step's wall time
    await letMessagesIn();
    metrics.timeline = this.withWorkerSpans(state, metrics.timeline!);
    Object.assign(metrics, timelineFigures(metrics.timeline));
    metrics.staleness = state.start.step - this.behaviourVersion;
    const now = this.accounting();
    metrics.rollout_restarts = now.workers_started - this.reported.workers_started;
    metrics.episodes_dropped = now.episodes_dropped - this.reported.episodes_dropped;
    this.reported = now;
    this.trainedEpisodes += state.trajectories.length;
    this.counted = state;
    await this.publish();
    return metrics;
  }

  protected override undoStep(state: StepState, error: unknown): unknown {
    // the step's episodes are not trained on; loadCursor drops the outstanding request's
    if (this.counted === state) this.trainedEpisodes -= state.trajectories.length;
    this.counted = null;
    this.source.countDropped(state.trajectories.length);
    const result = super.undoStep(state, error);
    this.published = -1;
    return result;
  }

  /** The step's timeline with the worker's spans that fell within it. */
  private withWorkerSpans(state: StepState, own: StepTimeline): StepTimeline {
    const origin = performance.timeOrigin + state.timeline.originMs;
    const spans = [...own.spans];
    for (const s of this.source.spansSince(origin)) {
      const start = Math.max(0, (s.startWallMs - origin) / 1000);
      const end = Math.min(own.seconds_wall, (s.endWallMs - origin) / 1000);
      if (end > start) spans.push({ lane: s.lane, kind: s.kind, start, end });
    }
    return { seconds_wall: own.seconds_wall, spans };
  }

  /** Asks the worker for `step`'s episodes, drawing its tasks and stream now. */
  private async request(step: number): Promise<void> {
    if (this.source.pending) return;
    await this.publish();
    const cursor = super.saveCursor();
    const tasks = this.nextTasks();
    const rng = this.rng.split();
    this.source.request({
      step,
      taskIds: tasks.map((t) => t.id),
      rng: rng.state(),
      options: { ...this.episodeLoopOptions(), step },
    });
    this.beforeRequest = cursor;
  }

  /** Sends the weights after `this.step` updates, unless the worker has them. */
  private async publish(): Promise<void> {
    if (this.published === this.step) return;
    const version = this.step;
    const weights = await readWeights(this.deps.model);
    this.published = version;
    // applied by the worker between jobs; the next take() waits for it
    this.publishing = this.source.publish(version, weights);
  }

  private dropRequest(): void {
    this.beforeRequest = null;
    void this.source.discard();
  }
}
