// `npm run bench -- --only sandbox`: the Environment's figures. Targets: a warm execution
// under 10 ms; a runaway costs no more than timeout + 2 s; a terminated worker is replaced from a
// warm spare without a cold start. sandbox_restore_start_ms: the median start of the pool's workers
// restored from its first worker's memory snapshot (its spares and replacements), against
// sandbox_cold_start_ms for a worker loading Pyodide cold. judge_ms: the median warm judgement of a
// 4-test task; judge_episode_overhead_ms and sandbox_isolation_overhead_ms: what putting the clean
// memory image back before every run (memory_image.ts) adds to a judgement and to a `print(1)`,
// against a one-worker pool with `isolate: false`, calls back to back.
import { nodeWorkerFactory, createNodeSandboxPool } from '../env/node_pool.ts';
import { quantile } from '../env/metrics.ts';
import type { SandboxPool } from '../env/pool.ts';
import { Sandbox } from '../env/sandbox.ts';
import { hiddenTests } from '../tasks/tests_harness.ts';

const TIMEOUT_MS = 1000;

const round = (value: number | null) => (value === null ? null : Math.round(value * 100) / 100);

async function wallMs(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** Cold start of one worker on its own: spawn, Pyodide load, the trusted interpreter, lockdown. */
async function coldStart(): Promise<{
  total: number;
  load: number;
  trusted: number;
  lockdown: number;
}> {
  const sandbox = await Sandbox.start(
    nodeWorkerFactory(),
    { maxOutputChars: 500, maxCaptureChars: 10_000, memoryCapBytes: 2 ** 30 },
    { interrupts: true, startTimeoutMs: 120_000 },
  );
  sandbox.terminate();
  return {
    total: sandbox.coldStartMs,
    load: sandbox.ready.loadMs,
    trusted: sandbox.ready.trustedMs,
    lockdown: sandbox.ready.lockdownMs,
  };
}

const JUDGE_TESTS = hiddenTests([
  'assert add(1, 2) == 3',
  'assert add(-5, 5) == 0',
  'assert add(10, 20) == 30',
  'assert abs(add(0.5, 0.25) - 0.75) < 1e-9',
]);

/** Median warm `print(1)` and judgement of a 4-test task on one pool, calls back to back. */
async function warmFigures(pool: SandboxPool): Promise<{ execMs: number; judgeMs: number }> {
  const code = 'def add(a, b):\n    return a + b';
  for (let i = 0; i < 10; i++) await pool.judge(code, JUDGE_TESTS);
  const exec: number[] = [];
  const judge: number[] = [];
  for (let i = 0; i < 60; i++) {
    exec.push(await wallMs(() => pool.execute('print(1)')));
    judge.push(await wallMs(() => pool.judge(code, JUDGE_TESTS)));
  }
  return { execMs: quantile(exec, 0.5)!, judgeMs: quantile(judge, 0.5)! };
}

/** The same figures with and without the memory image, on one-worker pools started alike. */
async function isolationFigures(): Promise<{
  isolated: { execMs: number; judgeMs: number };
  plain: { execMs: number; judgeMs: number };
}> {
  const figures: Array<{ execMs: number; judgeMs: number }> = [];
  for (const isolate of [true, false]) {
    const pool = await createNodeSandboxPool({ size: 1, spares: 0, recycleEvery: 0, isolate });
    try {
      figures.push(await warmFigures(pool));
    } finally {
      await pool.close();
    }
  }
  return { isolated: figures[0]!, plain: figures[1]! };
}

/** Figures for scripts/bench.ts. */
export async function benchSandbox(): Promise<Record<string, unknown>> {
  const colds = [await coldStart(), await coldStart()];
  const isolation = await isolationFigures();
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
      // the second interpreter, which runs the tests (part of the cold start, beside the load)
      sandbox_cold_start_trusted_ms: round(
        quantile(
          colds.map((c) => c.trusted),
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
      judge_ms: round(isolation.isolated.judgeMs),
      judge_episode_overhead_ms: round(isolation.isolated.judgeMs - isolation.plain.judgeMs),
      sandbox_isolation_overhead_ms: round(isolation.isolated.execMs - isolation.plain.execMs),
      sandbox_metrics: metrics,
    };
  } finally {
    await pool.close();
  }
}
