// `npm run bench -- --only sandbox`: the Environment's figures. Targets: a warm execution
// under 10 ms; a runaway costs no more than timeout + 2 s; a terminated worker is replaced from a
// warm spare without a cold start. sandbox_restore_start_ms: the median start of the pool's workers
// restored from its first worker's memory snapshot (its spares and replacements), against
// sandbox_cold_start_ms for a worker loading Pyodide cold.
import { nodeWorkerFactory, createNodeSandboxPool } from '../env/node_pool.ts';
import { quantile } from '../env/metrics.ts';
import { Sandbox } from '../env/sandbox.ts';

const TIMEOUT_MS = 1000;

const round = (value: number | null) => (value === null ? null : Math.round(value * 100) / 100);

async function wallMs(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** Cold start of one worker on its own: spawn, Pyodide load, lockdown. */
async function coldStart(): Promise<{ total: number; load: number; lockdown: number }> {
  const sandbox = await Sandbox.start(
    nodeWorkerFactory(),
    { maxOutputChars: 500, maxCaptureChars: 10_000, memoryCapBytes: 2 ** 30 },
    { interrupts: true, startTimeoutMs: 120_000 },
  );
  sandbox.terminate();
  return {
    total: sandbox.coldStartMs,
    load: sandbox.ready.loadMs,
    lockdown: sandbox.ready.lockdownMs,
  };
}

/** Figures for scripts/bench.ts. */
export async function benchSandbox(): Promise<Record<string, unknown>> {
  const colds = [await coldStart(), await coldStart()];
  const pool = await createNodeSandboxPool({
    size: 2,
    spares: 1,
    timeoutMs: TIMEOUT_MS,
    recycleEvery: 0,
  });
  await pool.whenSparesReady();
  try {
    for (let i = 0; i < 10; i++) await pool.execute('print(1)');
    const warm: number[] = [];
    for (let i = 0; i < 200; i++) warm.push(await wallMs(() => pool.execute('print(1)')));
    const traceback = await wallMs(() => pool.execute('def f(n):\n    return 1 / n\nf(0)'));

    const interrupted = await wallMs(() => pool.execute('while True:\n    pass'));
    const terminated = await wallMs(() => pool.execute('sum(range(10**11))'));
    // Terminate to ready: the next program right after the terminated one, served by the spare.
    const afterTerminate = await wallMs(() => pool.execute('print(1)'));
    const swapMs = pool.metrics().lastRespawnMs;
    const parallel = await wallMs(() =>
      Promise.all(
        [0, 1].map(() => pool.execute('import time\ntime.sleep(1)', { timeoutMs: 5000 })),
      ),
    );
    const metrics = pool.metrics();
    return {
      sandbox_exec_warm_ms: round(quantile(warm, 0.5)),
      sandbox_exec_warm_p95_ms: round(quantile(warm, 0.95)),
      sandbox_exec_traceback_ms: round(traceback),
      sandbox_respawn_ms: round(afterTerminate),
      sandbox_respawn_swap_ms: round(swapMs),
      sandbox_cold_start_ms: round(
        quantile(
          colds.map((c) => c.total),
          0.5,
        ),
      ),
      sandbox_cold_start_pyodide_load_ms: round(
        quantile(
          colds.map((c) => c.load),
          0.5,
        ),
      ),
      sandbox_cold_start_lockdown_ms: round(
        quantile(
          colds.map((c) => c.lockdown),
          0.5,
        ),
      ),
      sandbox_restore_start_ms: round(metrics.medianRestoreStartMs),
      sandbox_runaway_interrupt_overhead_ms: round(interrupted - TIMEOUT_MS),
      sandbox_runaway_terminate_overhead_ms: round(terminated - TIMEOUT_MS),
      sandbox_parallel_2x_sleep1_ms: round(parallel),
      sandbox_metrics: metrics,
    };
  } finally {
    await pool.close();
  }
}
