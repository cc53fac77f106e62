// The WebGPU path in a real browser: Chromium's software WebGPU adapter (SwiftShader) runs the same
// model as WASM and must give the same logits, log-probs and greedy tokens (docs/architecture.md
// §3). The WASM run also checks our SIMD attention kernel in the browser against PyTorch's values,
// and that Chromium gets the kernel's relaxed-SIMD build for the linear layers (against tf.matMul).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, SOFTWARE_WEBGPU_FLAGS } from '../../scripts/browser.ts';
import { serveSandboxHarness } from '../helpers/browser_harness.ts';
import { golden } from '../helpers/models.ts';
import { maxAbsDiff } from '../helpers/numbers.ts';

type Result = {
  backend: string;
  simd: boolean;
  fma: { active: boolean; maxDiff: number };
  adapter: { isFallback: boolean; architecture: string } | null;
  logits: number[][];
  logprobs: number[];
  greedy: number[];
};

describe('WebGPU (software adapter) against WASM in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let server: { url: string; close: () => Promise<void> };
  beforeAll(async () => {
    server = await serveSandboxHarness(true);
    browser = await launchBrowser(SOFTWARE_WEBGPU_FLAGS);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const run = async (backend: 'webgpu' | 'wasm', model: string, ids: number[]): Promise<Result> => {
    page = await browser.newPage();
    await page.goto(`${server.url}webgpu.html`);
    await page.waitForFunction(() => document.getElementById('state')?.textContent === 'ready');
    const result = await page.evaluate(
      ([b, m, i]) =>
        (
          window as unknown as {
            webgpuHarness: { run(b: string, m: string, i: number[]): Promise<Result> };
          }
        ).webgpuHarness.run(b, m, i),
      [backend, model, ids] as const,
    );
    await page.close();
    return result;
  };

  it.each(['tiny-llama', 'tiny-qwen2', 'tiny-qwen3'])(
    '%s: logits, log-probs and greedy tokens agree',
    async (model) => {
      const { ids } = golden(model);
      const gpu = await run('webgpu', model, ids);
      const wasm = await run('wasm', model, ids);
      expect(gpu.backend).toBe('webgpu');
      expect(gpu.adapter?.isFallback).toBe(true); // the software adapter, forced (auto would pick WASM)
      expect(wasm.backend).toBe('wasm');
      expect(wasm.simd).toBe(true); // the built page runs attention on the SIMD kernel (kernels/matmul/dispatch.ts)
      expect(gpu.simd).toBe(false);
      // Chromium has relaxed SIMD, so the page's linear layers with many rows run on the fused
      // kernel
      expect(wasm.fma.active).toBe(true);
      expect(wasm.fma.maxDiff).toBeLessThan(1e-4);
      expect(gpu.fma.active).toBe(false);
      gpu.logits.forEach((row, t) => expect(maxAbsDiff(row, wasm.logits[t]!)).toBeLessThan(1e-3));
      expect(maxAbsDiff(gpu.logprobs, wasm.logprobs)).toBeLessThan(1e-3);
      // and both match the PyTorch golden values
      wasm.logits.forEach((row, t) =>
        expect(maxAbsDiff(row, golden(model).logits[t]!)).toBeLessThan(1e-4),
      );
      expect(gpu.greedy).toEqual(wasm.greedy);
    },
    300_000,
  );

  it('a prefix shared by several sequences, run once, gives the log-probs and gradients of whole runs on both', async () => {
    const { ids } = golden('tiny-llama');
    page = await browser.newPage();
    await page.goto(`${server.url}webgpu.html`);
    await page.waitForFunction(() => document.getElementById('state')?.textContent === 'ready');
    type Shared = { backend: string; logprobDiff: number; prefixMax: number; gradDiff: number };
    const shared = (backend: string) =>
      page.evaluate(
        ([b, i]) =>
          (
            window as unknown as {
              webgpuHarness: {
                shared(b: string, m: string, i: number[], p: number): Promise<Shared>;
              };
            }
          ).webgpuHarness.shared(b, 'tiny-llama', i, 4),
        [backend, ids] as const,
      );
    for (const backend of ['webgpu', 'wasm']) {
      const result = await shared(backend);
      expect(result.backend).toBe(backend);
      expect(result.prefixMax).toBe(0);
      expect(result.logprobDiff).toBeLessThan(1e-4);
      expect(result.gradDiff).toBeLessThan(1e-3);
    }
    await page.close();
  }, 300_000);

  it('a shape model with a 155 MB embedding loads in vocabulary chunks under 128 MiB, and its logits equal WASM', async () => {
    type Split = {
      backend: string;
      chunkWidths: number[];
      largestVariable: number;
      largestBuffer: number;
      bindingLimit: number | null;
      logits: string;
      logprobs: number[];
      greedy: number[];
      wholeLogits: string | null;
    };
    const ids = [151643, 9707, 75968, 75967, 100000, 42, 151935, 3]; // both chunks, both ends
    const call = async (backend: string, whole: boolean): Promise<Split> => {
      page = await browser.newPage();
      await page.goto(`${server.url}webgpu.html`);
      await page.waitForFunction(() => document.getElementById('state')?.textContent === 'ready');
      const result = await page.evaluate(
        ([b, i, w]) =>
          (
            window as unknown as {
              vocabSplit(b: string, i: number[], w: boolean): Promise<Split>;
            }
          ).vocabSplit(b, i, w),
        [backend, ids, whole] as const,
      );
      await page.close();
      return result;
    };
    const floats = (text: string) => {
      const bytes = Buffer.from(text, 'base64');
      return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    };
    const MiB128 = 128 * 2 ** 20;
    const gpu = await call('webgpu', false);
    const wasm = await call('wasm', true);
    expect(gpu.backend).toBe('webgpu');
    expect(wasm.backend).toBe('wasm');
    // the default limit splits the (256, 151936) embedding in two on both backends
    expect(gpu.chunkWidths).toEqual([75968, 75968]);
    expect(wasm.chunkWidths).toEqual([75968, 75968]);
    expect(gpu.largestVariable).toBeLessThanOrEqual(MiB128);
    // no GPU buffer the backend made, the chunks' uploads included, passed 128 MiB
    expect(gpu.largestBuffer).toBeGreaterThan(64 * 2 ** 20);
    expect(gpu.largestBuffer).toBeLessThanOrEqual(MiB128);
    const [a, b, whole] = [gpu.logits, wasm.logits, wasm.wholeLogits!].map(floats);
    expect(a!.length).toBe(ids.length * 151936);
    const logitDiff = maxAbsDiff(a!, b!);
    const logprobDiff = maxAbsDiff(gpu.logprobs, wasm.logprobs);
    console.log(
      `wide vocabulary: adapter binding limit ${gpu.bindingLimit} B, largest GPU buffer ${gpu.largestBuffer} B; ` +
        `max |logit| diff WebGPU-WASM ${logitDiff}, split-unsplit (WASM) ${maxAbsDiff(b!, whole!)}; log-prob diff ${logprobDiff}`,
    );
    expect(logitDiff).toBeLessThan(1e-3);
    expect(maxAbsDiff(b!, whole!)).toBeLessThan(1e-5);
    expect(logprobDiff).toBeLessThan(1e-3);
    expect(gpu.greedy).toEqual(wasm.greedy);
  }, 600_000);
});
