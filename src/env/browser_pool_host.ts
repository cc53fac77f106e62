// Browser-only: the page's sandbox pool on a Web Worker of its own (pool_host.ts), which starts the
// sandbox workers and keeps the snapshot between visits (browser_pool.ts). The trainer worker calls
// it, and an overlapped run's rollout worker gets a port of its own to it (`share`), so programs
// are answered while the trainer worker is busy inside an update. Separate from browser_pool.ts,
// which the host worker itself bundles.
import { wrap } from 'comlink';
import { HostedSandboxPool, type HostedPoolOptions, type PoolHostApi } from './pool_host.ts';

/** A sandbox pool on a Web Worker of its own. */
export async function createHostedBrowserSandboxPool(
  options: HostedPoolOptions = {},
): Promise<HostedSandboxPool> {
  const worker = new Worker(new URL('../../workers/pool_host.worker.ts', import.meta.url), {
    type: 'module',
    name: 'sandbox-pool',
  });
  const death = new Promise<never>((_, reject) => {
    worker.addEventListener(
      'error',
      (event) => reject(new Error(`the sandbox pool's worker died (${event.message || 'error'})`)),
      { once: true },
    );
  });
  const thread = { death, terminate: () => worker.terminate() };
  return HostedSandboxPool.start(wrap<PoolHostApi>(worker), thread, options);
}
