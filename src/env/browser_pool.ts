// Browser-only: sandbox workers as module Web Workers, written so Vite finds and bundles
// workers/sandbox.worker.ts. The page (src/ui/) imports this; Node code uses node_pool.ts.
import { SandboxPool, type SandboxPoolOptions } from './pool.ts';
import { cacheSnapshotStore } from './snapshot_store.ts';
import type { SandboxWorkerFactory } from './types.ts';

/** A factory of Web Worker sandboxes; a worker error counts as its death. */
export function browserWorkerFactory(): SandboxWorkerFactory {
  return () => {
    const worker = new Worker(new URL('../../workers/sandbox.worker.ts', import.meta.url), {
      type: 'module',
      name: 'sandbox',
    });
    return {
      endpoint: worker,
      terminate: () => worker.terminate(),
      onDeath: (listener) => {
        worker.addEventListener('error', (event) => listener(event.message || 'worker error'), {
          once: true,
        });
      },
    };
  };
}

/** SandboxPool.create with Web Workers (interrupts only when the page is cross-origin isolated). */
export function createBrowserSandboxPool(
  options: Omit<SandboxPoolOptions, 'workerFactory'> = {},
): Promise<SandboxPool> {
  return SandboxPool.create({ ...options, workerFactory: browserWorkerFactory() });
}

/**
 * Pool options that start from the snapshot an earlier visit kept, and keep the one this pool makes
 * (snapshot_store.ts), in a built page with the Cache API; none elsewhere (the dev server's files
 * carry no content hash to key it by; vite.config.ts sets the flag). Measured in headless Chromium
 * on a 2-core VM: the page's two first workers are ready in 6-9 s cold, side by side, and in 3-4 s
 * restored (docs/sandbox.md).
 */
export async function keptSnapshotOptions(): Promise<
  Pick<SandboxPoolOptions, 'snapshot' | 'onSnapshot'>
> {
  const storage = (globalThis as { caches?: CacheStorage }).caches;
  if (import.meta.env.VITE_KEEP_SANDBOX_SNAPSHOT !== true || !storage) return {};
  // This module's bundle: its name's hash covers the sandbox worker's (whose address it holds).
  const store = cacheSnapshotStore(storage, `${import.meta.url.split(/[?#]/)[0]}?sandbox-snapshot`);
  const snapshot = await store.load().catch(() => null);
  return {
    snapshot,
    onSnapshot: (made) =>
      void store
        .save(made)
        .catch((error: unknown) =>
          console.warn(
            `The sandbox snapshot was not kept (${(error as Error).message}); the next visit starts Python cold.`,
          ),
        ),
  };
}
