// The production page (dist/, built by test/global-setup.ts) in headless Chromium: it loads with
// the full layout and never breaks, and, with the trainer worker in the build, the demo model
// trains. UI behaviour in depth is covered on the fake trainer in page_ui.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockHub } from '../helpers/mock_hub.ts';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, SOFTWARE_WEBGPU_FLAGS, servePage } from '../../scripts/browser.ts';

const SHOTS = '/tmp/ui-shots';
const repo = join(import.meta.dirname, '..', '..');
const hasWorker = existsSync(join(repo, 'workers', 'trainer.worker.ts'));
const hasDemo = existsSync(join(repo, 'public', 'models', 'demo', 'config.json'));
const tinyLlama = join(repo, 'test', 'fixtures', 'models', 'tiny-llama');
let browser: Browser;
let server: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await servePage();
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Opens the page and waits until the run controller is idle (ready, or stopped by an error). */
async function open(hash = ''): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${server.url}${hash}`);
  await page.waitForFunction(
    () => (window as unknown as { playground?: { state: string } }).playground?.state === 'idle',
    null,
    { timeout: 180_000 },
  );
  return { page, errors };
}

describe('production page', () => {
  it('serves an isolated page with every panel and no script errors', async () => {
    const { page, errors } = await open();
    expect(errors).toEqual([]);
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    for (const testid of [
      'train',
      'pause',
      'step',
      'reset',
      'status',
      'step-count',
      'reward-mean',
      'backend',
      'copy-link',
      'config',
      'phase-data',
      'samples',
    ]) {
      expect(await page.getByTestId(testid).count(), testid).toBe(1);
    }
    expect(await page.getByTestId('chart-reward').count()).toBe(1);
    if (!hasWorker) {
      // Until the worker is built in, the page says so in the error area and stays usable.
      expect(await page.getByTestId('error').textContent()).toContain('no trainer worker');
      expect(await page.getByTestId('train').isDisabled()).toBe(true);
    } else {
      // the worker measured this device's speed as the page opened (src/service/speed_probe.ts)
      const speed = await page.evaluate(
        () =>
          (window as unknown as { playground: { speed: { gflops: number; bandwidthGBs: number } } })
            .playground.speed,
      );
      expect(speed.gflops).toBeGreaterThan(0);
      expect(speed.bandwidthGBs).toBeGreaterThan(0);
    }
    await page.screenshot({ path: `${SHOTS}/product-open.png` });
    await page.close();
  });

  it('opens a bad link with a message and keeps the form usable', async () => {
    const { page, errors } = await open('#v=1&g=nope&mnt=99999');
    expect(errors).toEqual([]);
    const message = await page.getByTestId('error').first().textContent();
    expect(message).toMatch(/groupSize/);
    expect(message).toMatch(/maxNewTokens/);
    expect(await page.getByTestId('field-groupSize').inputValue()).toBe('4');
    await page.getByTestId('field-groupSize').fill('0');
    expect(await page.getByTestId('field-error-groupSize').textContent()).toMatch(/Fix:/);
    await page.close();
  });

  it('becomes cross-origin isolated on a host without header control through its own service worker', async () => {
    const plain = await servePage(false);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(plain.url);
      // First load registers public/coi-serviceworker.js and reloads once; then the headers are
      // there. Generous waits: the page is ready only once Pyodide and the demo model have loaded,
      // and CI runs this beside the demo learning test on two cores (a 60 s wait once timed out
      // there).
      await page.waitForFunction(
        () =>
          crossOriginIsolated &&
          (window as unknown as { playground?: unknown }).playground !== undefined,
        null,
        { timeout: 180_000 },
      );
      expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toMatch(
        /coi-serviceworker\.js$/,
      );
      // `?coi=0` (tests of the non-isolated path) keeps a fresh browser context unisolated.
      const fresh = await browser.newContext();
      const bare = await fresh.newPage();
      await bare.goto(`${plain.url}?coi=0`);
      await bare.waitForFunction(
        () => (window as unknown as { playground?: unknown }).playground !== undefined,
        null,
        { timeout: 180_000 },
      );
      expect(await bare.evaluate(() => crossOriginIsolated)).toBe(false);
      await fresh.close();
    } finally {
      await context.close();
      await plain.close();
    }
  }, 420_000);

  it.skipIf(!hasWorker)(
    'loads a model folder picked from disk through the real worker',
    async () => {
      const { page } = await open();
      await page.getByTestId('model-select').selectOption('__folder__');
      await page.getByTestId('model-folder').setInputFiles(tinyLlama);
      await page.getByTestId('load-model').click(); // picking alone loads nothing
      await page.waitForFunction(
        () => document.querySelector('[data-testid=model-card-name]')?.textContent === 'tiny-llama',
        null,
        { timeout: 120_000 },
      );
      expect(await page.locator('.model-card .facts').first().textContent()).toMatch(
        /^\d+K parameters · .* · llama · from files$/,
      );
      expect(await page.getByTestId('status').textContent()).toMatch(/Configuration applied/);
      await page.close();
    },
  );

  it.skipIf(!hasWorker)(
    'loads a hub model from the local mock hub with byte progress, then from the cache without a request',
    async () => {
      const root = mkdtempSync(join(tmpdir(), 'hub-'));
      cpSync(tinyLlama, join(root, 'test-org', 'tiny-llama'), { recursive: true });
      const hub = await startMockHub({ root });
      const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
      try {
        await context.addInitScript((url) => localStorage.setItem('hubBaseUrl', url), hub.url);
        const page = await context.newPage();
        const ready = () =>
          page.waitForFunction(
            () =>
              (window as unknown as { playground?: { state: string; model: unknown } }).playground
                ?.state === 'idle',
            null,
            { timeout: 120_000 },
          );
        await page.goto(`${server.url}#v=1&m=test-org%2Ftiny-llama`);
        await ready();
        expect(await page.getByTestId('model-card-name').textContent()).toBe(
          `test-org/tiny-llama (${hub.url})`,
        );
        expect(await page.getByTestId('progress-model').textContent()).toMatch(
          /(\d+(\.\d)? KB) \/ \1/,
        );
        expect(hub.requests).toContain('GET /test-org/tiny-llama/resolve/main/model.safetensors');
        const downloads = hub.requests.length;
        await page.reload();
        await ready();
        expect(await page.getByTestId('model-card-name').textContent()).toBe(
          `test-org/tiny-llama (${hub.url})`,
        );
        expect(hub.requests.slice(downloads)).toEqual([]);
      } finally {
        await context.close();
        await hub.close();
      }
    },
  );

  it.skipIf(!hasWorker || !hasDemo)(
    "auto measures WebGPU against WASM and picks WASM over Chromium's software adapter",
    async () => {
      const gpuBrowser = await launchBrowser(SOFTWARE_WEBGPU_FLAGS);
      try {
        const page = await gpuBrowser.newPage({ viewport: { width: 1440, height: 1000 } });
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        await page.goto(server.url);
        await page.waitForFunction(
          () =>
            (window as unknown as { playground?: { state: string } }).playground?.state === 'idle',
          null,
          { timeout: 180_000 },
        );
        expect(errors).toEqual([]);
        // the software adapter loses to WASM (src/service/backend_probe.ts), and the header says by
        // how much: its probe either finishes or runs out of its time
        expect(await page.getByTestId('backend').textContent()).toMatch(/^WASM · SIMD/);
        const probe = await page.getByTestId('backend-probe').textContent();
        console.log(`software adapter probe: ${probe}`);
        expect(probe).toMatch(
          /^— chosen: \d+(\.\d+)? ms\/token vs WebGPU (over )?\d+(\.\d+)? ms\/token$/,
        );
        const stored = await page.evaluate(() => localStorage.getItem('backendProbes') ?? '');
        expect(stored).toContain('"chosen":"wasm"');
        expect(await page.getByTestId('model-name').textContent()).toMatch(/^demo/);
        await page.locator('header.top').screenshot({ path: `${SHOTS}/product-probe-header.png` });
        await page.close();
      } finally {
        await gpuBrowser.close();
      }
    },
  );

  it.skipIf(!hasWorker || !hasDemo)(
    'loads the demo model and trains two steps: charts get points, the viewer shows code and outputs',
    async () => {
      const { page, errors } = await open('#v=1&seed=0&s=2');
      expect(errors).toEqual([]);
      // Chromium without a GPU: WASM with relaxed SIMD, so the fused matmul kernel trains
      // (kernels/matmul/dispatch.ts), on every core (up to 4) through the helper threads of
      // kernels/matmul/threads.ts
      const cores = Math.min(4, await page.evaluate(() => navigator.hardwareConcurrency));
      expect(await page.getByTestId('backend').textContent()).toMatch(
        cores > 1
          ? new RegExp(`^WASM · SIMD \\+ FMA · ${cores} threads$|^WebGPU`)
          : /^WASM · SIMD \+ FMA · 1 thread$|^WebGPU/,
      );
      expect(await page.getByTestId('error').isVisible()).toBe(false);
      await page.getByTestId('train').click();
      await page.waitForFunction(
        () => document.querySelector('[data-testid=step-count]')?.textContent === '2',
        null,
        { timeout: 900_000 },
      );
      expect(Number(await page.getByTestId('reward-mean').textContent())).toBeGreaterThanOrEqual(0);
      expect(
        Number(await page.getByTestId('chart-reward').getAttribute('data-points')),
      ).toBeGreaterThanOrEqual(2);
      expect(await page.getByTestId('trajectory').count()).toBeGreaterThan(0);
      expect(
        (await page.getByTestId('turn-generated').first().textContent())?.length,
      ).toBeGreaterThan(0);
      await page.screenshot({ path: `${SHOTS}/product-trained.png`, fullPage: true });
      await page.close();
    },
    1_000_000,
  );

  it.skipIf(!hasWorker || !hasDemo)(
    'trains with async on: steps overlap, a killed rollout worker is restarted, every episode is accounted for',
    async () => {
      const { page, errors } = await open('#seed=0&s=3&async=1');
      expect(errors).toEqual([]);
      const warnings: string[] = [];
      page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
      type Playground = {
        metrics: { staleness?: number; overlap_fraction?: number; timeline?: unknown }[];
        deps: {
          trainer: {
            killRolloutWorker(options?: { whileSampling?: number }): Promise<void>;
            rolloutAccounting(): Promise<Record<string, number> | null>;
          };
        };
      };
      const stepCount = (n: number) =>
        page.waitForFunction(
          (want) => document.querySelector('[data-testid=step-count]')?.textContent === want,
          String(n),
          { timeout: 600_000 },
        );
      // the kill lands while the worker samples step 1's episodes, whatever this machine's speed
      // (it waits in the trainer worker for that job to be sent)
      await page.evaluate(() => {
        const w = window as unknown as { playground: Playground; killed?: Promise<string> };
        w.killed = w.playground.deps.trainer.killRolloutWorker({ whileSampling: 1 }).then(
          () => 'killed',
          (error: Error) => error.message,
        );
      });
      await page.getByTestId('train').click();
      expect(
        await page.evaluate(() => (window as unknown as { killed: Promise<string> }).killed),
      ).toBe('killed');
      await stepCount(3);
      const metrics = await page.evaluate(() =>
        (window as unknown as { playground: Playground }).playground.metrics.map((m) => ({
          staleness: m.staleness,
          overlap: m.overlap_fraction,
          lanes: [
            ...new Set(
              ((m.timeline as { spans: { lane: string }[] } | undefined)?.spans ?? []).map(
                (s) => s.lane,
              ),
            ),
          ].sort(),
        })),
      );
      console.log(`async in the page: ${JSON.stringify(metrics)}`);
      expect(metrics.map((m) => m.staleness)).toEqual([0, 1, 1]);
      // step 2's episodes were sampled while step 1 updated, their programs on the sandbox
      // workers' lanes (one or both: which worker takes a program depends on when each is free, and
      // a loaded CI machine gave all of step 1's to sandbox-0)
      expect(metrics[0]!.overlap).toBeGreaterThan(0);
      const lanes = metrics[0]!.lanes;
      expect(lanes.filter((lane) => !lane.startsWith('sandbox-'))).toEqual(['rollout', 'trainer']);
      expect(lanes.filter((lane) => lane.startsWith('sandbox-')).length).toBeGreaterThan(0);
      expect(lanes.every((lane) => /^(rollout|trainer|sandbox-[01])$/.test(lane))).toBe(true);
      const accounting = await page.evaluate(() =>
        (
          window as unknown as { playground: Playground }
        ).playground.deps.trainer.rolloutAccounting(),
      );
      // 3 steps of the default run's 18 episodes were trained on; the 18 the dead worker was
      // sampling count as dropped, and its job ran again on the new worker
      expect(accounting).toEqual({
        workers_started: 2,
        episodes_sampled: 72,
        episodes_trained: 54,
        episodes_dropped: 18,
      });
      // and the timeline says so on the step it fell in
      expect(
        await page.locator('[data-testid=timeline] [data-step="1"] .timeline-head').textContent(),
      ).toMatch(/ · rollout worker restarted ×1 · 18 episodes dropped$/);
      expect(warnings.filter((w) => /rollout worker died while/.test(w))).toEqual([
        expect.stringMatching(/^rollout worker died while sampling step 1 \(.*\); restarting it$/),
      ]);
      expect(await page.getByTestId('error').isVisible()).toBe(false);
      expect(errors).toEqual([]);
      await page.screenshot({ path: `${SHOTS}/product-async.png`, fullPage: true });
      await page.close();
    },
    1_000_000,
  );
});
