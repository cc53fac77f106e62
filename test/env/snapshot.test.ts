// Memory snapshots of a fresh interpreter (runner.ts makeSnapshot / snapshot, pool.ts): the first
// worker of a pool leaves one, later workers restore it instead of loading Pyodide cold. What must
// hold: a restored interpreter goes through the same lockdown and is as closed as a cold one, runs
// programs the same, and a restore that fails costs a cold start, never a broken pool.
import { loadPyodide } from 'pyodide';
import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandboxPool, nodeWorkerFactory } from '../../src/env/node_pool.ts';
import { SandboxRunner } from '../../src/env/runner.ts';
import { SandboxPool } from '../../src/env/pool.ts';
import type { SandboxInit, SandboxReady, SandboxWorkerHandle } from '../../src/env/types.ts';
import { expectSideBySide } from '../helpers/expect_observation.ts';

const INIT: SandboxInit = {
  maxOutputChars: 500,
  maxCaptureChars: 2000,
  memoryCapBytes: 256 * 2 ** 20,
};

describe('SandboxRunner snapshots (in-process Pyodide)', () => {
  const loads: Record<string, unknown>[] = [];
  const host = {
    loadPyodide: ((options: Record<string, unknown>) => {
      loads.push(options);
      return loadPyodide(options);
    }) as typeof loadPyodide,
    hardenScope: () => ['(none in-process)'],
  };
  const maker = new SandboxRunner(host);
  const restored = new SandboxRunner(host);
  let made: SandboxReady;
  let snapshot: Uint8Array | null;
  let ready: SandboxReady;

  beforeAll(async () => {
    made = await maker.init({ ...INIT, makeSnapshot: true, audit: true });
    snapshot = maker.takeSnapshot();
    ready = await restored.init({ ...INIT, snapshot: snapshot!, audit: true });
  }, 120_000);

  it('hands over the snapshot once, and restores from exactly those bytes', () => {
    expect(made.fromSnapshot).toBe(false);
    expect(snapshot!.byteLength).toBeGreaterThan(8 * 2 ** 20); // the whole fresh heap
    expect(maker.takeSnapshot()).toBeNull();
    // each runner loads two interpreters: the program's, then the trusted one that runs the tests
    expect(loads.map((options) => options._makeSnapshot === true)).toEqual([
      true,
      false,
      false,
      false,
    ]);
    expect(loads[1]!._loadSnapshot).toBe(snapshot); // the maker's trusted one, from the fresh copy
    expect(loads[2]!._loadSnapshot).toBe(snapshot);
    expect(loads[3]!._loadSnapshot).toBe(snapshot); // the trusted one starts from it too
    expect(ready.fromSnapshot).toBe(true);
  });

  it('leaves nothing that leads to JavaScript reachable, in the restored interpreter and in the one that made the snapshot', () => {
    for (const report of [ready, made]) {
      expect(report.auditVisited).toBeGreaterThan(20_000);
      expect(report.audit).toEqual([]);
    }
  });

  it('runs programs on the restored interpreter as on a cold one', async () => {
    const run = await restored.execute(
      'import json, math\nprint(json.dumps([math.factorial(5)]))\n',
    );
    expect(run.combined).toBe('[120]\n');
    const failed = await restored.execute('def f():\n    return 1 / 0\nf()\n');
    expect(failed.error).toMatchObject({ type: 'ZeroDivisionError', message: 'division by zero' });
    expect(failed.combined).toMatch(/line 2, in f\n.*ZeroDivisionError: division by zero\n$/s);
    const grown = await restored.execute('b = bytearray(300 * 2**20)');
    expect(grown.error?.type).toBe('MemoryError'); // the heap cap holds on the restored heap
    const isolated = await restored.execute(
      'print(sorted(k for k in globals() if not k.startswith("__")))',
    );
    expect(isolated.combined).toBe('[]\n'); // a fresh namespace: nothing of the earlier programs
  });

  it('keeps the worker that made the snapshot usable', async () => {
    expect((await maker.execute('print(2 + 2)')).combined).toBe('4\n');
  });
});

/** Node workers whose init message has its snapshot replaced by 64 bytes that are not one. */
function corruptingFactory(handles: SandboxWorkerHandle[]): () => SandboxWorkerHandle {
  const factory = nodeWorkerFactory();
  return () => {
    const handle = factory();
    const endpoint = handle.endpoint;
    handles.push(handle);
    return {
      ...handle,
      endpoint: {
        postMessage: (
          message: { path?: string[]; argumentList?: { value?: SandboxInit }[] },
          transfer?: Transferable[],
        ) => {
          const init = message.path?.[0] === 'init' ? message.argumentList?.[0]?.value : undefined;
          if (init?.snapshot) init.snapshot = new Uint8Array(64);
          endpoint.postMessage(message, transfer);
        },
        addEventListener: endpoint.addEventListener.bind(endpoint),
        removeEventListener: endpoint.removeEventListener.bind(endpoint),
      },
    };
  };
}

