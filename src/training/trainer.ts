// The Trainer: rollout -> reward -> advantage -> update -> metrics, one step at a time, with each
// phase callable on its own (the page's phase stepper) and the whole step as their composition.
// The phases are the algorithm's (src/rl/: the episode loop, rewards, advantages, the update);
// what is the Trainer's own is running them: a failed step undone whole (step_rollback.ts), out of
// memory said as what to change (out_of_memory.ts), and the hook through which tests make a step
// fail (StepFaults).
import { guardWasmHeap } from '../kernels/tfjs/heap_guard.ts';
import { AdamW, defaultAdamWConfig } from '../model/adamw.ts';
import type { CausalLM } from '../model/model.ts';
import { Rng, type RngState } from '../model/rng.ts';
import { scoreTrajectory, type RewardSettings } from '../rl/rewards.ts';
import type { Task } from '../tasks/task.ts';
import type { Tokenizer } from '../tokenizer/tokenizer.ts';
import { assignAdvantages, trainable } from '../rl/advantage.ts';
import { stepMetrics } from '../rl/metrics.ts';
import {
  TaskSampler,
  type SamplerState,
  type SavedSamplerState,
  type TaskSampling,
} from '../rl/task_sampler.ts';
import { modelSampler } from '../rl/policy.ts';
import { runEpisodes, type EpisodeLoopDeps, type EpisodeLoopOptions } from '../rl/episode_loop.ts';
import { PHASES, type EvalReport, type Phase, type PhaseReport } from './reports.ts';
import type { StepMetrics, Trajectory } from '../rl/types.ts';
import type { CodeExecutor } from '../env/types.ts';
import { outOfMemoryError, type MemoryPhase } from './out_of_memory.ts';
import { loadTrainable, saveTrainable, TensorScope } from './step_rollback.ts';
import { newStepState, type StepState } from './step_state.ts';
import {
  referenceLogprobs,
  update,
  type Reference,
  type UpdateOptions,
  type UpdateReport,
} from '../rl/update.ts';

/** Everything a run needs to know, resolved from RunConfig (src/run/resolve.ts resolveRun). */
export interface TrainerSettings {
  tasks: readonly Task[];
  evalTasks: readonly Task[];
  /** Prompts per step (each sampled rollout.groupSize times). */
  promptsPerStep: number;
  /** How those prompts are chosen (src/rl/task_sampler.ts); default 'shuffle'. */
  taskSampling?: TaskSampling;
  /** How each step's episodes are sampled, handed to the episode loop as they are (plus the step). */
  rollout: Omit<EpisodeLoopOptions, 'step'>;
  rewards: RewardSettings;
  skipZeroStdGroups: boolean;
  update: Omit<UpdateOptions, 'maxTokens'>;
  weightDecay: number;
  seed: number;
  /** Held-out pass@1 after every N-th step (0: never). */
  evalEvery: number;
  /** The run's last step: an overlapped trainer samples no episodes past it (absent: no end). */
  finalStep?: number;
}

/** The model side of a run. */
export interface TrainerDeps {
  model: CausalLM;
  tokenizer: Tokenizer;
  executor: CodeExecutor;
  /** Where KL reference log-probs come from (adapters off for LoRA; a frozen copy in full mode). */
  reference: Reference;
}

/**
 * Failures made to happen at named points of a step: the hook through which tests make a step run
 * out of memory (test/helpers/allocation_faults.ts). A run has none.
 */
export interface StepFaults {
  /**
   * As `phase` of step `step` begins. It may throw, as a failed allocation would, or take memory
   * the phase then lacks; `optimizer` is what the update writes.
   */
  beforePhase?(at: { step: number; phase: MemoryPhase; optimizer: AdamW }): void;
  /** As a failed step is caught, before it is undone: gives back what beforePhase took. */
  afterFailure?(): void;
}

