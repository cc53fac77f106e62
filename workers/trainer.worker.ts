// The trainer worker: hosts the Policy and the Trainer (TrainerService) off the main thread and
// exposes them with comlink. Browser specifics live here: where model files come from (the
// served demo folder, the hub with the Cache API, picked files) and the Web Worker sandbox pool.
import { expose } from 'comlink';
import { createBrowserSandboxPool, keptSnapshotOptions } from '../src/env/browser_pool.ts';
import { selectBackend } from '../src/kernels/backend.ts';
import { browserCache } from '../src/model_files/browser_cache.ts';
import { hubSource } from '../src/model_files/hub_source.ts';
import { localFilesSource } from '../src/model_files/local_files_source.ts';
import { urlSource } from '../src/model_files/url_source.ts';
import { TrainerService } from '../src/service/trainer_service.ts';

const base = new URL(import.meta.env.BASE_URL, self.location.origin).href;

const service = new TrainerService({
  selectBackend: (force) =>
    selectBackend({ ...(force ? { force } : {}), wasmPaths: `${base}tfjs-wasm/`, threads: 'auto' }),
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