describe('SandboxPool snapshots (Node workers)', () => {
  it("starts spares from the first workers' snapshot, and a spare taking over runs programs", async () => {
    // terminate only: a runaway costs the active worker, and the restored spare takes over
    const pool = await createNodeSandboxPool({
      size: 1,
      spares: 1,
      interrupts: false,
      timeoutMs: 500,
    });
    try {
      await pool.whenSparesReady();
      expect(pool.lastReady()?.fromSnapshot).toBe(true);
      expect(pool.metrics().medianColdStartMs).not.toBeNull();
      expect(pool.metrics().medianRestoreStartMs).not.toBeNull();
      expect(await pool.execute('while True:\n    pass')).toMatchObject({
        observation: 'TIMEOUT',
        terminated: true,
      });
      expect(
        (await pool.execute('import json\nprint(json.dumps({"spare": True}))')).observation,
      ).toBe('{"spare": true}\n');
      expect(pool.metrics()).toMatchObject({ terminations: 1, respawns: 1 });
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('starts a worker cold when its restore fails, and keeps serving', async () => {
    const handles: SandboxWorkerHandle[] = [];
    const pool = await SandboxPool.create({
      size: 1,
      spares: 1,
      workerFactory: corruptingFactory(handles),
    });
    try {
      await pool.whenSparesReady();
      // the spare's restore failed ("Snapshot has invalid magic number"); it was started again, cold
      expect(handles).toHaveLength(3);
      expect(pool.lastReady()?.fromSnapshot).toBe(false);
      expect(pool.metrics().medianRestoreStartMs).toBeNull();
      expect((await pool.execute('print("served")')).observation).toBe('served\n');
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('starts its first workers from a snapshot an earlier pool made, and makes none of its own', async () => {
    const made: Uint8Array[] = [];
    const earlier = await createNodeSandboxPool({
      size: 1,
      spares: 0,
      onSnapshot: (snapshot) => made.push(snapshot),
    });
    await earlier.close();
    expect(made).toHaveLength(1);
    expect(made[0]!.byteLength).toBeGreaterThan(8 * 2 ** 20);
    const again: Uint8Array[] = [];
    const pool = await createNodeSandboxPool({
      size: 1,
      spares: 1,
      snapshot: made[0]!,
      onSnapshot: (snapshot) => again.push(snapshot),
    });
    try {
      await pool.whenSparesReady();
      expect(pool.metrics().medianColdStartMs).toBeNull(); // no cold start at all
      expect(pool.metrics().medianRestoreStartMs).not.toBeNull();
      expect(again).toEqual([]);
      expect((await pool.execute('import math\nprint(math.comb(5, 2))')).observation).toBe('10\n');
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('replaces a given snapshot that does not restore (another build, damaged) with one it makes', async () => {
    const made: Uint8Array[] = [];
    const pool = await createNodeSandboxPool({
      size: 1,
      spares: 1,
      snapshot: new Uint8Array(64),
      onSnapshot: (snapshot) => made.push(snapshot),
    });
    try {
      await pool.whenSparesReady();
      expect(made).toHaveLength(1); // the first worker, cold after the failed restore, made a new one
      expect(made[0]!.byteLength).toBeGreaterThan(8 * 2 ** 20);
      expect(pool.metrics().medianColdStartMs).not.toBeNull();
      expect(pool.lastReady()?.fromSnapshot).toBe(true); // the spare restored the new one
      expect((await pool.execute('print("served")')).observation).toBe('served\n');
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('with firstReady 1, is ready on one cold worker and brings the others up from its snapshot', async () => {
    const pool = await createNodeSandboxPool({ size: 2, spares: 1, firstReady: 1 });
    try {
      expect(pool.metrics()).toMatchObject({ idle: 1, spares: 0 });
      expect((await pool.execute('print("first")')).observation).toBe('first\n'); // served at once
      await pool.whenSparesReady();
      expect(pool.metrics()).toMatchObject({ idle: 2, spares: 1, respawns: 0 });
      expect(pool.metrics().medianRestoreStartMs).not.toBeNull(); // the second active worker and the spare
      const slept = await Promise.all(
        [0, 1].map(() =>
          pool.execute('import time\ntime.sleep(1)\nprint("slept")', { trace: true }),
        ),
      );
      expect(slept.map((r) => r.observation)).toEqual(['slept\n', 'slept\n']);
      expectSideBySide(slept); // on both active workers
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('loads every worker cold with snapshots off', async () => {
    const pool = await createNodeSandboxPool({ size: 1, spares: 1, snapshots: false });
    try {
      await pool.whenSparesReady();
      expect(pool.lastReady()?.fromSnapshot).toBe(false);
      expect(pool.metrics().medianRestoreStartMs).toBeNull();
    } finally {
      await pool.close();
    }
  }, 120_000);
});
