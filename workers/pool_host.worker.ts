// Thin shell (docs/architecture.md §2): a sandbox pool on a thread of its own (src/env/pool_host.ts),
// in a Node worker_threads worker or (same file) a Web Worker the trainer worker starts. Its
// sandbox workers are this thread's own workers; ports handed to connect() get the pool's calls.
import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { poolHost } from '../src/env/pool_host.ts';

const inNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';

if (inNode) {
  const { parentPort } = (await import(
    'node:worker_threads'
  )) as typeof import('node:worker_threads');
  if (!parentPort) throw new Error('pool_host.worker.ts must run inside a worker_threads Worker');
  const { createNodeSandboxPool } = await import('../src/env/node_pool.ts');
  type NodePort = import('node:worker_threads').MessagePort;
  expose(
    poolHost(
      (options) => createNodeSandboxPool(options),
      (calls, port) => expose(calls, nodeEndpoint(port as NodePort)),
    ),
    nodeEndpoint(parentPort),
  );
} else {
  // exposed before any await: a Web Worker drops messages that arrive while its module is still
  // waiting on a top-level await with no listener yet
  const browserPool = () => import('../src/env/browser_pool.ts');
  expose(
    poolHost(
      async (options) => {
        const { createBrowserSandboxPool, keptSnapshotOptions } = await browserPool();
        return createBrowserSandboxPool({ ...options, ...(await keptSnapshotOptions()) });
      },
      (calls, port) => expose(calls, port as MessagePort),
    ),
  );
}
