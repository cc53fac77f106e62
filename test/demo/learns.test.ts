// The committed demo model learns under GRPO: a short run of the real pipeline (the default
// preset's loader and trainer, the real Pyodide sandbox and rewards) on a small fixed set of tasks
// raises the mean reward, measured by the same seeded evaluation before and after, and what it
// learns carries to tasks it never trained on (fresh skill instances, scripts/demo/skill_tasks.ts).
//
// Why these margins catch a broken update: with zero advantages, or a mask that drops the model's
// tokens, the weights do not move and the seeded evaluation repeats up to batching noise (±0.02);
// with the advantage's sign flipped (tried by hand in src/rl/advantage.ts) the reward fell to zero
// (0.13 -> 0.00, unseen tasks 0.06 -> 0.00: the model learned to answer without running code). The
// measured gain is +0.66 on the current demo model (0.13 -> 0.78; +0.55 with async on,
// 0.13 -> 0.67), and on the unseen tasks +0.07 (0.06 -> 0.13, 112 episodes; the default run's 30
// steps give +0.18 to +0.24). The margins are under half of those (earlier demo models measured
// +0.36 to +0.52, and fresh-clone CI runs vary: batching follows sandbox timing).
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import { selectBackend } from '../../src/kernels/backend.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { loadPolicy, type LoadedPolicy } from '../../src/service/session.ts';
import type { RunConfig } from '../../src/run/config.ts';
import { resolveRun } from '../../src/run/resolve.ts';
import { Trainer, type TrainerDeps, type TrainerSettings } from '../../src/training/trainer.ts';
import { OverlappedTrainer } from '../../src/training/overlapped_trainer.ts';
import { threadRolloutSource } from '../../src/cli/rollout_worker_thread.ts';
import { createHostedNodeSandboxPool } from '../../src/env/node_pool.ts';
import type { ClosableExecutor } from '../../src/service/trainer_service.ts';
import { TASKS_BY_ID } from '../../src/tasks/registry.ts';
import type { Trajectory } from '../../src/rl/types.ts';
import type { Task } from '../../src/tasks/task.ts';
import { skillTasks } from '../../scripts/demo/skill_tasks.ts';

/**
 * Tasks the demo model solves sometimes (when it runs code rather than guessing), so a group's
 * rewards differ.
 */
const TASK_IDS = [
  'builtin/average',
  'builtin/count_words',
  'builtin/longest_word',
  'builtin/add_item',
];
const STEPS = 8;
const EVAL_SAMPLES = 8;
/**
 * Held out from the run: fresh instances of the skill corpus's kinds (new names, values and
 * wordings, from a seed no corpus uses), never trained on here.
 */
const UNSEEN_TASKS = 28;
const UNSEEN_SAMPLES = 4;
const UNSEEN_MARGIN = 0.03;

/** Records each trajectory the judge flagged for tampering: its task, reasons and last message. */
function noteFlagged(trajectories: readonly Trajectory[], flagged: Map<string, string>): void {
  for (const t of trajectories)
    if (t.tampered.length > 0)
      flagged.set(
        t.id,
        `${t.taskId}: ${t.tampered.join('; ')}\n${t.messages.at(-1)?.content.slice(-400) ?? ''}`,
      );
}

/** A trainer's deps and settings: the config's, on TASK_IDS, every task in every step. */
function parts(
  policy: LoadedPolicy,
  executor: ClosableExecutor,
  config: RunConfig,
): [TrainerDeps, TrainerSettings] {
  const tasks = TASK_IDS.map((id) => TASKS_BY_ID.get(id)!);
  const { model, tokenizer, reference } = policy;
  return [
    { model, tokenizer, executor, reference },
    {
      ...resolveRun(config).trainer,
      tasks,
      evalTasks: [],
      promptsPerStep: tasks.length,
      evalEvery: 0,
    },
  ];
}

