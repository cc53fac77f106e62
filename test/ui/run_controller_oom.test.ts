// The page after a step runs out of memory, against the fake trainer: the error says
// where and what to change; the run as after its last step is saved (the trainer undid the failed
// one) unless memory may be damaged, when the last checkpoint stays the one offered; the step view
// goes back to the step's start; and Resume, after the settings are changed and applied, goes on
// from the saved step with the new settings (and refuses another model, saying why).
import { describe, expect, it } from 'vitest';
import { outOfMemoryError } from '../../src/training/out_of_memory.ts';
import { defaultConfig } from '../../src/run/config.ts';
import { memoryCheckpointStore } from '../../src/service/checkpoint_store.ts';
import { RunController } from '../../src/ui/state/run_controller.ts';
import { FakeTrainer } from './fake_trainer.ts';

/** A controller whose trainer runs out of memory once, in the update of step `step`. */
function setup(step: number, error: unknown, checkpointEvery: number) {
  const trainer = new FakeTrainer();
  const run = trainer.runPhase.bind(trainer);
  let phases = 0;
  trainer.runPhase = async () => {
    if (++phases === step * 4) throw error;
    return run();
  };
  const checkpoints = memoryCheckpointStore();
  const controller = new RunController({
    trainer,
    proxy: (f) => f,
    checkpoints,
    checkpointEvery,
  });
  const config = { ...defaultConfig(), model: 'demo', steps: 6, microBatchSize: 4 };
  return { trainer, checkpoints, controller, config };
}

const settings = {
  microBatchSize: 4,
  maxNewTokens: 128,
  maxTurns: 3,
  groupSize: 4,
  promptsPerStep: 3,
};
const oom = (step: number, restored: boolean, cause: Error) =>
  outOfMemoryError(cause, { step, phase: 'update', settings, restored })!;

describe('RunController after out of memory', () => {
  it('shows where and what to change, saves the run as after the last step, and resumes it with the changed settings', async () => {
    const error = oom(
      3,
      true,
      new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded'),
    );
    const { controller, config, checkpoints, trainer } = setup(3, error, 0);
    await controller.start(config);
    expect(await controller.train()).toBe(false);
    expect(controller.error).toMatchObject({
      kind: 'memory',
      title: 'Out of memory',
      during: 'training',
    });
    expect(controller.error!.message).toMatch(
      /^out of memory at step 3 in the update .*Nothing of step 3 was applied/,
    );
    expect(controller.error!.fix).toBe(
      'micro-batch 1 (now 4), fewer tokens per turn (now 128), or a smaller model.',
    );
    expect(controller.current).toBeNull();
    expect(controller.nextPhase).toBe('rollout');
    expect((await checkpoints.list()).map((s) => [s.step, s.reason])).toEqual([[2, 'memory']]);
    expect(controller.resumable).toMatchObject({ step: 2, reason: 'memory' });
    expect(controller.resumeWithCurrentSettings).toBe(true);

    // the fix: micro-batch 1, applied (which starts a fresh run), then Resume
    expect(await controller.applyConfig({ ...config, microBatchSize: 1 })).toBe(true);
    expect(controller.finishedSteps).toBe(0);
    expect(await controller.resume(controller.resumable!)).toBe(true);
    expect(trainer.calls.at(-1)).toBe('restore:2');
    expect(controller.finishedSteps).toBe(2);
    expect(controller.config.microBatchSize).toBe(1);
    expect((await trainer.checkpoint()).configFragment).toBe(controller.fragment);
    expect(controller.resumeWithCurrentSettings).toBe(false);
    expect(await controller.train()).toBe(true);
    expect(controller.metrics.map((m) => m.step)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('after a failure that may have damaged memory, offers the last checkpoint and saves nothing new', async () => {
    const error = oom(4, true, new WebAssembly.RuntimeError('memory access out of bounds'));
    const { controller, config, checkpoints } = setup(4, error, 2);
    await controller.start(config);
    expect(await controller.train()).toBe(false);
    expect(controller.error!.message).toMatch(/tfjs-wasm may be left damaged/);
    expect((await checkpoints.list()).map((s) => [s.step, s.reason])).toEqual([[2, 'auto']]);
    expect(controller.resumable).toMatchObject({ step: 2, reason: 'auto' });
  });

  it('refuses to resume under another model, saying how to go on', async () => {
    const error = oom(2, true, new RangeError('Array buffer allocation failed'));
    const { controller, config } = setup(2, error, 0);
    await controller.start(config);
    await controller.train();
    expect(await controller.applyConfig({ ...config, loraRank: 4 })).toBe(true);
    expect(await controller.resume(controller.resumable!)).toBe(false);
    expect(controller.error!.message).toMatch(/the saved run trained demo with other loraRank/);
    expect(controller.error!.fix).toMatch(/set loraRank back to resume, or Start fresh/);
  });

  it('other step failures only reset the step view', async () => {
    const { controller, config, checkpoints } = setup(2, new Error('the sandbox crashed'), 0);
    await controller.start(config);
    expect(await controller.train()).toBe(false);
    expect(controller.current).toBeNull();
    expect(controller.resumable).toBeNull();
    expect(await checkpoints.list()).toEqual([]);
  });
});
