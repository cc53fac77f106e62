// The trainer worker: hosts the Policy and the Trainer (TrainerService) off the main thread and
// exposes them with comlink. Browser specifics live here: where model files come from (the
// served demo folder, the hub with the Cache API, picked files) and the Web Worker sandbox pool.
import * as tf from '@tensorflow/tfjs';
import { expose, transfer, wrap } from 'comlink';
import { createHostedBrowserSandboxPool } from '../src/env/browser_pool_host.ts';
import { executorLine } from '../src/env/pool_host.ts';
import { selectBackend, webgpuAdapter } from '../src/kernels/backend.ts';
import type { ModelConfig } from '../src/model_files/hf_config.ts';
import type { RunConfig } from '../src/run/config.ts';
import type { BackendTiming } from '../src/service/backend_choice.ts';
import { TrainerService } from '../src/service/trainer_service.ts';
import type { CodeExecutor } from '../src/env/types.ts';
import {
  RestartingRolloutWorkers,
  WorkerDied,
  type StartedWorker,
} from '../src/training/restarting_rollout_workers.ts';
import { QueuedRolloutSource, type RolloutSource } from '../src/training/rollout_source.ts';
import { SpanLog, type SpanEvent } from '../src/training/worker_spans.ts';
import type { ModelChoice } from '../src/service/trainer_api.ts';
import { base, browserSourceFor } from './model_source.ts';
import type { RolloutShell } from './rollout.worker.ts';

/**
 * Starts one rollout worker for an overlapped run (`async`): a nested Web Worker with its own copy
 * of the policy, on this worker's backend, with its own line to the hosted sandbox pool.
 */
async function startRolloutWorker(
  config: RunConfig,
  choice: ModelChoice,
  executor: CodeExecutor,
  backend: string,
  spans: SpanLog,
): Promise<StartedWorker> {
  const worker = new Worker(new URL('./rollout.worker.ts', import.meta.url), {
    type: 'module',
    name: 'rollout',
  });
  let die: (why: string) => void = () => {};
  const death = new Promise<never>((_, reject) => {
    die = (why) => reject(new WorkerDied(why));
  });
  worker.addEventListener('error', (event) => die(event.message || 'an error in the worker'));
  worker.addEventListener('messageerror', () => die('a message it could not read'));
  const remote = wrap<RolloutShell>(worker);
  // its own line to the hosted pool (a pool without one is relayed through this worker)
  const line = await executorLine<MessagePort>(executor, (calls, port) => expose(calls, port));
  const spanChannel = new MessageChannel();
  spanChannel.port1.onmessage = (event: MessageEvent<SpanEvent>) => spans.add(event.data);
  const end = (why: string) => {
    worker.terminate();
    line.close();
    spanChannel.port1.close();
    spans.closeOpen();
    die(why);
  };
  death.catch(() => end('it died'));
  try {
    await Promise.race([
      remote.connect(
        transfer({ executor: line.port, spans: spanChannel.port2, choice, backend }, [
          line.port,
          spanChannel.port2,
        ]),
      ),
      death,
    ]);
    // the two workers share the cores: each takes half for its matmul threads
    const threads = Math.max(1, Math.min(4, Math.floor(navigator.hardwareConcurrency / 2)));
    await Promise.race([remote.init(config, threads), death]);
  } catch (error) {
    end('it failed to start');
    throw error;
  }
  return {
    calls: remote,
    death,
    kill: async () => end('it was terminated'),
    close: async () => end('the run closed it'),
  };
}

/** An overlapped run's rollout source: a rollout worker, started again when it dies. */
async function browserRolloutSource(
  config: RunConfig,
  choice: ModelChoice,
  executor: CodeExecutor,
  backend: string,
): Promise<RolloutSource> {
  const spans = new SpanLog();
  let source: QueuedRolloutSource | null = null;
  const workers = new RestartingRolloutWorkers({
    start: () => startRolloutWorker(config, choice, executor, backend, spans),
    onLost: (n) => source?.countLost(n),
    warn: (message) => console.warn(message),
  });
  source = new QueuedRolloutSource(workers, spans);
  await workers.start(); // now, so a worker that cannot start says so when the model loads
  return source;
}

/** WebGPU's probe in a worker of its own, terminated when done or `stopAfterMs` has passed. */
async function webgpuProbe(
  config: ModelConfig,
  run: RunConfig,
  budgetMs: number,
  stopAfterMs: number,
): Promise<BackendTiming> {
  const worker = new Worker(new URL('./webgpu_probe.worker.ts', import.meta.url), {
    type: 'module',
    name: 'webgpu-probe',
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const probe = wrap<{
      measure(config: ModelConfig, run: RunConfig, budgetMs: number): Promise<BackendTiming>;
    }>(worker);
    const overrun = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('out of time')), stopAfterMs);
    });
    return await Promise.race([probe.measure(config, run, budgetMs), overrun]);
  } finally {
    clearTimeout(timer);
    worker.terminate();
  }
}

const service = new TrainerService({
  selectBackend: (force) =>
    selectBackend({ ...(force ? { force } : {}), wasmPaths: `${base}tfjs-wasm/`, threads: 'auto' }),
  webgpuAdapter,
  webgpuProbe,
  // On a worker of its own, so that it answers while this worker is busy in an update. Ready with
  // the first sandbox: a lone cold Pyodide loads in ~6 s where two side by side take ~8 (headless
  // Chromium, 2 cores); the second restores the first one's snapshot in the background.
  createExecutor: (options) => createHostedBrowserSandboxPool({ ...options, firstReady: 1 }),
  sourceFor: browserSourceFor,
  createRolloutSource: (config, choice, executor) =>
    browserRolloutSource(config, choice, executor, tf.getBackend()),
});

expose(service);
