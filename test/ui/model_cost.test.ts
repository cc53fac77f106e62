// The model card's cost before a download (src/ui/state/model_fit.ts estimateModelCost, costText;
// RunController.costOf): memory and seconds per step for a hub model read from its config.json
// alone, at the speed the worker gives (WASM's calibration, or WebGPU's probe), following the form's
// unapplied edits; the demo's from its measured episodes; the measured step beside it once run.
import { describe, expect, it } from 'vitest';
import {
  DEMO_GENERATION,
  REFERENCE_MACHINE,
  wasmSpeed,
} from '../../src/model_files/step_calibration.ts';
import type { StepMetrics } from '../../src/rl/types.ts';
import { presetConfig } from '../../src/run/presets.ts';
import {
  costText,
  estimateModelCost,
  knownFacts,
  measuredStepText,
  type ModelCost,
} from '../../src/ui/state/model_fit.ts';
import { HUB_PRESETS } from '../../src/ui/state/models.ts';
import { RunController } from '../../src/ui/state/run_controller.ts';
import { FakeTrainer } from './fake_trainer.ts';

const QWEN_05B = {
  architectures: ['Qwen2ForCausalLM'],
  model_type: 'qwen2',
  hidden_size: 896,
  intermediate_size: 4864,
  num_hidden_layers: 24,
  num_attention_heads: 14,
  num_key_value_heads: 2,
  vocab_size: 151936,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
};
const QWEN_7B = {
  model_type: 'qwen2',
  vocab_size: 152064,
  hidden_size: 3584,
  intermediate_size: 18944,
  num_hidden_layers: 28,
  num_attention_heads: 28,
  num_key_value_heads: 4,
};

/** A hub that serves config.json for two repos and counts the requests. */
function mockHub() {
  const requests: string[] = [];
  const fetch: typeof globalThis.fetch = async (input) => {
    const url = String(input);
    requests.push(url);
    const config = url.includes('/Qwen/Qwen2.5-0.5B-Instruct/')
      ? QWEN_05B
      : url.includes('/big/qwen-7b/')
        ? QWEN_7B
        : null;
    return config && url.endsWith('/config.json')
      ? new Response(JSON.stringify(config), { status: 200 })
      : new Response('not found', { status: 404 });
  };
  return { fetch, requests };
}

/** WASM's speed as the worker gives it on the reference machine's 2 threads. */
const CALIBRATED = {
  backend: 'wasm',
  ...wasmSpeed(2),
  basis: 'calibrated' as const,
  reference: REFERENCE_MACHINE,
  threads: 2,
  milliseconds: 0,
};

function setup() {
  const hub = mockHub();
  const trainer = new FakeTrainer({ speed: CALIBRATED });
  const controller = new RunController({
    trainer,
    proxy: (f) => f,
    checkpoints: null,
    estimateCost: (choice, config, _backend, speed) =>
      estimateModelCost(choice, config, { fetch: hub.fetch, device: { backend: 'wasm' } }, speed),
  });
  return { hub, trainer, controller };
}