/** Runs GRPO steps over a model, a tokenizer and a sandbox. */
export class Trainer {
  step = 0;
  readonly history: StepMetrics[] = [];
  readonly evals: EvalReport[] = [];
  readonly optimizer: AdamW;
  rng: Rng;
  private readonly taskSampler: TaskSampler;
  protected state: StepState | null = null;
  /** Where in the step the trainer is (for the out-of-memory message). */
  private memoryPhase: MemoryPhase = 'rollout';
  /** Why the trainer cannot go on (a failed step could not be undone), or null. */
  damaged: string | null = null;
  /** Failures to make happen (tests: StepFaults); none in a run. */
  faults: StepFaults = {};

  constructor(
    protected readonly deps: TrainerDeps,
    readonly settings: TrainerSettings,
  ) {
    if (settings.tasks.length === 0)
      throw new Error('no training tasks. Fix: choose a task set or add a custom task.');
    this.optimizer = new AdamW(deps.model.trainableVariables(), {
      ...defaultAdamWConfig,
      learningRate: settings.update.learningRate,
      weightDecay: settings.weightDecay,
    });
    this.rng = new Rng(settings.seed);
    this.taskSampler = new TaskSampler(
      settings.tasks.map((t) => t.id),
      settings.taskSampling ?? 'shuffle',
    );
  }

  /** The phase the next runPhase() call runs. */
  get nextPhase(): Phase {
    return this.state?.next ?? 'rollout';
  }

  /**
   * Runs one phase of the current step. A failed phase undoes the whole step (weights, optimizer,
   * task cursor, RNG) and frees its tensors; out of memory throws an OutOfMemoryError that says
   * where and what to change (out_of_memory.ts). The next call starts the step again.
   */
  async runPhase(): Promise<PhaseReport> {
    if (this.damaged) throw new Error(this.damaged);
    guardWasmHeap();
    const state = this.state ?? this.startStep();
    const phase = state.next;
    let metrics: StepMetrics | null = null;
    const scope = new TensorScope();
    try {
      if (phase === 'rollout') await this.rolloutPhase(state);
      else if (phase === 'reward') await this.rewardPhase(state);
      else if (phase === 'advantage') this.advantagePhase(state);
      else {
        metrics = await this.updatePhase(state);
        const { evalEvery } = this.settings;
        if (evalEvery > 0 && this.step % evalEvery === 0 && this.settings.evalTasks.length > 0) {
          this.enterPhase('evaluation', state);
          metrics.eval_pass_at_1 = (await this.evaluate()).passAt1;
        }
      }
    } catch (error) {
      this.faults.afterFailure?.();
      scope.abort([this.deps.model, this.deps.reference, this.optimizer]);
      throw this.undoStep(state, error);
    }
    scope.close();
    const report: PhaseReport = {
      step: this.step + (metrics ? 0 : 1),
      phase,
      trajectories: state.trajectories,
      groups: state.groups,
      metrics,
    };
    if (metrics) this.state = null;
    else state.next = PHASES[PHASES.indexOf(phase) + 1]!;
    return report;
  }

  /** Runs the rest of the current step; `onPhase` sees each phase's report. */
  async runStep(onPhase?: (report: PhaseReport) => void): Promise<StepMetrics> {
    for (;;) {
      const report = await this.runPhase();
      onPhase?.(report);
      if (report.metrics) return report.metrics;
    }
  }

