// The overlapped (async) trainer with a rollout worker in this thread (src/training/overlapped_trainer.ts,
// src/training/rollout_source.ts): the same first-step samples and tasks as the synchronous loop, one
// step of staleness after the first, steady tensor counts, and every sampled episode either
// trained on or counted as dropped when a step fails and is undone.
import * as tf from '@tensorflow/tfjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CodeExecutor } from '../../src/env/types.ts';
import { selectBackend } from '../../src/kernels/backend.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { CausalLM, type TrainingMode } from '../../src/model/model.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { OverlappedTrainer } from '../../src/training/overlapped_trainer.ts';
import { localRolloutSource } from '../../src/training/rollout_source.ts';
import { Trainer, type TrainerSettings } from '../../src/training/trainer.ts';
import type { StepMetrics, Trajectory } from '../../src/rl/types.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { resolveRun } from '../../src/run/resolve.ts';
import type { Task } from '../../src/tasks/task.ts';
import { loadTokenizer, type Tokenizer } from '../../src/tokenizer/index.ts';
import { AllocationFaults } from '../helpers/allocation_faults.ts';
import { TINY_BYTE_MODEL } from '../helpers/tiny_trainer.ts';

const modelConfig = TINY_BYTE_MODEL;

const task = (n: number): Task => ({
  id: `custom/t${n}`,
  source: 'custom',
  prompt: `Print ${n}.`,
  expectedOutput: String(n),
  tests: null,
  family: 'numbers',
  kind: 'print',
  difficulty: 1,
  split: 'train',
  solution: null,
});
const tasks = [task(1), task(2), task(3)];

const executor: CodeExecutor = {
  execute: async () => ({ ok: true, observation: '1', timedOut: false, error: null }),
};

const lora: TrainingMode = {
  kind: 'lora',
  lora: { rank: 2, alpha: 4, dropout: 0, targetModules: ['q_proj', 'v_proj'], seed: 5 },
};

function settings(overrides: Partial<TrainerSettings> = {}): TrainerSettings {
  const config = presetConfig('default', {
    groupSize: 2,
    maxTurns: 1,
    maxNewTokens: 6,
    klCoef: 0,
    evalEvery: 0,
    seed: 11,
    lr: 0.05,
  });
  return { ...resolveRun(config).trainer, tasks, evalTasks: [], promptsPerStep: 2, ...overrides };
}

const model = (mode: TrainingMode = lora) =>
  CausalLM.fromWeights(modelConfig, randomWeights(modelConfig, 1), mode);

