// The page's run logic in Node, driven against the fake trainer: start order, training to the
// configured steps, the phase stepper, pause, reset, checkpoints and resume, serialization of
// calls, and errors that say what to do.
import { describe, expect, it, vi } from 'vitest';
import { memoryCheckpointStore } from '../../src/service/checkpoint_store.ts';
import { defaultConfig, type RunConfig } from '../../src/run/config.ts';
import { RunController, type Change } from '../../src/ui/state/run_controller.ts';
import { FakeTrainer, type FakeTrainerOptions } from './fake_trainer.ts';

function setup(
  options: FakeTrainerOptions = {},
  config: Partial<RunConfig> = {},
  extra: { checkpointEvery?: number } = {},
) {
  const trainer = new FakeTrainer(options);
  const checkpoints = memoryCheckpointStore();
  const controller = new RunController({
    trainer,
    proxy: (f) => f,
    checkpoints,
    checkpointEvery: extra.checkpointEvery ?? 2,
  });
  const changes: Change[] = [];
  controller.subscribe((change) => changes.push(change));
  return { trainer, checkpoints, controller, changes, config: { ...defaultConfig(), ...config } };
}

describe('RunController', () => {
  it('starts: init, configure, then load; shows backend, model and progress; enables Train', async () => {
    const { trainer, controller, config, changes } = setup(
      {},
      { timeoutMs: 2000, maxOutputChars: 300 },
    );
    expect(controller.controls().train).toBe(false);
    expect(await controller.start(config)).toBe(true);
    expect(trainer.calls).toEqual(['init:auto', 'configure', 'loadModel:demo']);
    // the pool starts with the run's sandbox settings, so the configure after it need not restart
    // it
    expect(trainer.initSandbox).toEqual({
      timeoutMs: config.timeoutMs,
      maxOutputChars: config.maxOutputChars,
    });
    expect(controller.backend?.name).toBe('wasm');
    expect(controller.model?.name).toBe('demo');
    expect(controller.progress.get('model')).toMatchObject({
      loadedBytes: 4_000_000,
      totalBytes: 4_000_000,
    });
    expect(controller.progress.get('sandbox')?.message).toMatch(/Pyodide/);
    expect(changes).toContain('backend');
    expect(controller.state).toBe('idle');
    expect(controller.status).toMatch(/^Ready/);
    expect(controller.controls()).toMatchObject({
      train: true,
      step: true,
      phase: true,
      pause: false,
      reset: false,
    });
  });

  it('trains to the configured number of steps, keeps records, evaluates and checkpoints', async () => {
    const { controller, config, checkpoints } = setup({}, { steps: 4, evalEvery: 2 });
    await controller.start(config);
    expect(await controller.train()).toBe(true);
    expect(controller.finishedSteps).toBe(4);
    expect(controller.metrics.map((m) => m.step)).toEqual([1, 2, 3, 4]);
    expect(controller.evals.map((e) => e.step)).toEqual([2, 4]);
    expect(controller.rewardMean).toBe(controller.metrics[3]!.reward_mean);
    const last = controller.steps.at(-1)!;
    expect(last.trajectories).toHaveLength(3 * 4); // 3 seed prompts × G = 4
    expect(last.groups).toHaveLength(3);
    expect(controller.status).toMatch(/Finished 4 steps/);
    expect(controller.controls().train).toBe(false); // steps reached
    expect((await checkpoints.list()).map((s) => s.step)).toEqual([4, 2]);
  });

  it("steps through one phase at a time, showing each phase's data", async () => {
    const { controller, config, trainer } = setup({ tokenTexts: true });
    await controller.start(config);
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      expect(await controller.phase()).toBe(true);
      const report = controller.lastReport!;
      seen.push(report.phase);
      if (report.phase === 'rollout') {
        expect(controller.current?.trajectories).toHaveLength(12);
        expect(controller.finishedSteps).toBe(0);
      }
      if (report.phase === 'advantage')
        expect(controller.current?.groups?.[0]?.advantages).toHaveLength(4);
    }
    expect(seen).toEqual(['rollout', 'reward', 'advantage', 'update']);
    expect(controller.finishedSteps).toBe(1);
    expect(controller.current).toBeNull();
    expect(controller.nextPhase).toBe('rollout');
    expect(controller.steps[0]!.tokenTexts?.['1/0/0']?.join('')).toContain('```python');
    expect(trainer.calls.filter((c) => c.startsWith('runPhase'))).toHaveLength(4);
  });

  it('finishes a half-done step with Step, then resets to step 0', async () => {
    const { controller, config } = setup();
    await controller.start(config);
    await controller.phase();
    await controller.phase();
    expect(controller.controls().reset).toBe(true);
    await controller.step();
    expect(controller.finishedSteps).toBe(1);
    expect(controller.steps).toHaveLength(1);
    await controller.reset();
    expect(controller.finishedSteps).toBe(0);
    expect(controller.steps).toHaveLength(0);
    expect(controller.nextPhase).toBe('rollout');
  });

  it('pauses after the step in flight, checkpoints on pause, and refuses other calls meanwhile', async () => {
    const { controller, config, checkpoints, trainer } = setup(
      { phaseDelayMs: 5 },
      {},
      { checkpointEvery: 0 },
    );
    await controller.start(config);
    const training = controller.train();
    // a step is in flight in the trainer
    await vi.waitFor(() => expect(trainer.calls).toContain('runStep'));
    expect(controller.state).toBe('training');
    expect(await controller.step()).toBe(false);
    controller.pause();
    expect(controller.state).toBe('pausing');
    await training;
    expect(controller.state).toBe('idle');
    expect(controller.finishedSteps).toBeGreaterThanOrEqual(1);
    expect(controller.finishedSteps).toBeLessThan(config.steps);
    expect(controller.status).toMatch(/Paused after step/);
    const saved = await checkpoints.latest();
    expect(saved).toMatchObject({ reason: 'pause', step: controller.finishedSteps });
  });

  it('offers the newest checkpoint after a "reload" and resumes with charts intact', async () => {
    const first = setup({}, { steps: 3, seed: 9 }, { checkpointEvery: 3 });
    await first.controller.start(first.config);
    await first.controller.train();
    // A fresh page: new trainer, same storage.
    const trainer = new FakeTrainer();
    const controller = new RunController({
      trainer,
      proxy: (f) => f,
      checkpoints: first.checkpoints,
    });
    await controller.start(defaultConfig());
    expect(controller.resumable).toMatchObject({ step: 3, modelName: 'demo' });
    expect(await controller.resume(controller.resumable!)).toBe(true);
    expect(trainer.calls.at(-1)).toBe('restore:3');
    expect(controller.metrics.map((m) => m.step)).toEqual([1, 2, 3]);
    expect(controller.config.seed).toBe(9);
    expect(controller.config.steps).toBe(3);
    expect(controller.resumable).toBeNull();
  });

  it('turns a failed load into an actionable error and keeps Train disabled', async () => {
    const { controller, config } = setup({
      failOn: { loadModel: 'WebAssembly.Memory(): could not allocate memory: out of memory' },
    });
    expect(await controller.start(config)).toBe(false);
    expect(controller.error).toMatchObject({
      kind: 'memory',
      title: 'Out of memory',
      during: 'starting the trainer',
    });
    expect(controller.error!.fix).toMatch(/smaller model/);
    expect(controller.controls().train).toBe(false);
    controller.dismissError();
    expect(controller.error).toBeNull();
  });

  it("clears a failed load's error once a model loads (the hub unreachable, then a folder)", async () => {
    const options: FakeTrainerOptions = {
      failOn: { loadModel: 'Failed to fetch https://huggingface.co/x/y/resolve/main/config.json' },
    };
    const { controller, config } = setup(options);
    expect(await controller.start(config)).toBe(false);
    expect(controller.error).not.toBeNull();
    controller.showError(new Error('a bad custom task file'), 'reading a file');
    delete options.failOn;
    expect(await controller.applyConfig({ ...config, seed: config.seed + 1 })).toBe(true);
    expect(controller.model).not.toBeNull();
    // the load's error is gone; an unrelated one stays
    expect(controller.errors.map((e) => e.during)).toEqual(['reading a file']);
  });

  it("keeps a failed step's error in the status when a phase report lands after the failure", async () => {
    const { controller, config, trainer } = setup();
    await controller.start(config);
    // comlink delivers the phase callback on a port of its own, so it can arrive after the call's
    // rejection
    let lateReport: Promise<void> = Promise.resolve();
    trainer.runStep = async (onPhase) => {
      const report = await trainer.runPhase();
      lateReport = new Promise((delivered) =>
        setTimeout(() => {
          onPhase(report);
          delivered();
        }, 10),
      );
      throw new Error(
        "task seed/fib: its prompt is 301 tokens with the system prompt and chat template, and the model's context (max_position_embeddings) is 256, so there is no room to answer. Fix: shorten the task's prompt or leave the task out, or use a model with a longer context.",
      );
    };
    expect(await controller.train()).toBe(false);
    await lateReport; // it must not overwrite the error's status

    expect(controller.status).toBe('Stopped while training: the configuration has a problem.');
    expect(controller.error).toMatchObject({ kind: 'config', during: 'training' });
    expect(controller.error!.fix).toMatch(/^shorten the task's prompt/);
    expect(controller.controls().train).toBe(true);
  });

  it('refuses a model the memory check rejects, before asking the worker to load it', async () => {
    const trainer = new FakeTrainer();
    const controller = new RunController({
      trainer,
      proxy: (f) => f,
      checkpoints: null,
      checkModel: async (choice) => {
        if (choice.kind === 'hub')
          throw new Error(
            'Qwen/Qwen2.5-7B cannot even load here: 45 GB. Fix: choose a smaller model.',
          );
        return null;
      },
    });
    await controller.start(defaultConfig());
    expect(await controller.applyConfig({ ...defaultConfig(), model: 'Qwen/Qwen2.5-7B' })).toBe(
      false,
    );
    expect(controller.error).toMatchObject({
      message: 'Qwen/Qwen2.5-7B cannot even load here: 45 GB.',
      fix: 'choose a smaller model.',
    });
    expect(trainer.calls.filter((c) => c.startsWith('loadModel'))).toEqual(['loadModel:demo']);
  });

  it('says which local folder a run needs when it has not been picked', async () => {
    const { controller } = setup();
    expect(await controller.start({ ...defaultConfig(), model: 'my-model' })).toBe(false);
    expect(controller.error?.message).toMatch(/local model folder "my-model"/);
    expect(controller.error?.fix).toMatch(/pick or drop that folder/);
  });

  it('exports and imports the adapter through the worker', async () => {
    const { controller, config, trainer } = setup();
    await controller.start(config);
    const files = await controller.exportAdapter();
    expect(Object.keys(files!)).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
    expect(await controller.importAdapter(files!)).toBe(true);
    expect(trainer.imported).toEqual(files);
  });
});
