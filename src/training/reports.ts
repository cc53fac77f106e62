// What the trainer reports as a step runs: its phases, what each produced, and held-out
// evaluations. Plain data (no tensors), so it crosses the worker boundary as it is
// (src/service/trainer_api.ts).
import type { GroupStats } from '../rl/advantage.ts';
import type { StepMetrics, Trajectory } from '../rl/types.ts';

/** The four phases of one step, in order (the phase stepper stops after each). */
export const PHASES = ['rollout', 'reward', 'advantage', 'update'] as const;

/** One of the PHASES. */
export type Phase = (typeof PHASES)[number];

/** What a phase produced. `trajectories` is the step's records as they stand after the phase. */
export interface PhaseReport {
  step: number;
  phase: Phase;
  trajectories: Trajectory[];
  /** After `advantage`. */
  groups: GroupStats[] | null;
  /** After `update`. */
  metrics: StepMetrics | null;
  /**
   * The text of every token of each trajectory, by trajectory id (the viewer shades the action mask
   * per token).
   */
  tokenTexts?: Record<string, string[]>;
}

/** Held-out evaluation result. */
export interface EvalReport {
  step: number;
  passAt1: number;
  perTask: Record<string, number>;
  /** Mean reward of the evaluated episodes (partial rewards count), when measured. */
  rewardMean?: number;
}
