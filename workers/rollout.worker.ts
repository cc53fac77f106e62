// Thin shell (docs/architecture.md §2): the rollout worker of an overlapped (`async`) run, exposing
// RolloutWorkerService (src/service/rollout_worker_service.ts) with comlink, in a Node
// worker_threads worker or (same file) a Web Worker the trainer worker starts. The trainer's side passes two
// ports: `executor` (its sandbox pool, shared, over comlink) and `spans` (plain messages: this
// worker's timeline spans as they open and close). Node gets them in workerData; the browser in
// connect(), before init().
import { expose, wrap } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { CodeExecutor } from '../src/env/types.ts';
import { selectBackend, type BackendName } from '../src/kernels/backend.ts';
import type { ModelSource } from '../src/model_files/source.ts';
import type { RolloutJob, WeightSet } from '../src/training/rollout_runner.ts';
import type { SpanEvent } from '../src/training/worker_spans.ts';
import type { RunConfig } from '../src/run/config.ts';
import { RolloutWorkerService } from '../src/service/rollout_worker_service.ts';
import type { ModelChoice } from '../src/service/trainer_api.ts';

const inNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';

/** What the trainer's side calls (browser: connect first). */
export interface RolloutShell {
  connect(ports: {
    executor: MessagePort;
    spans: MessagePort;
    choice: ModelChoice;
    backend: string;
  }): Promise<void>;
  init(config: RunConfig, threads: number | 'auto'): Promise<void>;
  load(version: number, weights: WeightSet): Promise<void>;
  run(job: RolloutJob): ReturnType<RolloutWorkerService['run']>;
  numTensors(): Promise<number>;
}

/** The service over a sandbox endpoint and a span port. */
function service(
  executor: Pick<CodeExecutor, 'execute'>,
  postSpan: (event: SpanEvent) => void,
  select: (threads: number | 'auto') => Promise<unknown>,
  source: (model: string) => ModelSource,
): RolloutWorkerService {
  return new RolloutWorkerService({
    selectBackend: select,
    source,
    executor: { execute: (code, options) => executor.execute(code, options) },
    onSpan: postSpan,
  });
}

/** The shell's API over a service made on connect (browser) or at once (Node). */
function shell(
  make: (ports: Parameters<RolloutShell['connect']>[0]) => Promise<RolloutWorkerService>,
  ready: RolloutWorkerService | null,
): RolloutShell {
  let current = ready;
  const require = () => {
    if (!current) throw new Error('the rollout worker is not connected: call connect() first');
    return current;
  };
  return {
    async connect(ports) {
      current = await make(ports);
    },
    init: (config, threads) => require().init(config, threads),
    load: (version, weights) => require().load(version, weights),
    run: (job) => require().run(job),
    numTensors: () => require().numTensors(),
  };
}

if (inNode) {
  const { parentPort, workerData } = (await import(
    'node:worker_threads'
  )) as typeof import('node:worker_threads');
  if (!parentPort) throw new Error('rollout.worker.ts must run inside a worker_threads Worker');
  const { directorySource } = await import('../src/model_files/node_source.ts');
  const { hubSource } = await import('../src/model_files/hub_source.ts');
  const data = workerData as {
    executor: import('node:worker_threads').MessagePort;
    spans: import('node:worker_threads').MessagePort;
    modelDir: string | null;
  };
  const ready = service(
    wrap<Pick<CodeExecutor, 'execute'>>(nodeEndpoint(data.executor)),
    (event) => data.spans.postMessage(event),
    (threads) => selectBackend({ force: 'wasm', threads }),
    (model) =>
      data.modelDir ? directorySource(data.modelDir) : hubSource({ repo: model, cache: null }),
  );
  expose(
    shell(async () => ready, ready),
    nodeEndpoint(parentPort),
  );
} else {
  // exposed before any await: a Web Worker drops messages that arrive while its module is still
  // waiting on a top-level await with no listener yet
  expose(
    shell(async (ports) => {
      const { base, browserSourceFor } = await import('./model_source.ts');
      return service(
        wrap<Pick<CodeExecutor, 'execute'>>(ports.executor),
        (event) => ports.spans.postMessage(event),
        (threads) =>
          selectBackend({
            force: ports.backend as BackendName,
            wasmPaths: `${base}tfjs-wasm/`,
            threads,
          }),
        () => browserSourceFor(ports.choice).source,
      );
    }, null),
  );
}
