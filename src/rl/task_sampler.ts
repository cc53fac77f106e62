// Which tasks a step's prompts come from. 'shuffle' visits every task once per epoch, in a seeded
// shuffled order (the reference design visits every task every step). 'learnable' is a curriculum
// in the spirit of prioritized replay and online difficulty filtering: a group whose rewards are
// all equal has zero advantages and teaches nothing, so after one shuffled pass over every task,
// tasks are drawn in proportion to the spread (standard deviation) of their last groups' rewards,
// plus a floor so a task that never succeeded is still revisited now and then.
import type { Rng } from '../model/rng.ts';
import type { GroupStats } from './advantage.ts';

/** How tasks are chosen for each step. */
export const TASK_SAMPLINGS = ['shuffle', 'learnable'] as const;
/** One of TASK_SAMPLINGS. */
export type TaskSampling = (typeof TASK_SAMPLINGS)[number];

/** Weight every visited task gets on top of its reward spread (in reward units). */
export const SIGNAL_FLOOR = 0.05;
/** Share of a new group's reward std in a task's signal (an exponential moving average). */
export const SIGNAL_BLEND = 0.5;

/**
 * What a checkpoint keeps of the sampler: the shuffled order, the place in it, each task's signal.
 */
export interface SamplerState {
  order: number[];
  cursor: number;
  /** Reward spread per task id (only tasks already visited). */
  signal: Record<string, number>;
}

/** A saved state as checkpoints hold it (those written before 'learnable' have no signals). */
export type SavedSamplerState = Omit<SamplerState, 'signal'> & { signal?: Record<string, number> };

/** Chooses the tasks of each step; `observe` feeds back the groups' reward spread. */
export class TaskSampler {
  private order: number[] = [];
  private cursor = 0;
  private signal = new Map<string, number>();

  constructor(
    private readonly taskIds: readonly string[],
    readonly sampling: TaskSampling,
  ) {}

  /** Indexes into the task list of `count` distinct tasks (fewer if there are fewer tasks). */
  next(count: number, rng: Rng): number[] {
    const want = Math.min(count, this.taskIds.length);
    const chosen: number[] = [];
    const learnable = this.sampling === 'learnable';
    // 'shuffle' always walks the order; 'learnable' walks it only until every task has a signal.
    while (
      chosen.length < want &&
      (!learnable || this.signal.size + chosen.length < this.taskIds.length)
    ) {
      if (this.cursor >= this.order.length) this.reshuffle(rng);
      const index = this.order[this.cursor++]!;
      if (!chosen.includes(index) && !(learnable && this.signal.has(this.taskIds[index]!)))
        chosen.push(index);
    }
    while (chosen.length < want) chosen.push(this.draw(chosen, rng));
    return chosen;
  }

  /**
   * Records each group's reward spread under its task (learnable mode reads it; shuffle ignores
   * it).
   */
  observe(groups: readonly GroupStats[]): void {
    for (const g of groups) {
      const old = this.signal.get(g.taskId);
      this.signal.set(
        g.taskId,
        old === undefined ? g.std : (1 - SIGNAL_BLEND) * old + SIGNAL_BLEND * g.std,
      );
    }
  }

  /** The current signal of each visited task (for metrics and tests). */
  signals(): ReadonlyMap<string, number> {
    return this.signal;
  }

  /** A copy of the state, for checkpoints. */
  save(): SamplerState {
    return { order: [...this.order], cursor: this.cursor, signal: Object.fromEntries(this.signal) };
  }

  /** Restores what save() returned (a checkpoint without signals starts them afresh). */
  load(state: SavedSamplerState): void {
    this.order = [...state.order];
    this.cursor = state.cursor;
    this.signal = new Map(
      Object.entries(state.signal ?? {}).filter(
        ([id, v]) => this.taskIds.includes(id) && Number.isFinite(v),
      ),
    );
  }

  private reshuffle(rng: Rng): void {
    this.order = this.taskIds.map((_, i) => i);
    for (let i = this.order.length - 1; i > 0; i--) {
      const j = Math.floor(rng.uniform() * (i + 1));
      [this.order[i], this.order[j]] = [this.order[j]!, this.order[i]!];
    }
    this.cursor = 0;
  }

  /** One task not in `taken`, with probability proportional to its signal plus the floor. */
  private draw(taken: readonly number[], rng: Rng): number {
    const weights = this.taskIds.map((id, i) =>
      taken.includes(i) ? 0 : (this.signal.get(id) ?? 0) + SIGNAL_FLOOR,
    );
    const total = weights.reduce((a, b) => a + b, 0);
    let u = rng.uniform() * total;
    for (let i = 0; i < weights.length; i++) {
      u -= weights[i]!;
      if (u < 0 && weights[i]! > 0) return i;
    }
    for (let i = weights.length - 1; i >= 0; i--) if (weights[i]! > 0) return i; // rounding left u a hair above 0
    throw new Error('TaskSampler: no task left to draw');
  }
}
