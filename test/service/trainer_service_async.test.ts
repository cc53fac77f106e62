// The worker API with `async` on (a rollout worker in this thread, injected as the browser's and
// Node's shells inject theirs): the phase stepper works, a batch is one update stale, and a
// checkpoint taken while the next step's episodes are being sampled resumes to the synchronous
// run's next step exactly (its cursor is from before that request, which the restore drops).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import { selectBackend } from '../../src/kernels/backend.ts';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { localRolloutSource } from '../../src/training/rollout_source.ts';
import type { Trajectory } from '../../src/rl/types.ts';
import { defaultConfig } from '../../src/run/config.ts';
import { encodeLink } from '../../src/run/link.ts';
import { resolveRun } from '../../src/run/resolve.ts';
import { TrainerService, type ServiceDeps } from '../../src/service/trainer_service.ts';
import { loadTokenizer } from '../../src/tokenizer/index.ts';
import { makeModelFolder, PROMPT } from '../helpers/tiny_policy.ts';

describe('TrainerService with async on', () => {
  let dir: string;
  const services: TrainerService[] = [];
  const workerModels: CausalLM[] = [];
  beforeAll(async () => {
    dir = await makeModelFolder();
  }, 300_000);
  afterAll(async () => {
    await Promise.all(services.map((s) => s.close()));
    for (const model of workerModels) model.dispose();
  });

  const newService = async (async: boolean) => {
    const deps: ServiceDeps = {
      selectBackend: (force) => selectBackend({ force: force ?? 'wasm' }),
      createExecutor: (options) => createNodeSandboxPool(options),
      sourceFor: () => ({ source: directorySource(dir), origin: 'path' }),
      createRolloutSource: async (config, _choice, executor) => {
        const source = directorySource(dir);
        const run = resolveRun(config);
        const model = await CausalLM.load(source, { training: run.training });
        workerModels.push(model);
        const tokenizer = await loadTokenizer(source);
        const { tasks } = run.trainer;
        return localRolloutSource({ model, tokenizer, executor, tasks });
      },
    };
    const service = new TrainerService(deps);
    services.push(service);
    await service.init({ backend: 'wasm', sandboxes: 1 }, () => {});
    const config = {
      ...defaultConfig(),
      tasks: 'custom' as const,
      customTasks: [{ prompt: PROMPT, expectedOutput: '7' }],
      groupSize: 6,
      maxTurns: 1,
      maxNewTokens: 24,
      lr: 3e-3,
      seed: 11,
      async,
    };
    await service.configure(await encodeLink(config));
    await service.loadModel({ kind: 'demo' }, () => {});
    return service;
  };

  const ids = (trajectories: readonly Trajectory[]) => trajectories.map((t) => t.ids);

  it('steps phase by phase, and resumes from a checkpoint to the synchronous run', async () => {
    const sync = await newService(false);
    const syncRollouts: Trajectory[][] = [];
    for (let i = 0; i < 2; i++)
      await sync.runStep((r) => {
        if (r.phase === 'rollout') syncRollouts.push(r.trajectories);
      });

    const service = await newService(true);
    const phases = [];
    for (let i = 0; i < 4; i++) phases.push(await service.runPhase());
    expect(phases.map((p) => p.phase)).toEqual(['rollout', 'reward', 'advantage', 'update']);
    expect(ids(phases[0]!.trajectories)).toEqual(ids(syncRollouts[0]!));
    expect(phases[3]!.metrics!.staleness).toBe(0);
    const saved = await service.checkpoint(); // step 2's episodes are being sampled now
    const second = await service.runStep(() => {});
    expect(second.staleness).toBe(1);

    const resumed = await newService(true);
    await resumed.restore(saved);
    let resumedRollout: Trajectory[] = [];
    const continued = await resumed.runStep((r) => {
      if (r.phase === 'rollout') resumedRollout = r.trajectories;
    });
    expect(continued.step).toBe(2);
    // asked for afresh with the restored weights and cursor: the synchronous run's step 2
    expect(continued.staleness).toBe(0);
    expect(ids(resumedRollout)).toEqual(ids(syncRollouts[1]!));
  }, 300_000);
});
