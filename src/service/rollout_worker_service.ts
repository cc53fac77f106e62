// The rollout worker's service (workers/rollout.worker.ts exposes it): loads its own copy of the
// policy for a run config and samples the jobs an overlapped trainer sends it
// (src/training/overlapped_trainer.ts). What differs by environment (the tensor backend, where
// model files come from) is injected, as in trainer_service.ts.
import * as tf from '@tensorflow/tfjs';
import type { CodeExecutor } from '../env/types.ts';
import { CausalLM } from '../model/model.ts';
import type { ModelSource } from '../model_files/source.ts';
import { ModelRolloutRunner } from '../training/model_rollout_runner.ts';
import type { RolloutJob, RolloutOutcome, WeightSet } from '../training/rollout_runner.ts';
import type { SpanEvent } from '../training/worker_spans.ts';
import type { RunConfig } from '../run/config.ts';
import { resolveRun } from '../run/resolve.ts';
import { loadTokenizer } from '../tokenizer/tokenizer.ts';

/** What the worker's shell supplies. */
export interface RolloutWorkerDeps {
  /** Starts the tensor backend with this many matmul threads. */
  selectBackend(threads: number | 'auto'): Promise<unknown>;
  /** The files of the run's model. */
  source(model: string): ModelSource;
  /** The trainer's sandbox pool, shared (calls cross back to the trainer's thread). */
  executor: CodeExecutor;
  /** Where the worker's spans go (the trainer's timeline). */
  onSpan(event: SpanEvent): void;
}

/** The rollout worker: one model, one job at a time. */
export class RolloutWorkerService {
  private runner: ModelRolloutRunner | null = null;
  private model: CausalLM | null = null;

  constructor(private readonly deps: RolloutWorkerDeps) {}

  /** Loads the config's model and tokenizer (the weights come with the first load()). */
  async init(config: RunConfig, threads: number | 'auto'): Promise<void> {
    await this.deps.selectBackend(threads);
    const source = this.deps.source(config.model);
    const tokenizer = await loadTokenizer(source);
    const run = resolveRun(config);
    this.model = await CausalLM.load(source, { training: run.training });
    this.runner = new ModelRolloutRunner({
      model: this.model,
      tokenizer,
      executor: this.deps.executor,
      tasks: run.trainer.tasks,
      onSpan: (event) => this.deps.onSpan(event),
    });
  }

  async load(version: number, weights: WeightSet): Promise<void> {
    await this.require().load(version, weights);
  }

  async run(job: RolloutJob): Promise<RolloutOutcome> {
    return this.require().run(job);
  }

  /** tf.memory().numTensors in this worker (steady from job to job). */
  async numTensors(): Promise<number> {
    return tf.memory().numTensors;
  }

  private require(): ModelRolloutRunner {
    if (!this.runner) throw new Error('the rollout worker is not initialised: call init() first');
    return this.runner;
  }
}
