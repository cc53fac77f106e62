// The WebGPU decoding engine (src/kernels/webgpu/) in Chromium on the software adapter: each kernel
// against a float64 reference in both layouts (a GPU's and a software adapter's), the engine in
// generate() against WASM on the fixture models (BF16 as shipped, F16, Llama / Qwen2 / Qwen3), and
// a census of what decoding a token asks of WebGPU, with the targets of docs/kernels.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, SOFTWARE_WEBGPU_FLAGS } from '../../scripts/browser.ts';
import { serveSandboxHarness } from '../helpers/browser_harness.ts';

type Run = {
  greedy: number[];
  greedyLogprobs: number[];
  sampled: number[][];
  sampledLogprobs: number[][];
  loss: number;
  norm: number;
  engineSteps: number;
};
type Census = { dispatches: number; submits: number; readbackPerSequence: number; created: number };

describe('the WebGPU decoding engine (software adapter)', () => {
  let browser: Browser;
  let page: Page;
  let server: { url: string; close: () => Promise<void> };
  beforeAll(async () => {
    server = await serveSandboxHarness(true);
    browser = await launchBrowser(SOFTWARE_WEBGPU_FLAGS);
    page = await browser.newPage();
    page.on('console', (m) => m.type() === 'error' && console.log(`page: ${m.text()}`));
    await page.goto(`${server.url}webgpu_engine.html`);
    await page.waitForFunction(() => document.getElementById('state')?.textContent === 'ready');
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const call = <T>(name: string, ...args: unknown[]): Promise<T> =>
    page.evaluate(
      ([n, a]) =>
        (
          window as unknown as {
            engineHarness: Record<string, (...x: unknown[]) => Promise<unknown>>;
          }
        ).engineHarness[n as string]!(...(a as unknown[])),
      [name, args] as const,
    ) as Promise<T>;

  it('each kernel matches its float64 reference to 1e-4, in both layouts, BF16 and F16, odd widths', async () => {
    const errors = await call<Record<string, number>>('kernels');
    console.log(
      `kernels, worst relative error: ${Object.entries(errors)
        .map(([k, v]) => `${k} ${v.toExponential(1)}`)
        .join('; ')}`,
    );
    expect(Object.keys(errors).length).toBeGreaterThanOrEqual(30);
    for (const [name, error] of Object.entries(errors)) {
      if (name.startsWith('sampling ids equal')) expect(error, name).toBe(1);
      else expect(error, name).toBeLessThan(1e-4);
    }
  }, 600_000);

  for (const [name, kind, layout] of [
    ['tiny-llama-bf16', 'as shipped', 'software'],
    ['tiny-qwen2-bf16', 'as shipped', 'software'],
    ['tiny-qwen3-bf16', 'as shipped', 'software'],
    ['tiny-qwen3', 'F16', 'hardware'],
  ] as const) {
    it(`${name} (${kind}, ${layout} layout) decodes on the engine as WASM does, and trains as it does`, async () => {
      const gpu = await call<Run>('run', 'webgpu', name, kind, layout);
      const wasm = await call<Run>('run', 'wasm', name, kind, null);
      // the engine ran every step (a step a token, both generations)
      expect(gpu.engineSteps).toBe(31 + 23);
      expect(gpu.greedy).toEqual(wasm.greedy);
      gpu.greedyLogprobs.forEach((v, t) =>
        expect(Math.abs(v - wasm.greedyLogprobs[t]!)).toBeLessThan(1e-4),
      );
      // the same seed: the same samples, as long as the logits agree (they do, to ~1e-6)
      expect(gpu.sampled).toEqual(wasm.sampled);
      gpu.sampledLogprobs
        .flat()
        .forEach((v, i) =>
          expect(Math.abs(v - wasm.sampledLogprobs.flat()[i]!)).toBeLessThan(1e-4),
        );
      expect(Math.abs(gpu.loss - wasm.loss) / Math.max(1, Math.abs(wasm.loss))).toBeLessThan(1e-3);
      expect(Math.abs(gpu.norm - wasm.norm) / Math.max(1, wasm.norm)).toBeLessThan(1e-3);
    }, 600_000);
  }

  it('a token is 5 GPU programs a layer and 6 besides, one submit, 8 bytes a sequence read back, nothing made after warm-up; the tfjs ops are not', async () => {
    const two = await call<Census>('census', 2, true);
    const four = await call<Census>('census', 4, true);
    console.log(`census, 2 layers: ${JSON.stringify(two)}; 4 layers: ${JSON.stringify(four)}`);
    const perLayer = (four.dispatches - two.dispatches) / 2;
    expect(perLayer).toBeLessThanOrEqual(6);
    expect(two.dispatches - 2 * perLayer).toBeLessThanOrEqual(10);
    expect([perLayer, two.dispatches - 2 * perLayer]).toEqual([5, 6]);
    for (const c of [two, four]) {
      expect(c.submits).toBe(1);
      expect(c.readbackPerSequence).toBeLessThanOrEqual(16);
      expect(c.created).toBe(0);
    }
    // the control: tfjs's ops decode the same model with hundreds of programs and objects a token
    const ops = await call<Census>('census', 2, false);
    console.log(`census, 2 layers on tfjs ops: ${JSON.stringify(ops)}`);
    expect(ops.dispatches).toBeGreaterThan(6 * 2 + 10);
  }, 600_000);
});
