// The model card's cost before a download, in headless Chromium on the UI harness (the real page
// on the fake trainer, whose speed is WASM's calibration at 2 threads, as the worker gives it): the
// demo's estimate from its measured episodes, then a hub preset's memory, seconds per step and run
// time from its known config.json (no request), before Load model, following the configuration
// form's unapplied edits. A screenshot goes to /tmp/ui-shots/8-model-cost.png.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../scripts/browser.ts';
import { serveHarness } from '../helpers/browser_harness.ts';
import { startMockHub } from '../helpers/mock_hub.ts';

const SHOTS = '/tmp/ui-shots';
let browser: Browser;
let server: { url: string; close: () => Promise<void> };
type Playground = { playground: { state: string; speed: unknown } };

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await serveHarness();
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const text = async (page: Page, testid: string) =>
  (await page.getByTestId(testid).first().textContent())?.trim() ?? '';

/** Opens the harness and waits until it is ready. */
async function open(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(server.url);
  await page.waitForFunction(
    () => (window as unknown as Partial<Playground>).playground?.state === 'idle',
    null,
    { timeout: 60_000 },
  );
  expect(errors).toEqual([]);
  return page;
}

describe('model cost on the page', () => {
  it("tells a hub preset's memory, seconds per step and run time without a request, following edits", async () => {
    const root = mkdtempSync(join(tmpdir(), 'hub-'));
    mkdirSync(join(root, 'Qwen', 'Qwen2.5-0.5B-Instruct'), { recursive: true });
    writeFileSync(
      join(root, 'Qwen', 'Qwen2.5-0.5B-Instruct', 'config.json'),
      JSON.stringify({
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
      }),
    );
    const hub = await startMockHub({ root });
    try {
      const page = await open();
      expect(
        await page.evaluate(() => (window as unknown as Playground).playground.speed),
      ).toMatchObject({ backend: 'wasm', basis: 'calibrated', threads: 2 });
      await page.locator('summary', { hasText: 'Hub address' }).click();
      await page.getByTestId('hub-url').fill(hub.url);
      await page.getByTestId('hub-url').dispatchEvent('change');
      // the demo: seconds a step from its own episodes, and what that assumes
      const step = page.getByTestId('model-cost-step');
      await step.waitFor();
      expect(await step.textContent()).toMatch(/^≈ \d\.\d s per step on this device$/);
      expect(await text(page, 'model-cost-assumes')).toMatch(
        /^Assumes episodes as long as the demo model's own in its default run .* Speed: calibrated on a 2-core x86-64 VM; our kernels run on 2 threads here\./,
      );
      await page.getByTestId('model-select').selectOption('Qwen/Qwen2.5-0.5B-Instruct');
      await page.waitForFunction(() =>
        document
          .querySelector('[data-testid=model-cost-step]')
          ?.textContent?.includes('if every turn uses all 128 tokens'),
      );
      expect(await step.textContent()).toMatch(
        /^≈ \d+ min per step on this device if every turn uses all 128 tokens$/,
      );
      expect(await text(page, 'model-cost-memory')).toMatch(
        /^Qwen\/Qwen2\.5-0\.5B-Instruct needs up to \d/,
      );
      await page.screenshot({ path: `${SHOTS}/8-model-cost.png` });
      expect(await text(page, 'model-cost')).toMatch(/at these settings \(an estimate\):/);
      expect(await text(page, 'model-cost-run')).toMatch(
        /^Estimated run: \d+ steps ≈ .* \(from known shapes; nothing downloaded\)\.$/,
      );
      // a hub preset's shapes are known: nothing was read, and the worker has not been asked to
      // load it
      expect(hub.requests).toEqual([]);
      const calls = await page.evaluate(
        () => (window as unknown as { fakeTrainer: { calls: string[] } }).fakeTrainer.calls,
      );
      expect(calls.filter((c) => c.startsWith('loadModel'))).toEqual(['loadModel:demo']);
      // an edit not yet applied moves the figure: one turn of 32 tokens is far cheaper
      const before = await step.textContent();
      await page.getByTestId('field-maxTurns').fill('1');
      await page.getByTestId('field-maxNewTokens').fill('32');
      await page.waitForFunction(
        (old) => document.querySelector('[data-testid=model-cost-step]')?.textContent !== old,
        before,
      );
      expect(await step.textContent()).toMatch(/per step on this device/);
      await page.close();
    } finally {
      await hub.close();
    }
  });
});
