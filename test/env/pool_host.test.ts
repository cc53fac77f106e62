// The sandbox pool on a thread of its own (src/env/pool_host.ts, workers/pool_host.worker.ts): it
// runs and judges programs as the in-thread pool does, says which worker ran a traced call, hands
// other threads a line of their own, and answers them while the creating thread is busy (which is
// why an overlapped run needs it: the trainer's thread spends seconds inside WASM per update).
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHostedNodeSandboxPool,
  createNodeSandboxPool,
  tsWorker,
} from '../../src/env/node_pool.ts';
import type { HostedSandboxPool } from '../../src/env/pool_host.ts';
import type { CodeExecutor } from '../../src/env/types.ts';

const callerFile = new URL('../helpers/pool_caller.worker.ts', import.meta.url).href;
const wallNow = () => performance.timeOrigin + performance.now();

/**
 * Starts a caller thread on `port`, lets it run `count` programs while this thread spins for
 * `spinMs` (or, with `untilAnswered`, until the caller has every answer, at most `spinMs`), and
 * returns the spin's end and when each answer reached the caller.
 */
async function callWhileBusy(
  port: MessagePort,
  count: number,
  spinMs: number,
  untilAnswered = false,
) {
  const doneFlag = new SharedArrayBuffer(4);
  const done = new Int32Array(doneFlag);
  const caller = tsWorker(callerFile, { pool: port, done: doneFlag }, [port]);
  try {
    const messages: unknown[] = [];
    const next = () =>
      new Promise<unknown>((resolve) => caller.once('message', (m: unknown) => resolve(m)));
    expect(await next()).toBe('ready');
    const answers = next();
    caller.postMessage(count);
    const until = Date.now() + spinMs;
    // this thread is busy, as an update's WASM keeps it
    while (Date.now() < until && !(untilAnswered && Atomics.load(done, 0) === 1));
    const spinEnd = wallNow();
    messages.push(await answers);
    return { spinEnd, answered: messages[0] as number[] };
  } finally {
    await caller.terminate();
  }
}

describe('a sandbox pool on its own thread', () => {
  let pool: HostedSandboxPool;
  beforeAll(async () => {
    pool = await createHostedNodeSandboxPool({ size: 2, spares: 0, timeoutMs: 3000 });
  }, 120_000);
  afterAll(async () => pool?.close());

  it('runs and judges programs, and a traced call says which worker ran it and when', async () => {
    const plain = await pool.execute('print(6 * 7)');
    expect(plain.observation).toBe('42\n');
    expect(plain).not.toHaveProperty('ranOn');
    const before = wallNow();
    const [a, b] = await Promise.all(
      [1, 2].map((n) => pool.execute(`import time\ntime.sleep(0.3)\nprint(${n})`, { trace: true })),
    );
    // two programs at once on a pool of two: one on each worker, each running ~0.3 s
    expect([a!.ranOn!.worker, b!.ranOn!.worker].sort()).toEqual([0, 1]);
    for (const r of [a!, b!]) {
      expect(r.ranOn!.startWallMs).toBeGreaterThanOrEqual(before - 1);
      expect(r.ranOn!.endWallMs - r.ranOn!.startWallMs).toBeGreaterThan(250);
    }
    const judged = await pool.judge('def f(x):\n    return x + 1', [
      { kind: 'value', expr: 'f(1)', expected: { type: 'int', value: 2n } },
      { kind: 'statement', source: 'assert f(2) == 4' },
    ]);
    expect(judged.passed).toBe(1);
    expect(judged.total).toBe(2);
    const timedOut = await pool.execute('while True: pass', { timeoutMs: 500 });
    expect(timedOut.timedOut).toBe(true);
    expect((await pool.metrics()).timeouts).toBe(1);
  }, 60_000);

  it("answers another thread's calls on its own line while this thread is busy", async () => {
    // spins until the caller has its answers (however long a busy machine takes), at most 50 s
    const { spinEnd, answered } = await callWhileBusy(
      (await pool.share()) as MessagePort,
      5,
      50_000,
      true,
    );
    expect(answered).toHaveLength(5);
    // every answer arrived while this thread was still spinning
    expect(Math.max(...answered)).toBeLessThanOrEqual(spinEnd);
  }, 60_000);

  it('(the reason: a pool in a busy thread answers nobody until that thread is free)', async () => {
    const local = await createNodeSandboxPool({ size: 1, spares: 0 });
    try {
      const relay = new MessageChannel();
      const calls: CodeExecutor = { execute: (code, o) => local.execute(code, o) };
      expose(calls, nodeEndpoint(relay.port1));
      const { spinEnd, answered } = await callWhileBusy(relay.port2, 5, 2500);
      expect(Math.min(...answered)).toBeGreaterThan(spinEnd);
      relay.port1.close();
    } finally {
      await local.close();
    }
  }, 120_000);
});

describe('a sandbox pool whose thread dies', () => {
  it('says so on every call instead of hanging', async () => {
    const pool = await createHostedNodeSandboxPool({ size: 1, spares: 0 });
    const thread = (pool as unknown as { thread: { terminate(): void } }).thread;
    thread.terminate();
    await expect(pool.execute('print(1)')).rejects.toThrow(/the sandbox pool's thread died/);
    await pool.close();
    await expect(pool.execute('print(1)')).rejects.toThrow(/the sandbox pool is closed/);
  }, 120_000);
});
