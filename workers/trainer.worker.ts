// The trainer worker: hosts the Policy and the Trainer (TrainerService) off the main thread and
// exposes them with comlink. Browser specifics live here: where model files come from (the
// served demo folder, the hub with the Cache API, picked files) and the Web Worker sandbox pool.
import * as tf from '@tensorflow/tfjs';
import { expose, transfer, wrap } from 'comlink';
import { createBrowserSandboxPool, keptSnapshotOptions } from '../src/env/browser_pool.ts';
import { selectBackend, webgpuAdapter } from '../src/kernels/backend.ts';
import type { ModelConfig } from '../src/model_files/hf_config.ts';
import type { RunConfig } from '../src/run/config.ts';
import type { BackendTiming } from '../src/service/backend_choice.ts';
import { TrainerService } from '../src/service/trainer_service.ts';
import type { CodeExecutor } from '../src/env/types.ts';
import {
  QueuedRolloutSource,
  SpanLog,
  type RolloutSource,
  type SpanEvent,
} from '../src/rl/rollout_source.ts';
import type { ModelChoice } from '../src/service/trainer_api.ts';
import { base, browserSourceFor } from './model_source.ts';
import type { RolloutShell } from './rollout.worker.ts';

/**
 * An overlapped run's rollout worker (`async`): a nested Web Worker with its own copy of the
 * policy, on this worker's backend, sharing this worker's sandbox pool over a MessagePort.
 */
async function browserRolloutSource(
  config: RunConfig,
  choice: ModelChoice,
  executor: CodeExecutor,
  backend: string,
): Promise<RolloutSource> {
  const worker = new Worker(new URL('./rollout.worker.ts', import.meta.url), {
    type: 'module',
    name: 'rollout',
  });
  const remote = wrap<RolloutShell>(worker);
  const executorChannel = new MessageChannel();
  expose(
    { execute: (code: string, o?: { timeoutMs?: number }) => executor.execute(code, o) },
    executorChannel.port1,
  );
  const spans = new SpanLog();
  const spanChannel = new MessageChannel();
  spanChannel.port1.onmessage = (event: MessageEvent<SpanEvent>) => spans.add(event.data);
  try {
    await remote.connect(
      transfer({ executor: executorChannel.port2, spans: spanChannel.port2, choice, backend }, [
        executorChannel.port2,
        spanChannel.port2,
      ]),
    );
    // the two workers share the cores: each takes half for its matmul threads
    await remote.init(
      config,
      Math.max(1, Math.min(4, Math.floor(navigator.hardwareConcurrency / 2))),
    );
  } catch (error) {
    worker.terminate();
    throw error;
  }
  return new QueuedRolloutSource(
    {
      load: (version, weights) => remote.load(version, weights),
      run: (job) => remote.run(job),
      close: async () => {
        worker.terminate();
        executorChannel.port1.close();
        spanChannel.port1.close();
      },
    },
    spans,
  );
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
  // Ready with the first worker: a lone cold Pyodide loads in ~6 s where two side by side take ~8
  // (headless Chromium, 2 cores); the second restores the first one's snapshot in the background.
  createExecutor: async (options) =>
    createBrowserSandboxPool({ ...options, firstReady: 1, ...(await keptSnapshotOptions()) }),
  sourceFor: browserSourceFor,
  createRolloutSource: (config, choice, executor) =>
    browserRolloutSource(config, choice, executor, tf.getBackend()),
});

expose(service);
