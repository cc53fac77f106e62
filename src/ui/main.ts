// The product's entry: the trainer worker through comlink, IndexedDB checkpoints, the Cache API for
// hub files, and the browser's clipboard and downloads, handed to startApp.
import * as Comlink from 'comlink';
import { browserCache } from '../model_files/browser_cache.ts';
import type { FileCache } from '../model_files/hub_source.ts';
import type { BackendInfo } from '../kernels/backend.ts';
import type { TrainerApi } from '../service/trainer_api.ts';
import {
  indexedDbCheckpointStore,
  memoryCheckpointStore,
  type CheckpointStore,
} from '../service/checkpoint_store.ts';
import { indexedDbRunHistory, memoryRunHistory, type RunHistory } from '../service/run_history.ts';
import { startApp } from './panels/app.ts';
import { ensureIsolation } from './panels/isolation.ts';
import type { DeviceFacts } from '../model_files/memory_estimate.ts';
import { checkModelFits, estimateModelCost } from './state/model_fit.ts';
import './styles.css';

/** The trainer worker (Policy + Trainer) behind comlink. */
function trainerWorker(): TrainerApi {
  const worker = new Worker(new URL('../../workers/trainer.worker.ts', import.meta.url), {
    type: 'module',
    name: 'trainer',
  });
  return Comlink.wrap<TrainerApi>(worker);
}

function settings() {
  return {
    get: (key: string) => {
      try {
        return localStorage.getItem(key);
      } catch {
        return null;
      }
    },
    set: (key: string, value: string) => {
      try {
        localStorage.setItem(key, value);
      } catch {
        /* private mode: not kept */
      }
    },
  };
}

function download(name: string, data: Uint8Array | string, type: string): void {
  const blob = new Blob([data as BlobPart], { type });
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = name;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function checkpointStore(): Promise<CheckpointStore> {
  try {
    return await indexedDbCheckpointStore(indexedDB);
  } catch (error) {
    console.warn(
      `IndexedDB unavailable (${(error as Error).message}); checkpoints last only until the tab closes.`,
    );
    return memoryCheckpointStore();
  }
}

async function runHistory(): Promise<RunHistory> {
  try {
    return await indexedDbRunHistory(indexedDB);
  } catch {
    // the overlays still work for the tab's life
    return memoryRunHistory();
  }
}

let maxBufferBytes: number | null | undefined;
/** The WebGPU adapter's largest storage buffer (asked once; reading limits does no GPU work). */
async function gpuMaxBuffer(): Promise<number | null> {
  if (maxBufferBytes !== undefined) return maxBufferBytes;
  const gpu = (
    navigator as Navigator & {
      gpu?: {
        requestAdapter(): Promise<{ limits: { maxStorageBufferBindingSize: number } } | null>;
      };
    }
  ).gpu;
  maxBufferBytes =
    (await gpu?.requestAdapter().catch(() => null))?.limits.maxStorageBufferBindingSize ?? null;
  return maxBufferBytes;
}

/** What the memory estimate knows of this device on `backend`. */
async function deviceFacts(backend: BackendInfo | null): Promise<DeviceFacts> {
  const name = backend?.name ?? 'wasm';
  return {
    backend: name,
    deviceMemoryGiB: (navigator as Navigator & { deviceMemory?: number }).deviceMemory ?? null,
    maxBufferBytes: name === 'webgpu' ? await gpuMaxBuffer() : null,
  };
}

async function main(): Promise<void> {
  if (await ensureIsolation()) return; // reloading into an isolated page
  const root = document.getElementById('app');
  if (!root) throw new Error('index.html has no #app element');
  let cache: FileCache | null = null;
  try {
    cache = browserCache();
  } catch {
    cache = null;
  }
  const trainer = trainerWorker();
  const controller = await startApp(root, trainer, {
    proxy: Comlink.proxy,
    checkpoints: await checkpointStore(),
    history: await runHistory(),
    settings: settings(),
    url: location.href,
    setHash: (fragment) => history.replaceState(null, '', fragment),
    copyText: (text) => navigator.clipboard.writeText(text),
    download,
    checkModel: async (choice, config, backend: BackendInfo | null) => {
      const verdict = await checkModelFits(choice, config, {
        cache,
        device: await deviceFacts(backend),
      });
      return verdict && verdict.fit === 'tight' ? verdict.message : null;
    },
    estimateCost: async (choice, config, backend, speed) =>
      estimateModelCost(choice, config, { cache, device: await deviceFacts(backend) }, speed),
  });
  // For automation and lesson scripts: the run's state, read-only by convention.
  (window as Window & { playground?: unknown }).playground = controller;
}

main().catch((error: unknown) => {
  const root = document.getElementById('app') ?? document.body;
  root.textContent = `The page failed to start: ${error instanceof Error ? error.message : String(error)}. Reload to try again.`;
});