describe('the demo model learns', () => {
  let executor: ClosableExecutor;
  let unseen: Task[];
  beforeAll(async () => {
    await selectBackend({ force: 'wasm' });
    executor = await createNodeSandboxPool({ size: 2, timeoutMs: 2000, maxOutputChars: 500 });
    unseen = await skillTasks(executor, UNSEEN_TASKS);
  });
  afterAll(async () => {
    await executor?.close();
  });

  it(`raises mean reward on ${TASK_IDS.length} tasks in ${STEPS} GRPO steps`, async () => {
    const tasks = TASK_IDS.map((id) => TASKS_BY_ID.get(id)!);
    // The default preset, with updates strong enough to show within a few steps.
    const config = presetConfig('default', { seed: 3, groupSize: 8, lr: 5e-3, ppoEpochs: 2 });
    const policy = await loadPolicy(directorySource('public/models/demo'), config, 'demo');
    const trainer = new Trainer(...parts(policy, executor, config));
    const before = await trainer.evaluate(tasks, EVAL_SAMPLES, 11);
    const unseenBefore = await trainer.evaluate(unseen, UNSEEN_SAMPLES, 12);
    const tensors: number[] = [];
    const flagged = new Map<string, string>();
    for (let step = 0; step < STEPS; step++) {
      await trainer.runStep((report) => noteFlagged(report.trajectories, flagged));
      tensors.push(tf.memory().numTensors);
    }
    const after = await trainer.evaluate(tasks, EVAL_SAMPLES, 11);
    const unseenAfter = await trainer.evaluate(unseen, UNSEEN_SAMPLES, 12);
    console.log(
      `demo learns: reward ${before.rewardMean!.toFixed(3)} -> ${after.rewardMean!.toFixed(3)}, pass@1 ${before.passAt1.toFixed(3)} -> ${after.passAt1.toFixed(3)}; unseen tasks pass@1 ${unseenBefore.passAt1.toFixed(3)} -> ${unseenAfter.passAt1.toFixed(3)}`,
    );
    // none of the model's programs tampers with its tests, so the judge flags none (each one it
    // flags is named here with its reasons and its last message)
    expect([...flagged.values()]).toEqual([]);
    expect(tensors.at(-1)).toBe(tensors[0]); // no tensor leaks from step to step (the optimizer's moments appear at step 1)
    expect(before.rewardMean!).toBeLessThan(0.8); // room to learn
    expect(after.rewardMean! - before.rewardMean!).toBeGreaterThanOrEqual(0.18); // measured: +0.42
    // what it learned carries to tasks it never trained on
    expect(unseenAfter.passAt1 - unseenBefore.passAt1).toBeGreaterThanOrEqual(UNSEEN_MARGIN);
    trainer.dispose();
    policy.dispose();
  }, 900_000);
});

// The same run overlapped (`async`): a rollout worker thread samples step t+1 with the weights of
// step t-1 while the trainer updates, through the sandbox pool's own thread. Its batches are one
// update stale from step 2 on, so it learns from the same tasks on other samples; the bar is the
// same. (The default run itself, 30 steps, 3 seeds: docs/performance.md "Async rollout".)
describe('the demo model learns with async on', () => {
  it(`raises mean reward on ${TASK_IDS.length} tasks in ${STEPS} overlapped GRPO steps`, async () => {
    await selectBackend({ force: 'wasm' });
    const executor = await createHostedNodeSandboxPool({
      size: 2,
      timeoutMs: 2000,
      maxOutputChars: 500,
    });
    const tasks = TASK_IDS.map((id) => TASKS_BY_ID.get(id)!);
    const config = presetConfig('default', {
      seed: 3,
      groupSize: 8,
      lr: 5e-3,
      ppoEpochs: 2,
      async: true,
      steps: STEPS, // the last step: no episodes are sampled past it
    });
    const policy = await loadPolicy(directorySource('public/models/demo'), config, 'demo');
    const { source, workers } = threadRolloutSource({
      config,
      modelDir: 'public/models/demo',
      executor,
      threads: 1,
    });
    const trainer = new OverlappedTrainer(...parts(policy, executor, config), source);
    try {
      const before = await trainer.evaluate(tasks, EVAL_SAMPLES, 11);
      const staleness: number[] = [];
      const flagged = new Map<string, string>();
      for (let step = 0; step < STEPS; step++)
        staleness.push(
          (await trainer.runStep((report) => noteFlagged(report.trajectories, flagged)))
            .staleness ?? -1,
        );
      const after = await trainer.evaluate(tasks, EVAL_SAMPLES, 11);
      console.log(
        `demo learns with async on: reward ${before.rewardMean!.toFixed(3)} -> ${after.rewardMean!.toFixed(3)}, pass@1 ${before.passAt1.toFixed(3)} -> ${after.passAt1.toFixed(3)}`,
      );
      expect([...flagged.values()]).toEqual([]);
      expect(staleness).toEqual([0, ...Array(STEPS - 1).fill(1)]);
      expect(trainer.accounting()).toEqual({
        workers_started: 1,
        episodes_sampled: STEPS * tasks.length * 8,
        episodes_trained: STEPS * tasks.length * 8,
        episodes_dropped: 0,
      });
      expect(after.rewardMean! - before.rewardMean!).toBeGreaterThanOrEqual(0.18);
      await source.settled();
      expect(await workers.numTensors()).toBeGreaterThan(0);
    } finally {
      await trainer.close();
      policy.dispose();
      await executor.close();
    }
  }, 900_000);
});
