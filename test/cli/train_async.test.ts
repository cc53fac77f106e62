// `async` in the CLI: the overlapped trainer with its rollout worker in a worker thread
// (src/cli/rollout_worker_thread.ts, workers/rollout.worker.ts). Through a subprocess as a user runs it,
// and in this process to kill the worker mid-job: it is started again and nothing is lost.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CodeExecutor } from '../../src/env/types.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { OverlappedTrainer } from '../../src/training/overlapped_trainer.ts';
import { parseRunConfig } from '../../src/run/config_validation.ts';
import { threadRolloutSource } from '../../src/cli/rollout_worker_thread.ts';
import { createTrainer, loadPolicy } from '../../src/service/session.ts';
import { makeModelFolder, PROMPT } from '../helpers/tiny_policy.ts';
import { cliLines } from './helpers.ts';

describe('train with async on', () => {
  let modelDir: string;
  const work = mkdtempSync(join(tmpdir(), 'train-async-'));
  const runConfig = () => ({
    model: modelDir,
    tasks: 'custom',
    customTasks: [{ prompt: PROMPT, expectedOutput: '7' }],
    steps: 3,
    groupSize: 4,
    maxTurns: 1,
    maxNewTokens: 24,
    evalEvery: 0,
    seed: 3,
    async: true,
  });
  beforeAll(async () => {
    modelDir = await makeModelFolder();
  }, 300_000);

  it('prints staleness and the timeline figures per step, and accounts for every episode', async () => {
    writeFileSync(join(work, 'run.json'), JSON.stringify(runConfig()));
    const { code, lines } = await cliLines('train', '--config', join(work, 'run.json'));
    expect(code).toBe(0);
    expect(lines).toHaveLength(4);
    const steps = lines.slice(0, 3);
    expect(steps.map((l) => l.staleness)).toEqual([0, 1, 1]);
    for (const line of steps) {
      for (const key of ['overlap_fraction', 'seconds_idle_trainer', 'seconds_idle_rollout'])
        expect(typeof line[key]).toBe('number');
      expect(line.loss).not.toBeNull();
    }
    const summary = lines[3]!.summary as { async: Record<string, number> };
    // 3 steps of 4 episodes, none asked for past the last step, none dropped
    expect(summary.async).toEqual({
      workers_started: 1,
      episodes_sampled: 12,
      episodes_trained: 12,
      episodes_dropped: 0,
    });
  }, 300_000);

  it('a killed rollout worker is started again and the run goes on; no episode is lost', async () => {
    // 5 steps: 3 around the kill, then 2 between two idle moments of the worker
    const config = parseRunConfig({ ...runConfig(), steps: 5 });
    // a sandbox that takes its time, as a real one does
    const executor: CodeExecutor = {
      execute: async (code) => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        const printed = /print\((\d+)\)/.exec(code)?.[1] ?? '';
        return { ok: true, observation: printed, timedOut: false, error: null };
      },
    };
    const policy = await loadPolicy(directorySource(modelDir), config, 'path');
    const { source, workers } = threadRolloutSource({ config, modelDir, executor, threads: 1 });
    const trainer = createTrainer(policy, executor, config, source) as OverlappedTrainer;
    try {
      // the kill lands while the worker samples step 2's job (asked for as step 1's update
      // begins, so beside it), however long step 1 takes on this machine
      const killed = workers.kill({ whileSampling: 2 });
      const first = await trainer.runStep();
      expect(source.pending).toBe(true);
      const second = await trainer.runStep();
      await killed;
      // the step the kill fell in says so on its metrics line (step 1's if its update was still
      // running, else step 2's, which waited for the job again); the next does not
      expect([
        first.rollout_restarts! + second.rollout_restarts!,
        first.episodes_dropped! + second.episodes_dropped!,
      ]).toEqual([1, 4]);
      const next = await trainer.runStep();
      expect([next.rollout_restarts, next.episodes_dropped]).toEqual([0, 0]);
      expect(trainer.step).toBe(3);
      expect(workers.starts).toBe(2);
      // the killed job's 4 episodes count as dropped; the rest were trained on
      expect(trainer.trainedEpisodes).toBe(12);
      expect(source.droppedTrajectories).toBe(4);
      // the worker's tensors are steady from one idle moment to the next, two steps apart; at the
      // first, step 4's 4 episodes (asked for beside step 3's update) are sampled and waiting
      await source.settled();
      expect(source.sampledTrajectories).toBe(
        trainer.trainedEpisodes + source.droppedTrajectories + 4,
      );
      const tensors = await workers.numTensors();
      await trainer.runStep();
      await trainer.runStep();
      await source.settled();
      expect(await workers.numTensors()).toBe(tensors);
      expect(source.sampledTrajectories).toBe(trainer.trainedEpisodes + source.droppedTrajectories);
    } finally {
      (await trainer) instanceof OverlappedTrainer ? trainer.close() : undefined;
      policy.dispose();
    }
  }, 300_000);
});
