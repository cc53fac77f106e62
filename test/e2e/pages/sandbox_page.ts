// Test harness page for test/e2e/sandbox.test.ts: the real browser sandbox pool (Web Workers built
// by Vite) behind a small window API that the test drives with page.evaluate.
import { createBrowserSandboxPool, keptSnapshotOptions } from '../../../src/env/browser_pool.ts';
import { SNAPSHOT_CACHE } from '../../../src/env/snapshot_store.ts';
import { Environment } from '../../../src/env/environment.ts';
import type { SandboxPool } from '../../../src/env/pool.ts';
import type { SandboxPoolOptions } from '../../../src/env/pool.ts';
import { hiddenTests } from '../../../src/tasks/tests_harness.ts';

let pool: SandboxPool | null = null;

function requirePool(): SandboxPool {
  if (!pool) throw new Error('call sandboxHarness.start() first');
  return pool;
}

const harness = {
  isolated: crossOriginIsolated,
  async start(options: Omit<SandboxPoolOptions, 'workerFactory'>) {
    pool = await createBrowserSandboxPool(options);
    await pool.whenSparesReady();
    return { ready: pool.lastReady(), metrics: pool.metrics() };
  },
  /**
   * A pool on the snapshot kept in the Cache API, as the page's trainer starts one
   * (browser_pool.ts).
   */
  async startKept(options: Omit<SandboxPoolOptions, 'workerFactory'>) {
    const kept = await keptSnapshotOptions();
    pool = await createBrowserSandboxPool({ ...options, ...kept });
    await pool.whenSparesReady();
    return {
      given: kept.snapshot?.byteLength ?? null,
      ready: pool.lastReady(),
      metrics: pool.metrics(),
    };
  },
  /** What the snapshot cache holds: each key with its size in bytes. */
  async kept() {
    const cache = await caches.open(SNAPSHOT_CACHE);
    return Promise.all(
      (await cache.keys()).map(async (request) => ({
        key: request.url,
        bytes: (await (await cache.match(request))!.arrayBuffer()).byteLength,
      })),
    );
  },
  /** Overwrites every kept snapshot with bytes that are not one. */
  async spoilKept() {
    const cache = await caches.open(SNAPSHOT_CACHE);
    for (const request of await cache.keys())
      await cache.put(request, new Response(new Uint8Array(1024)));
  },
  /** One episode of one program: reset, execute_code. */
  async step(code: string, timeoutMs?: number) {
    const environment = new Environment(
      requirePool(),
      timeoutMs === undefined ? {} : { timeoutMs },
    );
    await environment.reset();
    const start = performance.now();
    const { observation, done, exec } = await environment.step('execute_code', { code });
    return { observation, done, elapsedMs: performance.now() - start, exec };
  },
  async parallelSleep(count: number) {
    const start = performance.now();
    const results = await Promise.all(
      Array.from({ length: count }, () =>
        requirePool().execute('import time\ntime.sleep(1)\nprint("slept")', { timeoutMs: 10_000 }),
      ),
    );
    return {
      elapsedMs: performance.now() - start,
      observations: results.map((r) => r.observation),
    };
  },
  /** Judges `code` against hidden tests (split here, so the expected values stay in the page). */
  async judge(code: string, tests: string[], timeoutMs?: number) {
    const judged = await requirePool().judge(
      code,
      hiddenTests(tests),
      timeoutMs === undefined ? {} : { timeoutMs },
    );
    return {
      passed: judged.passed,
      total: judged.total,
      tampered: judged.tampered,
      timedOut: judged.timedOut,
      details: judged.tests.map((t) => t.detail),
    };
  },
  metrics: () => requirePool().metrics(),
  close: () => requirePool().close(),
};

(window as unknown as { sandboxHarness: typeof harness }).sandboxHarness = harness;
document.querySelector('[data-testid="status"]')!.textContent = 'ready';
