// WASM's calibrated speed (src/model_files/step_calibration.ts) against the steps it was fitted to,
// each recorded with its command in that file's header and docs/performance.md: the estimate the
// page shows for each within 1.5x of the measured step, and each phase within 2x. A change to the
// cost model (step_cost.ts) or to a constant that breaks one of these fails here. The figures
// themselves are measurements, so the bounds leave room; the half-second probe the page used
// before read 4-7x too long for the demo and moved by 30% from one load to the next.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { shapeConfig, shapePreset } from '../../src/model_files/shape_presets.ts';
import {
  DEMO_CONFIG_JSON,
  DEMO_GENERATION,
  demoModelConfig,
  isDemoShaped,
  WASM_REFERENCE,
  wasmSpeed,
} from '../../src/model_files/step_calibration.ts';
import { estimateStepSeconds } from '../../src/model_files/step_cost.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { resolveRun } from '../../src/run/resolve.ts';

/**
 * `npm run bench -- --only scale` on the reference VM (docs/performance.md): the default run at
 * each preset's shapes, random weights, every turn at its limit; rollout and update seconds.
 */
const SCALE_MEASURED: Record<string, [number, number]> = {
  'smollm2-135m': [65, 343],
  'smollm2-360m': [160, 921],
  'qwen2.5-0.5b': [157, 1063],
  'qwen3-0.6b': [438, 1596],
};

/** `npm run bench -- --only estimate` on the reference VM, quiet: the demo's median step, s. */
const DEMO_MEASURED_STEP_S = 3.0;

const within = (ratio: number, factor: number) => {
  expect(ratio).toBeGreaterThan(1 / factor);
  expect(ratio).toBeLessThan(factor);
};

describe("WASM's calibration", () => {
  const speed = wasmSpeed(2);

  for (const [name, [rollout, update]] of Object.entries(SCALE_MEASURED)) {
    it(`estimates ${name}'s default-run step within 1.5x of the bench's`, () => {
      const model = parseModelConfig(shapeConfig(shapePreset(name)), name);
      const shape = resolveRun(presetConfig('default', { tasks: 'seed' }), model).stepShape;
      const cost = estimateStepSeconds(model, shape, speed);
      within(cost.seconds / (rollout + update), 1.5);
      within(cost.rolloutSeconds / rollout, 2);
      within(cost.updateSeconds / update, 2);
    });
  }

  it("estimates the demo's default-run step within 1.5x, counting its own episodes", () => {
    const shape = resolveRun(presetConfig('default')).stepShape;
    const cost = estimateStepSeconds(
      demoModelConfig(),
      { ...shape, generation: DEMO_GENERATION },
      speed,
    );
    within(cost.seconds / DEMO_MEASURED_STEP_S, 1.5);
    // every turn at its limit instead: the worst case, longer, the bound the card also gives
    const worst = estimateStepSeconds(demoModelConfig(), shape, speed);
    expect(worst.seconds).toBeGreaterThan(cost.seconds);
  });

  it('is the reference at 2 threads, the products twice as fast at 4, no faster past 4', () => {
    expect(wasmSpeed(2)).toEqual(WASM_REFERENCE);
    expect(wasmSpeed(4).gflops).toBeCloseTo(2 * WASM_REFERENCE.gflops);
    expect(wasmSpeed(4).decodeGflops).toBeCloseTo(2 * WASM_REFERENCE.decodeGflops);
    expect(wasmSpeed(16)).toEqual(wasmSpeed(4));
    expect(wasmSpeed(1).gflops).toBeCloseTo(WASM_REFERENCE.gflops / 2);
    // the memory and the fixed costs are the reference's, whatever the threads
    expect(wasmSpeed(4).bandwidthGBs).toBe(WASM_REFERENCE.bandwidthGBs);
    expect(wasmSpeed(4).passLayerSeconds).toBe(WASM_REFERENCE.passLayerSeconds);
  });

  it("keeps the demo's config equal to the shipped model's config.json", () => {
    const shipped = JSON.parse(readFileSync('public/models/demo/config.json', 'utf8'));
    expect(DEMO_CONFIG_JSON).toEqual(shipped);
  });

  it('knows the demo by its shapes, and a 135M model as not the demo', () => {
    expect(isDemoShaped(demoModelConfig())).toBe(true);
    const smol = parseModelConfig(shapeConfig(shapePreset('smollm2-135m')), 'smol');
    expect(isDemoShaped(smol)).toBe(false);
    const wider = parseModelConfig({ ...DEMO_CONFIG_JSON, hidden_size: 256 }, 'wider');
    expect(isDemoShaped(wider)).toBe(false);
  });
});
