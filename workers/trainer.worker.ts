// The trainer worker: hosts the Policy and the Trainer (TrainerService) off the main thread and
// exposes them with comlink. Browser specifics live here: where model files come from (the
// served demo folder, the hub with the Cache API, picked files) and the Web Worker sandbox pool.
import { expose, wrap } from 'comlink';
import { createBrowserSandboxPool, keptSnapshotOptions } from '../src/env/browser_pool.ts';
import { selectBackend, webgpuAdapter } from '../src/kernels/backend.ts';
import { browserCache } from '../src/model_files/browser_cache.ts';
import { hubSource } from '../src/model_files/hub_source.ts';
import { localFilesSource } from '../src/model_files/local_files_source.ts';
import { urlSource } from '../src/model_files/url_source.ts';
import type { ModelConfig } from '../src/model_files/hf_config.ts';
import type { RunConfig } from '../src/run/config.ts';
import type { BackendTiming } from '../src/service/backend_choice.ts';
import { TrainerService } from '../src/service/trainer_service.ts';

const base = new URL(import.meta.env.BASE_URL, self.location.origin).href;

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
  sourceFor(choice) {
    switch (choice.kind) {
      case 'demo':
        return { source: urlSource(`${base}models/demo/`, 'demo'), origin: 'demo' };
      case 'hub':
        return {
          source: hubSource({
            repo: choice.repo,
            revision: choice.revision ?? 'main',
            baseUrl: choice.baseUrl ?? 'https://huggingface.co',
            cache: browserCache(),
          }),
          origin: 'hub',
        };
      case 'files':
        return { source: localFilesSource(choice.files), origin: 'files' };
    }
  },
});

expose(service);
