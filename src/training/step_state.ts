// What the Trainer keeps while a step is under way (trainer.ts): the run as it stood when the step
// began (what a failed step is undone to), the step's records so far, and its timeline.
import type { RngState } from '../model/rng.ts';
import type { GroupStats } from '../rl/advantage.ts';
import type { Phase } from './reports.ts';
import type { EpisodeLoopTiming } from '../rl/episode_loop.ts';
import type { TrainableState } from './step_rollback.ts';
import type { SamplerState } from '../rl/task_sampler.ts';
import { TimelineRecorder } from '../rl/timeline.ts';
import type { Trajectory } from '../rl/types.ts';

/** The run as it stood when a step began (what a failed step is undone to). */
export interface StepStart {
  step: number;
  cursor: { rng: RngState } & SamplerState;
  history: number;
  evals: number;
  /** The trainable weights and optimizer state, saved as the update begins. */
  trainable: TrainableState | null;
}

/** A step under way. */
export interface StepState {
  next: Phase;
  start: StepStart;
  trajectories: Trajectory[];
  groups: GroupStats[] | null;
  timing: EpisodeLoopTiming;
  rewardSeconds: number;
  /** The step's spans (src/rl/timeline.ts), from the step's start. */
  timeline: TimelineRecorder;
}

/** A fresh step's state. */
export function newStepState(start: Omit<StepStart, 'trainable'>): StepState {
  return {
    next: 'rollout',
    start: { ...start, trainable: null },
    trajectories: [],
    groups: null,
    rewardSeconds: 0,
    timing: { generateSeconds: 0, sandboxSeconds: 0, generatedTokens: 0, decodeSteps: 0 },
    timeline: new TimelineRecorder(),
  };
}
