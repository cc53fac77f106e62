// Browser-only: sandbox workers as module Web Workers, written so Vite finds and bundles
// workers/sandbox.worker.ts. The page (src/ui/) imports this; Node code uses node_pool.ts.
import { SandboxPool, type SandboxPoolOptions } from './pool.ts';
import type { SandboxWorkerFactory } from './types.ts';

/** A factory of Web Worker sandboxes; a worker error counts as its death. */
export function browserWorkerFactory(): SandboxWorkerFactory {
  return () => {
    const worker = new Worker(new URL('../../workers/sandbox.worker.ts', import.meta.url), { type: 'module', name: 'sandbox' });
    return {
      endpoint: worker,
      terminate: () => worker.terminate(),
      onDeath: (listener) => {
        worker.addEventListener('error', (event) => listener(event.message || 'worker error'), { once: true });
      },
    };
  };
}

/** SandboxPool.create with Web Workers (interrupts only when the page is cross-origin isolated). */
export function createBrowserSandboxPool(options: Omit<SandboxPoolOptions, 'workerFactory'> = {}): Promise<SandboxPool> {
  return SandboxPool.create({ ...options, workerFactory: browserWorkerFactory() });
}
