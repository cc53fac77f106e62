// Out of memory mid-run loses nothing: with the demo model and the real sandbox, a step
// that runs out of memory (injected as V8 words it, or for real: the wasm heap filled to its 4 GiB
// limit) fails with a message naming the step, the phase and the fix; the run stands exactly as
// before that step (weights, optimizer, step count, task cursor) with no tensor left behind; the
// next step then runs; and through the worker's API and the CLI, a checkpoint from before resumes
// with a smaller micro-batch.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import { parseArgs } from '../../src/cli/args.ts';
import { trainCommand } from '../../src/cli/train_command.ts';
import { selectBackend } from '../../src/kernels/backend.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { OutOfMemoryError } from '../../src/training/out_of_memory.ts';
import { saveTrainable } from '../../src/training/step_rollback.ts';
import { Trainer } from '../../src/training/trainer.ts';
import { sandboxSettings } from '../../src/run/config.ts';
import { encodeLink } from '../../src/run/link.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { loadPolicy, type LoadedPolicy } from '../../src/service/session.ts';
import { resolveRun } from '../../src/run/resolve.ts';
import { TrainerService, type ClosableExecutor } from '../../src/service/trainer_service.ts';
import { TASKS_BY_ID } from '../../src/tasks/registry.ts';
import { AllocationFaults } from '../helpers/allocation_faults.ts';

// The service and the CLI build their trainers inside (session.ts createTrainer): each one built
// while `inside.faults` is set gets those faults.
const inside = vi.hoisted(() => ({ faults: null as AllocationFaults | null }));
vi.mock('../../src/service/session.ts', async (importOriginal) => {
  const session = await importOriginal<typeof import('../../src/service/session.ts')>();
  return {
    ...session,
    createTrainer(...args: Parameters<typeof session.createTrainer>) {
      const trainer = session.createTrainer(...args);
      if (inside.faults) trainer.faults = inside.faults;
      return trainer;
    },
  };
});

const DEMO = 'public/models/demo';
const TASK_IDS = ['builtin/average', 'builtin/add_item'];
/** A small default run: 2 prompts × G 4, one turn of 32 tokens, two optimizer steps per batch. */
const config = presetConfig('default', {
  seed: 5,
  groupSize: 4,
  maxTurns: 1,
  maxNewTokens: 32,
  ppoEpochs: 2,
  microBatchSize: 4,
  lr: 3e-3,
  evalEvery: 0,
  timeoutMs: 2000,
});

/** The run's state as plain numbers: weights, optimizer, step, cursor. */
async function runState(trainer: Trainer, policy: LoadedPolicy) {
  const saved = await saveTrainable(policy.model.trainableVariables(), trainer.optimizer);
  return {
    weights: Object.fromEntries([...saved.weights].map(([name, w]) => [name, Array.from(w.data)])),
    optimizer: saved.optimizer,
    step: trainer.step,
    history: trainer.history.length,
    cursor: trainer.saveCursor(),
  };
}

describe('out of memory mid-run (demo model, real sandbox)', () => {
  let executor: ClosableExecutor;
  let policy: LoadedPolicy;
  let trainer: Trainer;
  const faults = new AllocationFaults();
  beforeAll(async () => {
    await selectBackend({ force: 'wasm' });
    executor = await createNodeSandboxPool({ size: 2, timeoutMs: 2000, maxOutputChars: 500 });
    policy = await loadPolicy(directorySource(DEMO), config, 'demo');
    const tasks = TASK_IDS.map((id) => TASKS_BY_ID.get(id)!);
    trainer = new Trainer(
      { model: policy.model, tokenizer: policy.tokenizer, executor, reference: policy.reference },
      { ...resolveRun(config).trainer, tasks, evalTasks: [], promptsPerStep: tasks.length },
    );
    trainer.faults = faults;
    await trainer.runStep(); // step 1: the optimizer has moments from here on
  }, 300_000);
  afterAll(async () => {
    trainer?.dispose();
    policy?.dispose();
    await executor?.close();
  });
  afterEach(() => faults.arm(null));

  it('a failure mid-update (half of the variables written) says where and what to change, and undoes the step', async () => {
    const before = await runState(trainer, policy);
    const tensors = tf.memory().numTensors;
    const [firstName, first] = [...policy.model.trainableVariables()][0]!;
    const assign = vi.spyOn(first, 'assign');
    faults.arm({ step: 2, phase: 'update' });
    const error = await trainer.runStep().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutOfMemoryError);
    const oom = error as OutOfMemoryError;
    expect(oom.message).toMatch(
      /^out of memory at step 2 in the update \(RangeError: WebAssembly\.Memory\.grow\(\): Maximum memory size exceeded\)\. Nothing of step 2 was applied: the run stands as after step 1\. Fix: micro-batch 1 \(now 4\), fewer tokens per turn \(now 32\), or a smaller model\.$/,
    );
    expect(oom).toMatchObject({ step: 2, phase: 'update', restored: true });
    // the failure came after the optimizer had written this variable; the undo wrote it back
    expect(assign.mock.calls.length).toBeGreaterThanOrEqual(2);
    assign.mockRestore();
    const after = await runState(trainer, policy);
    expect(after.weights[firstName]).toEqual(before.weights[firstName]);
    expect(after).toEqual(before);
    expect(tf.memory().numTensors).toBe(tensors);

    const redone = await trainer.runStep();
    expect(redone.step).toBe(2);
    expect(redone.loss).not.toBeNull();
    expect(tf.memory().numTensors).toBe(tensors);
  });

  it('a real out-of-memory in the update (the wasm heap filled to its limit) fails cleanly and is undone', async () => {
    const before = await runState(trainer, policy);
    const tensors = tf.memory().numTensors;
    faults.arm({ step: before.step + 1, phase: 'update', real: true });
    const error = await trainer.runStep().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutOfMemoryError);
    const oom = error as OutOfMemoryError;
    expect(oom.message).toMatch(
      new RegExp(
        `^out of memory at step ${before.step + 1} in the update \\(RangeError: tfjs-wasm could not allocate \\d+ bytes`,
      ),
    );
    expect(oom).toMatchObject({ restored: true, source: { source: 'tfjs-wasm', clean: true } });
    expect(await runState(trainer, policy)).toEqual(before);
    expect(tf.memory().numTensors).toBe(tensors);
    const redone = await trainer.runStep();
    expect(redone.step).toBe(before.step + 1);
    expect(tf.memory().numTensors).toBe(tensors);
  });

  it('in the rollout and the reference pass, the advice is theirs', async () => {
    const step = trainer.step + 1;
    const tensors = tf.memory().numTensors;
    faults.arm({ step, phase: 'rollout' });
    await expect(trainer.runStep()).rejects.toThrow(
      new RegExp(
        `^out of memory at step ${step} in the rollout .*Fix: fewer sequences at once \\(group size 4 × 2 prompts = 8\\), fewer tokens per turn \\(now 32\\), or a smaller model\\.$`,
      ),
    );
    faults.arm({ step, phase: 'reference', real: true });
    await expect(trainer.runStep()).rejects.toThrow(
      new RegExp(`^out of memory at step ${step} in the reference pass .*Fix: micro-batch 1`),
    );
    expect(trainer.step).toBe(step - 1);
    expect(tf.memory().numTensors).toBe(tensors);
  });
});

