// Node-only: sandbox workers as worker_threads running workers/sandbox.worker.ts through tsx's
// loader (the worker is TypeScript). Browser code must not import this file; see browser_pool.ts.
import { wrap } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type TransferListItem } from 'node:worker_threads';
import { SandboxPool, type SandboxPoolOptions } from './pool.ts';
import { HostedSandboxPool, type HostedPoolOptions, type PoolHostApi } from './pool_host.ts';
import type { SandboxWorkerFactory } from './types.ts';

// (this module's URL through a variable: Vite copies a `new URL('…', import.meta.url)` file into
// the page's build as an asset, and the pool host's Node branch brings this module into its graph)
const here = import.meta.url;
const workerFile = new URL('../../workers/sandbox.worker.ts', here).href;
const hostFile = new URL('../../workers/pool_host.worker.ts', here).href;

/**
 * The worker is TypeScript: this CommonJS bootstrap registers tsx's ESM hooks inside the worker
 * thread, then imports the shell (`execArgv: ['--import', 'tsx']` does not reach worker threads
 * on Node 20). A failed import surfaces as the worker's 'error' event.
 */
export const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.tsxApi).then((api) => { api.register(); return import(workerData.workerFile); });
`;

/** tsx's ESM register API as a file URL (its package maps the import condition to index.mjs). */
export function tsxApiUrl(): string {
  const cjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  return pathToFileURL(cjs.replace(/index\.cjs$/, 'index.mjs')).href;
}

/** A worker thread running a TypeScript file, its stdout and stderr sent to our stderr. */
export function tsWorker(
  file: string,
  data: Record<string, unknown> = {},
  transferList: TransferListItem[] = [],
): Worker {
  const worker = new Worker(BOOTSTRAP, {
    eval: true,
    workerData: { tsxApi: tsxApiUrl(), workerFile: file, ...data },
    transferList,
    stdout: true,
    stderr: true,
  });
  // Forward without pipe(): pipe() would add listeners to process.stderr for every worker ever started.
  const forward = (chunk: Buffer) => {
    process.stderr.write(chunk);
  };
  worker.stdout.on('data', forward);
  worker.stderr.on('data', forward);
  return worker;
}

/** A factory of Node sandbox workers; their stdout goes to our stderr so CLI stdout stays pure JSON. */
export function nodeWorkerFactory(): SandboxWorkerFactory {
  return () => {
    const worker = tsWorker(workerFile);
    return {
      endpoint: nodeEndpoint(worker),
      terminate: () => {
        void worker.terminate();
      },
      onDeath: (listener) => {
        let told = false;
        const tell = (reason: string) => {
          if (!told) {
            told = true;
            listener(reason);
          }
        };
        worker.once('error', (error: Error) => tell(error.message));
        worker.once('exit', (code: number) => tell(`worker exited with code ${code}`));
      },
    };
  };
}

/** SandboxPool.create with Node worker_threads workers. */
export function createNodeSandboxPool(
  options: Omit<SandboxPoolOptions, 'workerFactory'> = {},
): Promise<SandboxPool> {
  return SandboxPool.create({ ...options, workerFactory: nodeWorkerFactory() });
}

/**
 * A sandbox pool on a worker thread of its own (pool_host.ts): what an overlapped run shares
 * between the trainer and its rollout worker.
 */
export async function createHostedNodeSandboxPool(
  options: HostedPoolOptions = {},
): Promise<HostedSandboxPool> {
  const worker = tsWorker(hostFile);
  const death = new Promise<never>((_, reject) => {
    const die = (why: string) => reject(new Error(`the sandbox pool's thread died (${why})`));
    worker.once('error', (error: Error) => die(error.message));
    worker.once('exit', (code: number) => die(`it exited with code ${code}`));
  });
  const thread = { death, terminate: () => void worker.terminate() };
  return HostedSandboxPool.start(wrap<PoolHostApi>(nodeEndpoint(worker)), thread, options);
}
