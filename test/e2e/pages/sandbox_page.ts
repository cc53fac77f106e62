// Test harness page for test/e2e/sandbox.test.ts: the real browser sandbox pool (Web Workers built
// by Vite) behind a small window API that the test drives with page.evaluate.
import { createBrowserSandboxPool } from '../../../src/env/browser_pool.ts';
import { Environment } from '../../../src/env/environment.ts';
import type { SandboxPool } from '../../../src/env/pool.ts';
import type { SandboxPoolOptions } from '../../../src/env/pool.ts';

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
  /** One episode of one program: reset, execute_code. */
  async step(code: string, timeoutMs?: number) {
    const environment = new Environment(requirePool(), timeoutMs === undefined ? {} : { timeoutMs });
    await environment.reset();
    const start = performance.now();
    const { observation, done, exec } = await environment.step('execute_code', { code });
    return { observation, done, elapsedMs: performance.now() - start, exec };
  },
  async parallelSleep(count: number) {
    const start = performance.now();
    const results = await Promise.all(Array.from({ length: count }, () => requirePool().execute('import time\ntime.sleep(1)\nprint("slept")', { timeoutMs: 10_000 })));
    return { elapsedMs: performance.now() - start, observations: results.map((r) => r.observation) };
  },
  metrics: () => requirePool().metrics(),
  close: () => requirePool().close(),
};

(window as unknown as { sandboxHarness: typeof harness }).sandboxHarness = harness;
document.querySelector('[data-testid="status"]')!.textContent = 'ready';