describe('the overlapped trainer', () => {
  let tokenizer: Tokenizer;
  const disposers: (() => void | Promise<void>)[] = [];
  beforeAll(async () => {
    await selectBackend({ force: 'wasm' });
    tokenizer = await loadTokenizer(directorySource('test/fixtures/tokenizers/bytes'));
  });
  afterEach(async () => {
    for (const dispose of disposers.splice(0)) await dispose();
  });

  /** An overlapped trainer over a fresh model, with its rollout worker's own copy. */
  function overlapped(
    mode: TrainingMode = lora,
    overrides: Partial<TrainerSettings> = {},
  ): OverlappedTrainer {
    const trainerModel = model(mode);
    const workerModel = model(mode);
    const source = localRolloutSource({ model: workerModel, tokenizer, executor, tasks });
    const trainer = new OverlappedTrainer(
      { model: trainerModel, tokenizer, executor, reference: null },
      settings(overrides),
      source,
    );
    disposers.push(async () => {
      await trainer.close();
      trainerModel.dispose();
      workerModel.dispose();
    });
    return trainer;
  }

  it('samples step 1 exactly as the synchronous loop does, and draws the same tasks after', async () => {
    const syncModel = model();
    const sync = new Trainer(
      { model: syncModel, tokenizer, executor, reference: null },
      settings(),
    );
    disposers.push(() => {
      sync.dispose();
      syncModel.dispose();
    });
    const async = overlapped();
    const syncSteps: Trajectory[][] = [];
    const asyncSteps: Trajectory[][] = [];
    for (let i = 0; i < 3; i++) {
      const a = await sync.runStep((r) => {
        if (r.phase === 'rollout') syncSteps.push(r.trajectories);
      });
      const b = await async.runStep((r) => {
        if (r.phase === 'rollout') asyncSteps.push(r.trajectories);
      });
      expect(a.step).toBe(b.step);
    }
    const ids = (step: { ids: number[]; taskId: string; id: string }[]) =>
      step.map((t) => [t.id, t.taskId, t.ids]);
    expect(ids(asyncSteps[0]!)).toEqual(ids(syncSteps[0]!));
    // later steps: the same tasks in the same order (the samples differ: older weights)
    for (let i = 1; i < 3; i++)
      expect(asyncSteps[i]!.map((t) => t.taskId)).toEqual(syncSteps[i]!.map((t) => t.taskId));
  });

  it("a checkpoint's cursor is the synchronous loop's, so a resume draws the same next tasks", async () => {
    const syncModel = model();
    const sync = new Trainer(
      { model: syncModel, tokenizer, executor, reference: null },
      settings(),
    );
    disposers.push(() => {
      sync.dispose();
      syncModel.dispose();
    });
    const async = overlapped();
    for (let i = 0; i < 2; i++) {
      await sync.runStep();
      await async.runStep();
    }
    // step 3's episodes are already being sampled, but the saved cursor is from before them
    expect(async.source.pending).toBe(true);
    const saved = async.saveCursor();
    expect(saved).toEqual(sync.saveCursor());
    const resumed = overlapped();
    resumed.loadCursor(saved);
    resumed.step = 2;
    let resumedTasks: string[] = [];
    let syncTasks: string[] = [];
    await resumed.runStep((r) => {
      if (r.phase === 'rollout') resumedTasks = r.trajectories.map((t) => t.taskId);
    });
    await sync.runStep((r) => {
      if (r.phase === 'rollout') syncTasks = r.trajectories.map((t) => t.taskId);
    });
    expect(resumedTasks).toEqual(syncTasks);
  });

  it('trains one step stale after the first, with the figures of the timeline', async () => {
    const trainer = overlapped();
    const metrics: StepMetrics[] = [];
    for (let i = 0; i < 3; i++) metrics.push(await trainer.runStep());
    expect(metrics.map((m) => m.staleness)).toEqual([0, 1, 1]);
    for (const m of metrics) {
      expect(m.loss).not.toBeNull();
      expect(m.ratio_mean).not.toBeNull();
      expect(m.overlap_fraction).toBeGreaterThanOrEqual(0);
      expect(m.overlap_fraction).toBeLessThanOrEqual(1);
      expect(m.timeline!.spans.some((s) => s.lane === 'trainer' && s.kind === 'update')).toBe(true);
    }
    // the worker's rounds are on the rollout lane of the step whose wall time they fell in
    expect(metrics.some((m) => m.timeline!.spans.some((s) => s.lane === 'rollout'))).toBe(true);
  });

  it('a stale batch is off-policy: the ratio moves away from 1 while on-policy it is 1', async () => {
    // full fine-tuning with strong weight decay: every update changes the policy even where the
    // random model's rewards (all 0) give no gradient
    const base = settings();
    const trainer = overlapped(
      { kind: 'full' },
      { weightDecay: 0.5, update: { ...base.update, ppoEpochs: 1 } },
    );
    const first = await trainer.runStep();
    const second = await trainer.runStep();
    // one PPO epoch: on-policy the ratio is exactly 1; one update behind, it is not
    expect(first.ratio_mean).toBeCloseTo(1, 6);
    expect(Math.abs(second.ratio_mean! - 1)).toBeGreaterThan(1e-4);
  });

  it('keeps tf.memory().numTensors steady step after step (LoRA and full weights)', async () => {
    for (const mode of [lora, { kind: 'full' } as TrainingMode]) {
      const trainer = overlapped(mode);
      await trainer.runStep();
      await trainer.runStep();
      const before = tf.memory().numTensors;
      await trainer.runStep();
      await trainer.runStep();
      expect(tf.memory().numTensors).toBe(before);
    }
  });

  it('a failed step drops its prefetched episodes and counts them: nothing is lost', async () => {
    const trainer = overlapped(lora, { finalStep: 3 });
    await trainer.runStep();
    // step 2's update fails after step 3's episodes were requested: the step is undone
    const faults = new AllocationFaults();
    trainer.faults = faults;
    faults.arm({ step: 2, phase: 'update' });
    await expect(trainer.runStep()).rejects.toThrow();
    expect(trainer.step).toBe(1);
    await trainer.runStep();
    await trainer.runStep();
    expect(trainer.step).toBe(3);
    await trainer.source.discard();
    // 2 prompts x 2 samples per job: the failed step's batch and step 3's prefetch (sampled
    // while the failed update ran) are dropped; steps 1, 2 and 3 as run again are trained on
    const perStep = 4;
    expect(trainer.trainedEpisodes).toBe(3 * perStep);
    expect(trainer.source.droppedTrajectories).toBe(2 * perStep);
    expect(trainer.source.sampledTrajectories).toBe(5 * perStep);
  });

  it('a step undone after its update (its evaluation failed) moves its episodes from trained to dropped', async () => {
    const trainer = overlapped(lora, { evalEvery: 1, evalTasks: [task(1)], finalStep: 2 });
    await trainer.runStep();
    const faults = new AllocationFaults();
    trainer.faults = faults;
    faults.arm({ step: 2, phase: 'evaluation' });
    await expect(trainer.runStep()).rejects.toThrow();
    expect(trainer.step).toBe(1);
    await trainer.runStep();
    await trainer.source.discard();
    expect(trainer.trainedEpisodes).toBe(2 * 4);
    expect(trainer.source.droppedTrajectories).toBe(4);
    expect(trainer.source.sampledTrajectories).toBe(
      trainer.trainedEpisodes + trainer.source.droppedTrajectories,
    );
  });
});