describe('resume after out of memory, with a smaller micro-batch', () => {
  const faults = new AllocationFaults();
  beforeAll(() => {
    inside.faults = faults;
  });
  afterAll(() => {
    inside.faults = null;
  });
  afterEach(() => faults.arm(null));

  it('through the worker API: the checkpoint from before restores with micro-batch 1 and trains on', async () => {
    const service = new TrainerService({
      selectBackend: (force) => selectBackend({ force: force ?? 'wasm' }),
      createExecutor: (options) => createNodeSandboxPool(options),
      sourceFor: () => ({ source: directorySource(DEMO), origin: 'demo' }),
    });
    try {
      await service.init(
        { backend: 'wasm', sandboxes: 2, sandbox: sandboxSettings(config) },
        () => {},
      );
      const run = {
        ...config,
        tasks: 'custom' as const,
        customTasks: [{ prompt: 'Print 2 + 5.', expectedOutput: '7' }],
      };
      await service.configure(await encodeLink(run));
      await service.loadModel({ kind: 'demo' }, () => {});
      await service.runStep(() => {});
      const saved = await service.checkpoint();
      faults.arm({ step: 2, phase: 'update' });
      await expect(service.runStep(() => {})).rejects.toThrow(
        /^out of memory at step 2 in the update/,
      );
      // nothing was lost: a checkpoint now holds exactly what the one before the failure holds
      const now = await service.checkpoint();
      expect(now.step).toBe(1);
      now.tensors.forEach((t, i) => expect(t.data).toEqual(saved.tensors[i]!.data));
      expect(now.optimizer).toEqual(saved.optimizer);

      const smaller = await encodeLink({ ...run, microBatchSize: 1 });
      await service.restore({ ...saved, configFragment: smaller });
      const steps = [await service.runStep(() => {}), await service.runStep(() => {})];
      expect(steps.map((m) => m.step)).toEqual([2, 3]);
      expect(steps.every((m) => m.loss !== null)).toBe(true);
      expect((await service.checkpoint()).configFragment).toBe(smaller);
    } finally {
      await service.close();
    }
  });

  it('the CLI: train fails with the message, and --out keeps what the finished steps trained', async () => {
    const work = mkdtempSync(join(tmpdir(), 'oom-cli-'));
    const out = join(work, 'out');
    writeFileSync(
      join(work, 'run.json'),
      JSON.stringify({ ...config, tasks: 'seed', steps: 3, promptsPerStep: 1 }),
    );
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    faults.arm({ step: 2, phase: 'update' });
    try {
      const error = await trainCommand(
        parseArgs(['--config', join(work, 'run.json'), '--out', out]),
      ).catch((e: unknown) => e);
      expect((error as Error).message).toMatch(
        /^out of memory at step 2 in the update .* What steps 1-1 trained is saved in .*out\.$/,
      );
    } finally {
      write.mockRestore();
    }
    const json = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    expect(json.map((l) => l.step)).toEqual([1]);
    expect(existsSync(join(out, 'adapter_model.safetensors'))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'run_config.json'), 'utf8')).microBatchSize).toBe(4);
  });
});
