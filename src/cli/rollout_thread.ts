// Node's rollout worker for an overlapped (`async`) run: workers/rollout.worker.ts in a
// worker_threads thread with its own copy of the policy, sharing this thread's sandbox pool. A
// worker that dies is started again, given the last published weights, and its job is run again;
// the episodes it was sampling count as dropped (QueuedRolloutSource.countDropped), so every
// episode is trained on or counted.
import { expose, wrap, type Remote } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { MessageChannel, Worker } from 'node:worker_threads';
import { BOOTSTRAP, tsxApiUrl } from '../env/node_pool.ts';
import type { CodeExecutor } from '../env/types.ts';
import {
  QueuedRolloutSource,
  SpanLog,
  type RolloutBackend,
  type RolloutJob,
  type RolloutOutcome,
  type SpanEvent,
  type WeightSet,
} from '../rl/rollout_source.ts';
import type { RunConfig } from '../run/config.ts';
import type { RolloutWorkerService } from '../service/rollout_worker.ts';

const workerFile = new URL('../../workers/rollout.worker.ts', import.meta.url).href;

/** How many times one job is retried on a fresh worker before the step fails. */
const RESTARTS_PER_JOB = 3;

interface Running {
  worker: Worker;
  remote: Remote<RolloutWorkerService>;
  /** Rejects when the worker exits or fails. */
  death: Promise<never>;
}

/** A RolloutBackend in a worker thread, restarted when it dies. */
export class ThreadRolloutBackend implements RolloutBackend {
  /** Workers started (1 + restarts). */
  starts = 0;
  private running: Running | null = null;
  private weights: { version: number; weights: WeightSet } | null = null;
  private closed = false;

  constructor(
    private readonly options: {
      config: RunConfig;
      /** The model's folder ('demo' and local models), or null for a hub id. */
      modelDir: string | null;
      executor: CodeExecutor;
      spans: SpanLog;
      threads: number | 'auto';
      /** Episodes a dead worker was sampling. */
      onLost: (trajectories: number) => void;
    },
  ) {}

  async load(version: number, weights: WeightSet): Promise<void> {
    this.weights = { version, weights };
    await this.attempt(async (r) => r.remote.load(version, weights), 'loading weights');
  }

  async run(job: RolloutJob): Promise<RolloutOutcome> {
    const size = job.taskIds.length * job.options.groupSize;
    return this.attempt(
      (r) => r.remote.run(job),
      `sampling step ${job.step}`,
      () => this.options.onLost(size),
    );
  }

  /** tf.memory().numTensors in the worker. */
  async numTensors(): Promise<number> {
    return this.attempt((r) => r.remote.numTensors(), 'counting tensors');
  }

  /** Ends the worker thread now, as a crash would (tests). */
  async kill(): Promise<void> {
    await this.running?.worker.terminate();
  }

  async close(): Promise<void> {
    this.closed = true;
    const running = this.running;
    this.running = null;
    await running?.worker.terminate();
  }

  /** Runs `call` on a live worker; a worker that dies meanwhile is replaced and `call` retried. */
  private async attempt<T>(
    call: (r: Running) => Promise<T>,
    what: string,
    onDeath: () => void = () => {},
  ): Promise<T> {
    let lastError: unknown = null;
    for (let tries = 0; tries <= RESTARTS_PER_JOB; tries++) {
      if (this.closed) throw new Error('the rollout worker is closed');
      const running = await this.ensure();
      try {
        return await Promise.race([call(running), running.death]);
      } catch (error) {
        if (!(error instanceof WorkerDied)) throw error;
        if (this.running === running) this.running = null;
        lastError = error;
        onDeath();
        process.stderr.write(
          `rollout worker died while ${what} (${(error as Error).message}); restarting it\n`,
        );
      }
    }
    throw new Error(
      `the rollout worker died ${RESTARTS_PER_JOB + 1} times while ${what}: ${(lastError as Error).message}`,
    );
  }

  /** The live worker, started (with the last published weights) if there is none. */
  private async ensure(): Promise<Running> {
    if (this.running) return this.running;
    this.starts++;
    const { config, modelDir, executor, spans, threads } = this.options;
    const executorChannel = new MessageChannel();
    const spanChannel = new MessageChannel();
    expose(
      { execute: (code: string, o?: { timeoutMs?: number }) => executor.execute(code, o) },
      nodeEndpoint(executorChannel.port1),
    );
    spanChannel.port1.on('message', (event: SpanEvent) => spans.add(event));
    spanChannel.port1.unref();
    executorChannel.port1.unref();
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: {
        tsxApi: tsxApiUrl(),
        workerFile,
        executor: executorChannel.port2,
        spans: spanChannel.port2,
        modelDir,
      },
      transferList: [executorChannel.port2, spanChannel.port2],
      stdout: true,
      stderr: true,
    });
    const forward = (chunk: Buffer) => {
      process.stderr.write(chunk);
    };
    worker.stdout.on('data', forward);
    worker.stderr.on('data', forward);
    const death = new Promise<never>((_, reject) => {
      worker.once('error', (error: Error) => reject(new WorkerDied(error.message)));
      worker.once('exit', (code: number) => reject(new WorkerDied(`it exited with code ${code}`)));
    });
    death.catch(() => {
      if (this.running?.worker === worker) this.running = null;
      spans.closeOpen();
      executorChannel.port1.close();
      spanChannel.port1.close();
    });
    const running: Running = {
      worker,
      remote: wrap<RolloutWorkerService>(nodeEndpoint(worker)),
      death,
    };
    this.running = running;
    await Promise.race([running.remote.init(config, threads), death]);
    if (this.weights)
      await Promise.race([running.remote.load(this.weights.version, this.weights.weights), death]);
    return running;
  }
}

class WorkerDied extends Error {}

/** The rollout source of an overlapped CLI run: a worker thread over this thread's sandbox pool. */
export function threadRolloutSource(options: {
  config: RunConfig;
  modelDir: string | null;
  executor: CodeExecutor;
  threads?: number | 'auto';
}): { source: QueuedRolloutSource; backend: ThreadRolloutBackend } {
  const spans = new SpanLog();
  let source: QueuedRolloutSource | null = null;
  const backend = new ThreadRolloutBackend({
    ...options,
    threads: options.threads ?? 'auto',
    spans,
    onLost: (n) => source?.countLost(n),
  });
  source = new QueuedRolloutSource(backend, spans);
  return { source, backend };
}
