// A rollout worker that is started again when it dies, wherever it runs (a worker_threads thread
// in the CLI: src/cli/rollout_worker_thread.ts; a Web Worker in the page:
// workers/trainer.worker.ts). The new worker gets the last published weights, and the job the
// dead one was running is run again from the start; the episodes it was sampling count as dropped
// (`onLost`), so every episode is trained on or counted. A job that kills its worker
// RESTARTS_PER_JOB + 1 times fails the step.
import type {
  KillOptions,
  RolloutRunner,
  RolloutJob,
  RolloutOutcome,
  WeightSet,
} from './rollout_runner.ts';

/** How many times one job is retried on a fresh worker before the step fails. */
export const RESTARTS_PER_JOB = 3;

/** What a rollout worker answers (RolloutWorkerService's calls, across a thread). */
export interface RolloutWorkerCalls {
  load(version: number, weights: WeightSet): Promise<void>;
  run(job: RolloutJob): Promise<RolloutOutcome>;
  numTensors(): Promise<number>;
}

/** A started, initialised worker. */
export interface StartedWorker {
  calls: RolloutWorkerCalls;
  /** Rejects with WorkerDied when the worker exits, fails or is killed. */
  death: Promise<never>;
  /** Ends it now, as a crash would. */
  kill(): Promise<void>;
  /** Ends it for good (the run is over). */
  close(): Promise<void>;
}

/** The worker is gone (crashed, exited, killed). */
export class WorkerDied extends Error {}

/** A RolloutRunner over workers that `start` makes, restarted when one dies. */
export class RestartingRolloutWorkers implements RolloutRunner {
  /** Workers started (1 + restarts). */
  starts = 0;
  private running: StartedWorker | null = null;
  private starting: Promise<StartedWorker> | null = null;
  private weights: { version: number; weights: WeightSet } | null = null;
  private closed = false;
  /** The job the live worker is sampling now, or null. */
  private sampling: { step: number } | null = null;
  /** Called once a dead worker's job has been counted lost and its restart begun. */
  private deathSeen: (() => void)[] = [];
  /** A kill asked for a step not yet being sampled: done as that step's job is sent. */
  private armed: { step: number; done: () => void; failed: (error: unknown) => void } | null = null;

  constructor(
    private readonly options: {
      /** Starts and initialises a worker (its `death` settles once, when it dies). */
      start(): Promise<StartedWorker>;
      /** Episodes a dead worker was sampling. */
      onLost(trajectories: number): void;
      /** Says that a worker died and is being restarted (stderr in the CLI, the console in the page). */
      warn(message: string): void;
    },
  ) {}

  async load(version: number, weights: WeightSet): Promise<void> {
    this.weights = { version, weights };
    await this.attempt((w) => w.calls.load(version, weights), 'loading weights');
  }

  async run(job: RolloutJob): Promise<RolloutOutcome> {
    const size = job.taskIds.length * job.options.groupSize;
    return this.attempt(
      async (w) => {
        const outcome = w.calls.run(job);
        const sampling = { step: job.step };
        this.sampling = sampling;
        const armed = this.armed;
        if (armed?.step === job.step) {
          this.armed = null;
          this.deathSeen.push(armed.done);
          w.kill().catch(armed.failed);
        }
        try {
          return await outcome;
        } finally {
          if (this.sampling === sampling) this.sampling = null;
        }
      },
      `sampling step ${job.step}`,
      () => this.options.onLost(size),
    );
  }

  /** Starts the worker now (a run's first step does not wait for it; one that cannot start says so). */
  async start(): Promise<void> {
    await this.ensure();
  }

  /** tf.memory().numTensors in the worker. */
  async numTensors(): Promise<number> {
    return this.attempt((w) => w.calls.numTensors(), 'counting tensors');
  }

  /**
   * Ends the live worker as a crash would (tests); the next call starts another. With
   * `whileSampling`, the kill lands while the worker is sampling that step's job, whatever the
   * timing: at once if it is sampling it now, else as the job is sent to it. So a test knows which
   * job the kill cost, on a fast machine or a slow one; it resolves once that job's episodes are
   * counted lost and its restart has begun.
   */
  async kill(options: KillOptions = {}): Promise<void> {
    const step = options.whileSampling;
    if (step === undefined) {
      await this.running?.kill();
      return;
    }
    if (this.sampling?.step === step && this.running) {
      const seen = new Promise<void>((done) => this.deathSeen.push(done));
      await this.running.kill();
      await seen;
      return;
    }
    if (this.armed) throw new Error(`a kill is already waiting for step ${this.armed.step}`);
    await new Promise<void>((done, failed) => {
      this.armed = { step, done, failed };
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.armed?.failed(new Error('the run closed before the kill could land'));
    this.armed = null;
    const running = this.running ?? (await this.starting?.catch(() => null));
    this.running = null;
    await running?.close();
  }

  /** Runs `call` on a live worker; a worker that dies meanwhile is replaced and `call` retried. */
  private async attempt<T>(
    call: (worker: StartedWorker) => Promise<T>,
    what: string,
    onDeath: () => void = () => {},
  ): Promise<T> {
    let lastError: unknown = null;
    for (let tries = 0; tries <= RESTARTS_PER_JOB; tries++) {
      if (this.closed) throw new Error('the rollout worker is closed');
      const worker = await this.ensure();
      try {
        return await Promise.race([call(worker), worker.death]);
      } catch (error) {
        if (!(error instanceof WorkerDied)) throw error;
        if (this.running === worker) this.running = null;
        lastError = error;
        onDeath();
        this.options.warn(`rollout worker died while ${what} (${error.message}); restarting it`);
        for (const seen of this.deathSeen.splice(0)) seen();
      }
    }
    throw new Error(
      `the rollout worker died ${RESTARTS_PER_JOB + 1} times while ${what}: ${(lastError as Error).message}`,
    );
  }

  /** The live worker, started (and given the last published weights) if there is none. */
  private async ensure(): Promise<StartedWorker> {
    if (this.running) return this.running;
    if (!this.starting) this.starting = this.startOne().finally(() => (this.starting = null));
    return this.starting;
  }

  private async startOne(): Promise<StartedWorker> {
    this.starts++;
    const worker = await this.options.start();
    worker.death.catch(() => {
      if (this.running === worker) this.running = null;
    });
    if (this.weights)
      await Promise.race([
        worker.calls.load(this.weights.version, this.weights.weights),
        worker.death,
      ]);
    this.running = worker;
    if (this.closed) await worker.close();
    return worker;
  }
}