  /**
   * Pass@1 over `tasks` (default: the eval tasks), `samples` samples each at the run's temperature
   * (or `temperature`: 0 is greedy, one sample says all), no update.
   */
  async evaluate(
    tasks: readonly Task[] = this.settings.evalTasks,
    samples = 1,
    seed = this.settings.seed + 1_000_003,
    temperature = this.settings.rollout.temperature,
  ): Promise<EvalReport> {
    if (!Number.isInteger(samples) || samples < 1)
      throw new Error(`evaluate: samples must be a whole number >= 1, got ${samples}`);
    if (!(temperature >= 0))
      throw new Error(`evaluate: temperature must be >= 0 (0 is greedy), got ${temperature}`);
    if (tasks.length === 0) return { step: this.step, passAt1: 0, perTask: {} };
    guardWasmHeap();
    const result = await runEpisodes(tasks, this.episodeLoopDeps(new Rng(seed)), {
      ...this.episodeLoopOptions(),
      groupSize: samples,
      temperature,
    });
    const scored = await Promise.all(result.trajectories.map((t) => this.score(t, tasks)));
    const perTask: Record<string, number> = {};
    for (const task of tasks) {
      const mine = scored.filter((t) => t.taskId === task.id);
      perTask[task.id] = mine.filter((t) => t.passed).length / Math.max(mine.length, 1);
    }
    const passAt1 = scored.filter((t) => t.passed).length / scored.length;
    const rewardMean = scored.reduce((sum, t) => sum + t.reward, 0) / scored.length;
    const report = { step: this.step, passAt1, perTask, rewardMean };
    this.evals.push(report);
    return report;
  }

  /** The RNG state and the task sampler's state, for checkpoints. */
  saveCursor(): { rng: RngState } & SamplerState {
    return { rng: this.rng.state(), ...this.taskSampler.save() };
  }

  /** Restores what saveCursor() returned. */
  loadCursor(saved: { rng: RngState } & SavedSamplerState): void {
    this.rng = new Rng(saved.rng);
    this.taskSampler.load(saved);
    this.state = null;
  }

  /** Frees the optimizer state (the model belongs to the caller). */
  dispose(): void {
    this.optimizer.dispose();
  }

  private startStep(): StepState {
    const start = { step: this.step, cursor: this.saveCursor(), history: this.history.length };
    this.state = newStepState({ ...start, evals: this.evals.length });
    return this.state;
  }

  /** This step's `promptsPerStep` tasks, as the task sampler chooses them. */
  protected nextTasks(): Task[] {
    return this.taskSampler
      .next(this.settings.promptsPerStep, this.rng)
      .map((i) => this.settings.tasks[i]!);
  }

  /** The rollout's parts; with a step's timeline, its rounds and executions are recorded on it. */
  private episodeLoopDeps(rng: Rng, state?: StepState): EpisodeLoopDeps {
    const { executor } = this.deps;
    const timeline = state?.timeline;
    return {
      sampler: modelSampler(this.deps.model),
      tokenizer: this.deps.tokenizer,
      executor: timeline ? timeline.executor(executor, 'sandbox') : executor,
      rng,
      ...(timeline ? { record: (kind, a, b) => timeline.add('rollout', kind, a, b) } : {}),
    };
  }

  protected episodeLoopOptions(): EpisodeLoopOptions {
    // the episode loop builds the tool registry, its system prompt and parser from rollout.tools
    return { ...this.settings.rollout, step: this.step + 1 };
  }

  /** Marks where the step is, for the out-of-memory message (and the faults' hook). */
  protected enterPhase(phase: MemoryPhase, state: StepState): void {
    this.memoryPhase = phase;
    this.faults.beforePhase?.({ step: state.start.step + 1, phase, optimizer: this.optimizer });
  }

  /**
   * Puts the run back as it stood before the failed step and returns the error to throw: an
   * OutOfMemoryError where it was about memory, else `error` itself.
   */
  protected undoStep(state: StepState, error: unknown): unknown {
    const { start } = state;
    let restored = true;
    try {
      this.loadCursor(start.cursor);
      this.step = start.step;
      this.history.length = start.history;
      this.evals.length = start.evals;
      if (start.trainable)
        loadTrainable(start.trainable, this.deps.model.trainableVariables(), this.optimizer);
    } catch (undoError) {
      restored = false;
      this.damaged =
        `step ${start.step + 1} failed and could not be undone (${(undoError as Error).message}). ` +
        'Fix: reload the page (or rerun the command), then resume from the last checkpoint.';
    }
    this.state = null;
    const oom = outOfMemoryError(error, {
      step: start.step + 1,
      phase: this.memoryPhase,
      settings: {
        ...this.settings.rollout,
        promptsPerStep: this.settings.promptsPerStep,
        microBatchSize: this.settings.update.microBatchSize,
      },
      restored,
    });
    return oom ?? error;
  }

