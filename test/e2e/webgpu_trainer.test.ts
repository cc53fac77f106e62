// The whole trainer on WebGPU (docs/architecture.md §3): Chromium's software adapter (SwiftShader)
// runs GRPO steps through the trainer worker's code (TrainerService, the demo model, the real
// Pyodide pool) at tiny settings, against WASM: the same samples for as long as their logits agree
// (same seed, or resumed from the same checkpoint), the same loss and gradient norm on the same
// batch, a steady tensor count, checkpoints (IndexedDB) that resume bit for bit on the other
// backend, and every WASM kernel's fallback giving the kernel's numbers. ~2.5 min on 2 cores:
// SwiftShader takes 20-55 s a step where WASM takes ~1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, SOFTWARE_WEBGPU_FLAGS } from '../../scripts/browser.ts';
import { serveSandboxHarness } from '../helpers/browser_harness.ts';
import { maxAbsDiff } from '../helpers/numbers.ts';

type Sample = {
  ids: number[];
  actionMask: number[];
  advantage: number;
  oldLogprobs: number[] | null;
};
type Step = {
  step: number;
  reward_std: number;
  loss: number | null;
  grad_norm: number | null;
  update_skipped: string | null;
  seconds: number;
  numTensors: number;
  samples: Sample[];
};
type Train = {
  backend: string;
  resumed: { step: number; optimizerStep: number; maxDiff: number; tensors: number } | null;
  steps: Step[];
  saved: { key: string; step: number; optimizerStep: number } | null;
  /** WebGPU validation errors so far on the page (each one is dropped work, so a wrong number). */
  gpuErrors: { count: number; messages: string[] };
};
type Fixed = {
  backend: string;
  loss: number;
  kl: number;
  gradNorm: number;
  grads: number[];
  weights: number[];
};
type Fallbacks = {
  backend: string;
  active: Record<string, boolean>;
  results: Record<string, number[]>;
  tensorsLeft: number;
};

/** Generated tokens two runs' samples share from the start, and how many each generated. */
function agreement(a: Sample[], b: Sample[]): { equal: number; generated: number }[] {
  return a.map((sample, i) => {
    const other = b[i]!.ids;
    const first = sample.actionMask.indexOf(1);
    let equal = first;
    while (equal < Math.min(sample.ids.length, other.length) && sample.ids[equal] === other[equal])
      equal++;
    return { equal: equal - first, generated: sample.ids.length - first };
  });
}

const identical = (a: Sample[], b: Sample[]) =>
  a.length === b.length && a.every((s, i) => s.ids.join() === b[i]!.ids.join());

/** Seed 12: with these settings both of the first two steps have mixed rewards (so real updates). */
const SEED = 12;

