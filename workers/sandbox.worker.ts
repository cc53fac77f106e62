// Thin shell (docs/architecture.md §2): builds a SandboxRunner from src/env/ and exposes it with
// comlink, in a browser Web Worker or (same file) a Node worker_threads worker through comlink's
// Node adapter: init, execute, judge (a program against hidden tests, src/env/python/judge.py) and
// takeSnapshot. The shell owns what touches the worker's global scope: where Pyodide's files are,
// and stripping network and storage capabilities before any model-written code runs
// (docs/architecture.md §7).
import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { loadPyodide } from 'pyodide';
import { SandboxRunner } from '../src/env/runner.ts';

/**
 * Globals that reach the network, storage or other contexts; none is needed after Pyodide loads.
 */
const CAPABILITY_GLOBALS = [
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'WebSocketStream',
  'WebTransport',
  'EventSource',
  'importScripts',
  'indexedDB',
  'caches',
  'BroadcastChannel',
  'Worker',
  'SharedWorker',
  'navigator',
  'RTCPeerConnection',
];

const inNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';

/**
 * Deletes each capability (own property or inherited from the scope's prototypes) and pins it to
 * undefined.
 */
function hardenScope(): string[] {
  const scope = globalThis as Record<string, unknown>;
  const removed: string[] = [];
  for (const name of CAPABILITY_GLOBALS) {
    if (!(name in scope)) continue;
    for (let holder: object | null = scope; holder; holder = Object.getPrototypeOf(holder)) {
      if (Object.hasOwn(holder, name)) Reflect.deleteProperty(holder, name);
    }
    Object.defineProperty(scope, name, { value: undefined, writable: false, configurable: false });
    if (scope[name] !== undefined)
      throw new Error(`could not remove ${name} from the sandbox worker's scope`);
    removed.push(name);
  }
  // Second line of defence: should a program ever hold a JS object, `.constructor.constructor`
  // must not hand it the Function constructor (and with it the global scope).
  const samples = [
    function sample() {},
    async function sample() {},
    function* sample() {},
    async function* sample() {},
  ];
  for (const sample of samples) {
    Object.defineProperty(Object.getPrototypeOf(sample), 'constructor', {
      value: undefined,
      writable: false,
      configurable: false,
    });
  }
  return removed;
}

/**
 * Node resolves Pyodide's folder from the package (its own guess fails inside an eval'd worker).
 */
async function nodeIndexURL(): Promise<string> {
  const moduleBuiltin = 'node:module';
  const { createRequire } = (await import(
    /* @vite-ignore */ moduleBuiltin
  )) as typeof import('node:module');
  const manifest = createRequire(import.meta.url).resolve('pyodide/package.json');
  return manifest.slice(0, manifest.length - 'package.json'.length);
}

const runner = new SandboxRunner({
  loadPyodide,
  // In the browser the build copies Pyodide to <base>/pyodide/, a sibling of the assets folder.
  defaultIndexURL: inNode ? await nodeIndexURL() : new URL('../pyodide/', self.location.href).href,
  hardenScope,
});

if (inNode) {
  const workerThreads = 'node:worker_threads';
  const { parentPort } = (await import(
    /* @vite-ignore */ workerThreads
  )) as typeof import('node:worker_threads');
  if (!parentPort) throw new Error('sandbox.worker.ts must run inside a worker_threads Worker');
  expose(runner, nodeEndpoint(parentPort));
} else {
  expose(runner);
}
