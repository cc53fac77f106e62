// `npm run bench -- --only async`: the default run on the demo model, synchronous
// against overlapped (`async`: a rollout worker thread beside the trainer), same seed, for a few
// steps: episodes per minute, the reward against wall-clock time, and the timeline's figures.
//
// Cores: this machine's; "as on a 4- and an 8-core machine" sets the matmul threads each worker
// may use as it would be there (sync: min(4, cores); async: half the cores each, at most 4), on
// the cores there are here. So those rows measure oversubscription on this machine, not the other
// machine: read them as "what the thread settings alone change", and only the row for this core
// count as the real comparison.
import { cpus } from 'node:os';
import { selectBackend } from '../kernels/backend.ts';
import { presetConfig } from '../run/presets.ts';
import type { RunConfig } from '../run/config.ts';
import { createTrainer, loadPolicy } from '../service/session.ts';
import { DEMO_MODEL_DIR, nodeModelSource, openConfigSandbox } from '../cli/node_run.ts';
import { threadRolloutSource } from '../cli/rollout_worker_thread.ts';
import { OverlappedTrainer } from '../training/overlapped_trainer.ts';
import { mean } from '../rl/metrics.ts';

/** Threads per worker as on a machine with `cores` cores. */
function layout(cores: number): { sync: number; trainer: number; rollout: number } {
  const half = Math.max(1, Math.min(4, Math.floor(cores / 2)));
  return { sync: Math.min(4, cores), trainer: half, rollout: half };
}

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

/** One timed run: per step, the wall-clock seconds since the first step began and its figures. */
async function timedRun(config: RunConfig, threads: { trainer: number; rollout: number }) {
  await selectBackend({ force: 'wasm', threads: threads.trainer });
  const { source, origin } = nodeModelSource(config.model);
  const executor = await openConfigSandbox(config);
  const policy = await loadPolicy(source, config, origin);
  const rollouts = config.async
    ? threadRolloutSource({ config, modelDir: DEMO_MODEL_DIR, executor, threads: threads.rollout })
    : null;
  const trainer = createTrainer(policy, executor, config, rollouts?.source);
  try {
    if (rollouts) await rollouts.workers.numTensors(); // the worker's start is not timed
    const started = performance.now();
    const steps = [];
    for (let i = 0; i < config.steps; i++) {
      const m = await trainer.runStep();
      steps.push({
        seconds: round((performance.now() - started) / 1000, 2),
        reward_mean: round(m.reward_mean),
        pass_rate: round(m.pass_rate),
        overlap_fraction: round(m.overlap_fraction ?? 0),
        seconds_idle_trainer: round(m.seconds_idle_trainer ?? 0, 2),
        seconds_idle_rollout: round(m.seconds_idle_rollout ?? 0, 2),
        staleness: m.staleness ?? 0,
        episodes: m.trained_trajectories,
      });
    }
    const seconds = (performance.now() - started) / 1000;
    const episodes = steps.length * trainer.settings.promptsPerStep * config.groupSize;
    return {
      episodes_per_min: round((episodes / seconds) * 60, 1),
      seconds: round(seconds, 1),
      overlap_fraction_mean: round(mean(steps.map((s) => s.overlap_fraction))),
      seconds_idle_trainer_mean: round(mean(steps.map((s) => s.seconds_idle_trainer)), 2),
      seconds_idle_rollout_mean: round(mean(steps.map((s) => s.seconds_idle_rollout)), 2),
      reward_vs_seconds: steps.map((s) => [s.seconds, s.reward_mean]),
      steps,
    };
  } finally {
    if (trainer instanceof OverlappedTrainer) await trainer.close();
    else trainer.dispose();
    policy.dispose();
    await executor.close();
  }
}

/**
 * Figures for scripts/bench.ts: per core layout, sync and async on the same seeds, alternated seed
 * by seed so that drift in the machine's load hits both alike (BENCH_ASYNC_SEEDS, default 1;
 * BENCH_ASYNC_STEPS, default 6; BENCH_ASYNC_LAYOUTS, default this machine's cores, 4 and 8).
 */
export async function benchAsync(): Promise<Record<string, unknown>> {
  const steps = Number(process.env.BENCH_ASYNC_STEPS ?? 6);
  const seeds = (process.env.BENCH_ASYNC_SEEDS ?? '1').split(',').map(Number);
  const here = cpus().length;
  const wanted = process.env.BENCH_ASYNC_LAYOUTS?.split(',').map(Number) ?? [here, 4, 8];
  const result: Record<string, unknown> = {};
  for (const cores of [...new Set(wanted)]) {
    const threads = layout(cores);
    const runs: Record<'sync' | 'async', Awaited<ReturnType<typeof timedRun>>[]> = {
      sync: [],
      async: [],
    };
    for (const seed of seeds) {
      for (const async of [false, true]) {
        const mode = async ? 'async' : 'sync';
        process.stderr.write(`[bench] async: ${cores}-core layout, seed ${seed}, ${mode}…\n`);
        const config = presetConfig('default', { steps, seed, evalEvery: 0, async });
        runs[mode].push(
          await timedRun(config, async ? threads : { trainer: threads.sync, rollout: 0 }),
        );
      }
    }
    const summary = (mode: 'sync' | 'async') => ({
      episodes_per_min: round(mean(runs[mode].map((r) => r.episodes_per_min)), 1),
      overlap_fraction_mean: round(mean(runs[mode].map((r) => r.overlap_fraction_mean))),
      seconds_idle_trainer_mean: round(mean(runs[mode].map((r) => r.seconds_idle_trainer_mean)), 2),
      seconds_idle_rollout_mean: round(mean(runs[mode].map((r) => r.seconds_idle_rollout_mean)), 2),
      runs: runs[mode],
    });
    const sync = summary('sync');
    const async = summary('async');
    result[cores === here ? `cores_${cores}_this_machine` : `cores_${cores}_threads_as_on`] = {
      threads,
      async_over_sync_episodes_per_min: round(async.episodes_per_min / sync.episodes_per_min, 2),
      sync,
      async,
    };
  }
  return { async: { cores_here: here, steps, seeds, ...result } };
}
