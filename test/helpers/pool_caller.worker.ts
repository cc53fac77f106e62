// A thread that calls a shared sandbox pool on the port it was given (test/env/pool_host.test.ts):
// on each message N it runs N programs one after another, raises the shared flag `done` (which a
// spinning thread can read) and posts back the wall-clock time each one's answer arrived.
import { wrap } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { PoolCalls } from '../../src/env/pool_host.ts';

const data = workerData as { pool: MessagePort; done: SharedArrayBuffer };
const pool = wrap<PoolCalls>(nodeEndpoint(data.pool));
const done = new Int32Array(data.done);
parentPort!.on('message', async (count: number) => {
  const answered: number[] = [];
  for (let i = 0; i < count; i++) {
    await pool.execute(`print(${i})`);
    answered.push(performance.timeOrigin + performance.now());
  }
  Atomics.store(done, 0, 1);
  parentPort!.postMessage(answered);
});
parentPort!.postMessage('ready');
