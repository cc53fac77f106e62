// Node's rollout worker for an overlapped (`async`) run: workers/rollout.worker.ts in a
// worker_threads thread with its own copy of the policy, sharing the run's sandbox pool (on a port
// of its own when the pool has a thread of its own: pool_host.ts). A worker that dies is started
// again (src/training/restarting_rollout_workers.ts), so every episode is trained on or counted as
// dropped.
import { expose, wrap } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { tsWorker } from '../env/node_pool.ts';
import { executorLine } from '../env/pool_host.ts';
import type { CodeExecutor } from '../env/types.ts';
import {
  RestartingRolloutWorkers,
  WorkerDied,
  type StartedWorker,
} from '../training/restarting_rollout_workers.ts';
import { QueuedRolloutSource } from '../training/rollout_source.ts';
import { SpanLog, type SpanEvent } from '../training/worker_spans.ts';
import type { RunConfig } from '../run/config.ts';
import type { RolloutWorkerService } from '../service/rollout_worker_service.ts';

const workerFile = new URL('../../workers/rollout.worker.ts', import.meta.url).href;

/** Starts one rollout worker thread and initialises it for the run. */
async function startThread(options: {
  config: RunConfig;
  modelDir: string | null;
  executor: CodeExecutor;
  spans: SpanLog;
  threads: number | 'auto';
}): Promise<StartedWorker> {
  const { config, modelDir, executor, spans, threads } = options;
  const line = await executorLine<MessagePort>(executor, (calls, port) => {
    expose(calls, nodeEndpoint(port));
    port.unref();
  });
  const spanChannel = new MessageChannel();
  spanChannel.port1.on('message', (event: SpanEvent) => spans.add(event));
  spanChannel.port1.unref();
  const worker = tsWorker(workerFile, { executor: line.port, spans: spanChannel.port2, modelDir }, [
    line.port,
    spanChannel.port2,
  ]);
  const death = new Promise<never>((_, reject) => {
    worker.once('error', (error: Error) => reject(new WorkerDied(error.message)));
    worker.once('exit', (code: number) => reject(new WorkerDied(`it exited with code ${code}`)));
  });
  death.catch(() => {
    spans.closeOpen();
    line.close();
    spanChannel.port1.close();
  });
  const remote = wrap<RolloutWorkerService>(nodeEndpoint(worker));
  const started: StartedWorker = {
    calls: remote,
    death,
    kill: async () => {
      await worker.terminate();
    },
    close: async () => {
      await worker.terminate();
    },
  };
  try {
    await Promise.race([remote.init(config, threads), death]);
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  return started;
}

/** The rollout source of an overlapped CLI run: a worker thread over the run's sandbox pool. */
export function threadRolloutSource(options: {
  config: RunConfig;
  modelDir: string | null;
  executor: CodeExecutor;
  threads?: number | 'auto';
}): { source: QueuedRolloutSource; workers: RestartingRolloutWorkers } {
  const spans = new SpanLog();
  let source: QueuedRolloutSource | null = null;
  const workers = new RestartingRolloutWorkers({
    start: () => startThread({ ...options, threads: options.threads ?? 'auto', spans }),
    onLost: (n) => source?.countLost(n),
    warn: (message) => process.stderr.write(`${message}\n`),
  });
  source = new QueuedRolloutSource(workers, spans);
  return { source, workers };
}
