// The Python sandbox's start as the page shows it (RunSetup.sandboxStart): the worker reports it
// with no bytes to count, so the page counts seconds from its message until the worker's start
// returns, then keeps how long it took.
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/run/config.ts';
import type { LoadProgress } from '../../src/service/trainer_api.ts';
import { RunController } from '../../src/ui/state/run_controller.ts';
import { FakeTrainer } from './fake_trainer.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The fake trainer, its sandbox started as the real service reports it: a message, no bytes. */
function realStart(fail = false): FakeTrainer {
  const trainer = new FakeTrainer();
  trainer.init = async (_options, onProgress: (progress: LoadProgress) => void) => {
    onProgress({ stage: 'sandbox', message: 'Starting Python (the code sandbox)' });
    await sleep(120);
    if (fail) throw new Error('Pyodide failed to start');
    return {
      name: 'wasm',
      adapter: null,
      simd: true,
      fma: true,
      threads: 2,
      skipped: [],
      probe: null,
    };
  };
  return trainer;
}

describe('the sandbox start', () => {
  it('is counted from its message until the worker has started, then says how long it took', async () => {
    const controller = new RunController({
      trainer: realStart(),
      proxy: (f) => f,
      checkpoints: null,
    });
    expect(controller.sandboxStart).toBeNull();
    const started = controller.start(defaultConfig());
    await sleep(30);
    expect(controller.sandboxStart?.seconds).toBeNull();
    expect(controller.sandboxStart?.since).toBeLessThanOrEqual(Date.now());
    expect(await started).toBe(true);
    expect(controller.sandboxStart?.seconds).toBeGreaterThanOrEqual(0.1);
    expect(controller.sandboxStart?.seconds).toBeLessThan(5);
  });

  it('stops counting when the start fails', async () => {
    const controller = new RunController({
      trainer: realStart(true),
      proxy: (f) => f,
      checkpoints: null,
    });
    expect(await controller.start(defaultConfig())).toBe(false);
    expect(controller.sandboxStart?.seconds).toBeTypeOf('number');
    expect(controller.errors.at(-1)?.message).toMatch(/Pyodide/);
  });

  it('a sandbox that reports bytes (a download) is a plain progress bar', async () => {
    const controller = new RunController({
      trainer: new FakeTrainer(),
      proxy: (f) => f,
      checkpoints: null,
    });
    expect(await controller.start(defaultConfig())).toBe(true);
    expect(controller.sandboxStart).toBeNull();
    expect(controller.progress.get('sandbox')?.loadedBytes).toBeGreaterThan(0);
  });
});
