// What a rollout worker is asked to do, wherever it runs (a Web Worker in the page, a
// worker_threads thread in Node, this thread in tests): sample one step's episodes (a job) with the
// weights it was last sent. Plain data both ways, so the contract crosses a thread as it is.
import * as tf from '@tensorflow/tfjs';
import type { CausalLM } from '../model/model.ts';
import type { RngState } from '../model/rng.ts';
import type { EpisodeLoopOptions, EpisodeLoopTiming } from '../rl/episode_loop.ts';
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

/** When a test's kill lands: while the worker samples this step's job (else at once). */
export interface KillOptions {
  whileSampling?: number;
}

/** Runs rollout jobs, wherever the worker is (this thread, a worker thread, a Web Worker). */
export interface RolloutRunner {
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