describe('the trainer on WebGPU (software adapter) against WASM in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let server: { url: string; close: () => Promise<void> };
  const call = <T>(name: string, ...args: unknown[]): Promise<T> =>
    page.evaluate(
      ([n, a]) =>
        (window as unknown as { trainerHarness: Record<string, (...x: unknown[]) => Promise<T>> })
          .trainerHarness[n as string]!(...(a as unknown[])),
      [name, args] as const,
    );
  beforeAll(async () => {
    server = await serveSandboxHarness(true);
    browser = await launchBrowser(SOFTWARE_WEBGPU_FLAGS);
    page = await browser.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') console.log(`page: ${message.text()}`);
    });
    await page.goto(`${server.url}webgpu_trainer.html`);
    await page.waitForFunction(() => document.getElementById('state')?.textContent === 'ready');
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("each WASM kernel's fallback on WebGPU gives the kernel's numbers", async () => {
    await call<Fallbacks>('fallbacks', 'wasm'); // first use: the kernels make their caches
    const wasm = await call<Fallbacks>('fallbacks', 'wasm');
    const gpu = await call<Fallbacks>('fallbacks', 'webgpu');
    expect(wasm.backend).toBe('wasm');
    expect(gpu.backend).toBe('webgpu');
    // the kernels ran on wasm, the fallbacks on webgpu, and neither left a tensor behind
    const paths = ['adamw', 'rmsNorm', 'swiglu', 'softmax', 'weights16'];
    expect(wasm.active).toEqual(Object.fromEntries(paths.map((p) => [p, true])));
    expect(gpu.active).toEqual(Object.fromEntries(paths.map((p) => [p, false])));
    expect([wasm.tensorsLeft, gpu.tensorsLeft]).toEqual([0, 0]);
    const diffs: string[] = [];
    for (const [name, values] of Object.entries(wasm.results)) {
      const other = gpu.results[name]!;
      expect(other, name).toHaveLength(values.length);
      const diff = maxAbsDiff(other, values) / Math.max(1, ...values.map(Math.abs));
      diffs.push(`${name} ${diff.toExponential(1)}`);
      expect(diff, name).toBeLessThan(1e-4);
    }
    // sampling is JavaScript (and its own SIMD module) on every backend: the same draws
    expect(gpu.results.sampling).toEqual(wasm.results.sampling);
    expect(maxAbsDiff(wasm.results['sampling exp']!, wasm.results.sampling!)).toBeLessThan(1e-5);
    console.log(`fallbacks, max |WebGPU - WASM| / max(1, |WASM|): ${diffs.join(', ')}`);
  }, 120_000);

  let wasmRun: Train;
  it('a fresh run on WebGPU: its first step samples as WASM does, with the same loss and gradient norm', async () => {
    wasmRun = await call<Train>('train', 'wasm', SEED, 3, 1);
    const gpu = await call<Train>('train', 'webgpu', SEED, 1, 0);
    expect([wasmRun.backend, gpu.backend]).toEqual(['wasm', 'webgpu']);
    expect(gpu.gpuErrors).toEqual({ count: 0, messages: [] });
    const [a, b] = [gpu.steps[0]!, wasmRun.steps[0]!];
    expect(a.update_skipped).toBeNull();
    expect(a.reward_std).toBeGreaterThan(0); // a real update: advantages not all 0
    // the same seed: each sample's tokens equal for as long as the two backends' logits agree
    expect(a.samples).toHaveLength(2);
    const agree = agreement(a.samples, b.samples);
    for (const { equal, generated } of agree)
      expect(equal).toBeGreaterThanOrEqual(Math.min(8, generated));
    // Loss and gradient norm of the step's update (2 epochs: the second after an AdamW step with
    // clipping), where both trained on the same batch; else one epoch on WASM's batch.
    let compared: { loss: number[]; gradNorm: number[] };
    if (identical(a.samples, b.samples)) {
      compared = { loss: [a.loss!, b.loss!], gradNorm: [a.grad_norm!, b.grad_norm!] };
    } else {
      const [wasm, webgpu] = [
        await call<Fixed>('fixedBatch', 'wasm', SEED, b.samples),
        await call<Fixed>('fixedBatch', 'webgpu', SEED, b.samples),
      ];
      compared = { loss: [webgpu.loss, wasm.loss], gradNorm: [webgpu.gradNorm, wasm.gradNorm] };
      expect(maxAbsDiff(webgpu.weights, wasm.weights)).toBeLessThan(1e-5);
    }
    const lossDiff = Math.abs(compared.loss[0]! - compared.loss[1]!);
    const normDiff = Math.abs(compared.gradNorm[0]! - compared.gradNorm[1]!);
    console.log(
      `first step, WebGPU = WASM: ${agree.map((x) => `${x.equal} of ${x.generated}`).join(', ')} generated tokens; ` +
        `${identical(a.samples, b.samples) ? "the step's update" : 'a fixed batch'}: loss ${compared.loss.join(' / ')} ` +
        `(diff ${lossDiff.toExponential(2)}), grad norm ${compared.gradNorm.join(' / ')} (diff ${normDiff.toExponential(2)}); ` +
        `step seconds WebGPU ${a.seconds.toFixed(1)}, WASM ${b.seconds.toFixed(1)}`,
    );
    expect(compared.gradNorm[1]).toBeGreaterThan(0);
    expect(lossDiff).toBeLessThan(1e-3);
    expect(normDiff).toBeLessThan(1e-3);
  }, 300_000);

  let gpuRun: Train;
  it("WASM's checkpoint resumes on WebGPU, which trains two steps as WASM does, with a steady tensor count, and saves", async () => {
    gpuRun = await call<Train>('train', 'webgpu', SEED, 2, 3, wasmRun.saved!.key);
    expect(wasmRun.saved).toEqual({ key: 'wasm/000001', step: 1, optimizerStep: 2 }); // 2 epochs a step
    // weights, adapters and AdamW's moments as saved on WASM, bit for bit
    expect(gpuRun.resumed).toMatchObject({ step: 1, optimizerStep: 2, maxDiff: 0 });
    expect(gpuRun.resumed!.tensors).toBeGreaterThan(0);
    expect(gpuRun.steps.map((s) => s.step)).toEqual([2, 3]);
    for (const step of gpuRun.steps) expect(step.update_skipped).toBeNull();
    // step 2 continues WASM's run: the same RNG state, so the same samples while logits agree
    const [a, b] = [gpuRun.steps[0]!, wasmRun.steps[1]!];
    const agree = agreement(a.samples, b.samples);
    for (const { equal, generated } of agree)
      expect(equal).toBeGreaterThanOrEqual(Math.min(8, generated));
    if (identical(a.samples, b.samples)) {
      expect(Math.abs(a.loss! - b.loss!)).toBeLessThan(1e-3);
      expect(Math.abs(a.grad_norm! - b.grad_norm!)).toBeLessThan(1e-3);
    }
    console.log(
      `resumed step 2, WebGPU = WASM: ${agree.map((x) => `${x.equal} of ${x.generated}`).join(', ')} generated tokens, ` +
        `loss ${a.loss} / ${b.loss}, grad norm ${a.grad_norm} / ${b.grad_norm}; ` +
        `step seconds ${gpuRun.steps.map((s) => s.seconds.toFixed(1)).join(', ')}; tensors after each ${gpuRun.steps.map((s) => s.numTensors).join(', ')}`,
    );
    // steady: no tensor gained or lost from step 2 to step 3
    expect(gpuRun.steps[1]!.numTensors).toBe(gpuRun.steps[0]!.numTensors);
    expect(gpuRun.saved).toEqual({ key: 'webgpu/000003', step: 3, optimizerStep: 6 });
    expect(gpuRun.gpuErrors).toEqual({ count: 0, messages: [] });
  }, 600_000);

  it('the checkpoint saved on WebGPU resumes on WASM and trains on', async () => {
    const onWasm = await call<Train>('train', 'wasm', SEED, 1, 0, gpuRun.saved!.key);
    expect(onWasm.resumed).toMatchObject({ step: 3, optimizerStep: 6, maxDiff: 0 });
    expect(onWasm.steps[0]!.step).toBe(4);
    expect(onWasm.steps[0]!.update_skipped).toBeNull();
  }, 120_000);
});