describe('model cost before a download', () => {
  it("tells the seconds per step of Qwen2.5-0.5B at WASM's calibrated speed", async () => {
    const { hub, trainer, controller } = setup();
    expect(await controller.start(presetConfig('default'))).toBe(true);
    expect(controller.speed).toMatchObject({ basis: 'calibrated', gflops: 93 });
    const cost = (await controller.costOf('Qwen/Qwen2.5-0.5B-Instruct')) as ModelCost;
    // a hub preset's shapes are known: nothing was asked for, and the worker never saw the model
    expect(hub.requests).toEqual([]);
    expect(cost.known).toBe(true);
    expect(trainer.calls.filter((c) => c.startsWith('loadModel'))).toEqual(['loadModel:demo']);
    expect(cost.parameters).toBe(494_032_768);
    // the default run with every turn at its limit: 20 min on the reference VM (the bench's scale
    // section measured 1220 s at these shapes)
    expect(cost.assumes).toBe('token-limit');
    expect(cost.step!.seconds / 1220).toBeGreaterThan(1 / 1.5);
    expect(cost.step!.seconds / 1220).toBeLessThan(1.5);
    const text = costText(cost);
    expect(text.step).toMatch(
      /^≈ \d+ min per step on this device if every turn uses all 128 tokens$/,
    );
    expect(text.assumes).toBe(
      `A model that stops early takes less. Speed: calibrated on ${REFERENCE_MACHINE}; our kernels run on 2 threads here. Once a step has run, the page shows its measured time.`,
    );
    expect(text.memory).toMatch(/^Qwen\/Qwen2\.5-0\.5B-Instruct needs up to /);
    expect(text.detail).toMatch(/^Rollout ≈ .*, update ≈ .*: \d+ TFLOP; /);
    expect(text.detail).toContain('decoding streams 942 MB of weights a token.');
    // the run's 30 steps at that rate, labelled as an estimate made without a download
    expect(cost.runSeconds).toBeCloseTo(cost.step!.seconds * 30);
    expect(text.run).toMatch(
      /^Estimated run: 30 steps ≈ \d+(\.\d)? (min|h) \(from known shapes; nothing downloaded\)\.$/,
    );
  });

  it('estimates every hub preset offline, as its config.json would (a fetch that fails)', async () => {
    const offline: typeof globalThis.fetch = async () => {
      throw new TypeError('Failed to fetch');
    };
    for (const preset of HUB_PRESETS) {
      const cost = (await estimateModelCost(
        { kind: 'hub', repo: preset.repo },
        presetConfig('default'),
        { fetch: offline, device: { backend: 'wasm' } },
        CALIBRATED,
      ))!;
      expect(cost.known, preset.repo).toBe(true);
      expect(cost.step!.seconds, preset.repo).toBeGreaterThan(0);
    }
    // the same parameters as the real config.json the mock hub serves
    const read = (await estimateModelCost(
      { kind: 'hub', repo: 'other/qwen-05b-copy' },
      presetConfig('default'),
      {
        fetch: async () => new Response(JSON.stringify(QWEN_05B), { status: 200 }),
        device: { backend: 'wasm' },
      },
      null,
    ))!;
    expect(read.known).toBe(false);
    expect(knownFacts('Qwen/Qwen2.5-0.5B-Instruct')!.model).toEqual(
      knownFacts('Qwen/Qwen2.5-Coder-0.5B-Instruct')!.model,
    );
    expect(read.parameters).toBe(494_032_768);
    expect(knownFacts('other/qwen-05b-copy')).toBeNull();
  });

  it("follows the form's unapplied edits, and reads config.json once", async () => {
    const { hub, controller } = setup();
    await controller.start(presetConfig('default'));
    const before = (await controller.costOf('Qwen/Qwen2.5-0.5B-Instruct'))!.step!.seconds;
    const changes: string[] = [];
    controller.subscribe((change) => changes.push(change));
    controller.setDraft({ ...controller.config, maxTurns: 1, maxNewTokens: 32, ppoEpochs: 1 });
    controller.setDraft({ ...controller.config, maxTurns: 1, maxNewTokens: 32, ppoEpochs: 1 });
    expect(changes).toEqual(['draft']); // told once: the same edits are no change
    const after = (await controller.costOf('Qwen/Qwen2.5-0.5B-Instruct'))!.step!.seconds;
    expect(after).toBeLessThan(before / 3);
    expect(hub.requests).toEqual([]); // a preset: its shapes are known
    controller.setDraft(null);
    expect((await controller.costOf('Qwen/Qwen2.5-0.5B-Instruct'))!.step!.seconds).toBe(before);
  });

  it('shows a model too large with the refusal the load would give', async () => {
    const { controller } = setup();
    await controller.start(presetConfig('default'));
    const cost = (await controller.costOf('big/qwen-7b'))!;
    expect(cost.memory.fit).toBe('too_large');
    expect(costText(cost).memory).toMatch(/^big\/qwen-7b cannot even load here: .* Fix: choose/);
  });

  it('estimates the demo from its own measured episodes, the same figure on every load', async () => {
    const { hub, controller } = setup();
    await controller.start(presetConfig('default'));
    const cost = (await controller.costOf('demo'))!;
    expect(hub.requests).toEqual([]);
    expect(cost).toMatchObject({ known: true, assumes: 'demo-episodes', parameters: 2_213_568 });
    // the bench's `estimate` section measured 3.0 s a step on the reference VM
    expect(cost.step!.seconds).toBeGreaterThan(2);
    expect(cost.step!.seconds).toBeLessThan(4.5);
    expect(cost.worst!.seconds).toBeGreaterThan(cost.step!.seconds);
    const text = costText(cost);
    expect(text.step).toMatch(/^≈ \d\.\d s per step on this device$/);
    expect(text.assumes).toContain(
      `Assumes episodes as long as the demo model's own in its default run (${DEMO_GENERATION.turns} turns and ${DEMO_GENERATION.tokens} tokens on average); up to `,
    );
    expect(text.run).toMatch(/^Estimated run: 30 steps ≈ \d+(\.\d)? (s|min) \(from known shapes/);
    const again = (await controller.costOf('demo'))!;
    expect(again.step).toEqual(cost.step);
  });

  it('says where a probed speed comes from, and counts every turn at its limit on it', async () => {
    const probed = { backend: 'webgpu', gflops: 500, bandwidthGBs: 200, milliseconds: 480 };
    const cost = (await estimateModelCost(
      { kind: 'demo' },
      presetConfig('default'),
      { fetch: mockHub().fetch, device: { backend: 'webgpu' } },
      { ...probed, basis: 'probe' },
    ))!;
    // the demo's measured episodes go with the calibration's fixed costs, not with a bare rate
    expect(cost.assumes).toBe('token-limit');
    expect(costText(cost).assumes).toContain(
      'Speed: 500 GFLOP/s measured in half a second on webgpu, not yet checked against a measured step.',
    );
  });

  it('shows the steps measured here: the mean after the first, of the last ten', () => {
    const step = (n: number, wall: number) =>
      ({ step: n, seconds_generate: wall, seconds_sandbox: 0, seconds_train: 0 }) as StepMetrics;
    expect(measuredStepText([])).toBe('');
    expect(measuredStepText([step(1, 9)])).toBe(
      'Measured here: 9.0 s a step (step 1, warming the kernels up).',
    );
    expect(measuredStepText([step(1, 9), step(2, 2)])).toBe(
      'Measured here: 2.0 s a step (step 2; step 1 left out: it warms the kernels up).',
    );
    expect(measuredStepText([step(1, 9), step(2, 2), step(3, 3)])).toBe(
      'Measured here: 2.5 s a step (the mean of steps 2-3; step 1 left out: it warms the kernels up).',
    );
    const many = Array.from({ length: 15 }, (_, i) => step(i + 1, i < 5 ? 100 : 4));
    expect(measuredStepText(many)).toBe(
      'Measured here: 4.0 s a step (the mean of steps 6-15; step 1 left out: it warms the kernels up).',
    );
  });

  it('says the speed is still being measured before the worker has reported it', async () => {
    const hub = mockHub();
    const cost = (await estimateModelCost(
      { kind: 'hub', repo: 'Qwen/Qwen2.5-0.5B-Instruct' },
      presetConfig('default'),
      { fetch: hub.fetch, device: { backend: 'wasm' } },
      null,
    ))!;
    expect(cost.step).toBeNull();
    expect(costText(cost)).toMatchObject({
      step: 'Seconds per step: measuring this device…',
      detail: '',
    });
  });
});