  protected async rolloutPhase(state: StepState): Promise<void> {
    this.enterPhase('rollout', state);
    const tasks = this.nextTasks();
    const deps = this.episodeLoopDeps(this.rng.split(), state);
    const result = await state.timeline.time('trainer', 'waiting', () =>
      runEpisodes(tasks, deps, this.episodeLoopOptions()),
    );
    state.trajectories = result.trajectories;
    state.timing = result.timing;
  }

  private async score(
    trajectory: Trajectory,
    tasks: readonly Task[],
    executor: CodeExecutor = this.deps.executor,
  ): Promise<Trajectory> {
    const task = tasks.find((t) => t.id === trajectory.taskId);
    if (!task)
      throw new Error(`trajectory ${trajectory.id} names unknown task ${trajectory.taskId}`);
    return scoreTrajectory(trajectory, task, this.settings.rewards, executor);
  }

  private async rewardPhase(state: StepState): Promise<void> {
    this.enterPhase('reward', state);
    const started = performance.now();
    const executor = state.timeline.executor(this.deps.executor, 'reward');
    state.trajectories = await state.timeline.time('trainer', 'reward', () =>
      Promise.all(state.trajectories.map((t) => this.score(t, this.settings.tasks, executor))),
    );
    state.rewardSeconds = (performance.now() - started) / 1000;
  }

  private advantagePhase(state: StepState): void {
    this.enterPhase('advantage', state);
    const result = assignAdvantages(state.trajectories, {
      skipZeroStdGroups: this.settings.skipZeroStdGroups,
    });
    state.trajectories = result.trajectories;
    state.groups = result.groups;
    this.taskSampler.observe(result.groups);
  }

  protected async updatePhase(state: StepState): Promise<StepMetrics> {
    const started = performance.now();
    const { model } = this.deps;
    const options: UpdateOptions = {
      ...this.settings.update,
      maxTokens: this.settings.rollout.maxNewTokens * this.settings.rollout.maxTurns,
    };
    const batch = trainable(state.trajectories, state.groups ?? []);
    let report: UpdateReport;
    if (batch.length === 0) {
      report = {
        loss: null,
        kl: null,
        clipFraction: null,
        ratioMean: null,
        gradNorm: null,
        entropy: null,
        skipped: 'every group was skipped or prefix-broken',
      };
    } else {
      const sequences = batch.map((t) => ({
        ids: t.ids,
        actionMask: t.actionMask,
        advantage: t.advantage,
        oldLogprobs: t.oldLogprobs,
      }));
      this.enterPhase('reference', state);
      state.start.trainable = await saveTrainable(model.trainableVariables(), this.optimizer);
      const ref = await referenceLogprobs(model, this.deps.reference, sequences, options);
      if (ref)
        batch.forEach((t, i) => {
          t.refLogprobs = ref[i]!;
        });
      this.enterPhase('update', state);
      report = await update(model, this.optimizer, sequences, ref, options);
    }
    state.timeline.add('trainer', 'update', started);
    this.step++;
    const metrics = stepMetrics({
      timeline: state.timeline.finish(),
      step: this.step,
      trajectories: state.trajectories,
      groups: state.groups ?? [],
      update: { ...report, trainedTrajectories: batch.length },
      decodeSteps: state.timing.decodeSteps,
      seconds: {
        generate: state.timing.generateSeconds,
        sandbox: state.timing.sandboxSeconds + state.rewardSeconds,
        train: (performance.now() - started) / 1000,
      },
    });
    this.history.push(metrics);
    return metrics;
  }
}
