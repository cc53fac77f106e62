// What a classroom saw (issue 64), in headless Chromium: the lesson options' checkboxes sit with
// their own words at 1920×1080 and on a phone (390×844); a chart after one step draws a marker;
// a phone's first screen holds the controls and the phase stepper (the fake trainer,
// test/ui/harness); and the production page (dist/, the real worker) loads with no failed or
// aborted request and shows the Python sandbox's start as it happens. Screenshots go to
// /tmp/ui-shots/classroom-view-*.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, servePage } from '../../scripts/browser.ts';
import { serveHarness } from '../helpers/browser_harness.ts';
import { HIDEABLE } from '../../src/ui/panels/storage_panel.ts';

const SHOTS = '/tmp/ui-shots';
const DESKTOP = { width: 1920, height: 1080 };
const PHONE = { width: 390, height: 844 };
let browser: Browser;
let harness: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  harness = await serveHarness();
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

type Playground = { state: string; finishedSteps: number };
const idle = (page: Page, steps = 0) =>
  page.waitForFunction(
    (n) => {
      const p = (window as unknown as { playground?: Playground }).playground;
      return p?.state === 'idle' && p.finishedSteps === n;
    },
    steps,
    { timeout: 60_000 },
  );

/** Opens the harness at `viewport` and waits until it is ready. */
async function open(viewport: { width: number; height: number }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(harness.url);
  await idle(page);
  expect(errors).toEqual([]);
  return page;
}

/** Where each Hide checkbox is, and where its own word and the word before it are (px). */
function hidePairs(page: Page) {
  return page.evaluate(() => {
    const rect = (node: Node) => {
      const range = document.createRange();
      range.selectNodeContents(node);
      const r = range.getBoundingClientRect();
      return { left: r.left, right: r.right, mid: (r.top + r.bottom) / 2 };
    };
    const boxes = [
      ...document.querySelectorAll<HTMLInputElement>(
        '[data-control="storage"] details input[type="checkbox"][value]',
      ),
    ];
    return boxes.map((box) => {
      const label = box.closest('label');
      const word = [...(label?.childNodes ?? [])].find(
        (n) => n.nodeType === Node.TEXT_NODE && n.textContent?.trim(),
      );
      const b = box.getBoundingClientRect();
      // the text just before this box (the previous label's word, or "Hide:")
      const before = label?.previousElementSibling ?? null;
      return {
        name: box.value,
        labelled: label !== null && word?.textContent?.trim() === box.value,
        box: { left: b.left, right: b.right, mid: (b.top + b.bottom) / 2 },
        word: word ? rect(word) : null,
        before: before ? rect(before) : null,
      };
    });
  });
}

describe('the classroom view', () => {
  for (const [name, viewport] of [
    ['1920×1080', DESKTOP],
    ['a phone (390×844)', PHONE],
  ] as const) {
    it(`each Hide checkbox sits with its own word, never wrapped apart, at ${name}`, async () => {
      const page = await open(viewport);
      await page.locator('[data-control="storage"] summary').click();
      await page.locator('[data-control="storage"] details').scrollIntoViewIfNeeded();
      await page
        .locator('[data-control="storage"]')
        .screenshot({ path: `${SHOTS}/classroom-view-link-options-${viewport.width}.png` });
      const pairs = await hidePairs(page);
      expect(pairs.map((p) => p.name)).toEqual([...HIDEABLE]);
      for (const pair of pairs) {
        expect(pair.labelled, pair.name).toBe(true);
        const word = pair.word!;
        // on the box's line, just right of it
        expect(Math.abs(word.mid - pair.box.mid), pair.name).toBeLessThan(6);
        const own = word.left - pair.box.right;
        expect(own, pair.name).toBeGreaterThanOrEqual(0);
        expect(own, pair.name).toBeLessThan(10);
        // the word before the box is further away than the box's own word (same line only)
        const before = pair.before;
        if (before && Math.abs(before.mid - pair.box.mid) < 6)
          expect(pair.box.left - before.right, pair.name).toBeGreaterThan(own + 4);
      }
      await page.close();
    });
  }

  it('a chart with one step draws a marker for each series (a line needs two points)', async () => {
    const page = await open(DESKTOP);
    await page.getByTestId('step').click();
    await idle(page, 1);
    await page
      .locator('[data-control="charts"]')
      .screenshot({ path: `${SHOTS}/classroom-view-charts-one-step.png` });
    // pixels of each series' colour on the chart's canvas (the legend's swatches are not on it)
    const coloured = await page.evaluate(() => {
      const count = (testid: string, [r, g, b]: number[]) => {
        const canvas = document.querySelector<HTMLCanvasElement>(
          `[data-testid="${testid}"] canvas`,
        );
        const context = canvas?.getContext('2d');
        if (!canvas || !context) return -1;
        const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
        let n = 0;
        for (let i = 0; i < data.length; i += 4)
          if (
            Math.abs(data[i]! - r!) < 24 &&
            Math.abs(data[i + 1]! - g!) < 24 &&
            Math.abs(data[i + 2]! - b!) < 24 &&
            data[i + 3]! > 200
          )
            n++;
        return n;
      };
      return {
        turns: count('chart-turns', [0x1a, 0x7f, 0x37]),
        loss: count('chart-loss', [0x82, 0x50, 0xdf]),
        perTurn: count('chart-tokens', [0x09, 0x69, 0xda]),
      };
    });
    expect(await page.getByTestId('chart-turns').getAttribute('data-points')).toBe('1');
    expect(coloured.turns).toBeGreaterThan(10);
    expect(coloured.loss).toBeGreaterThan(10);
    expect(coloured.perTurn).toBeGreaterThan(10);
    await page.close();
  });

  it("a phone's first screen holds the controls, the phase stepper and the start of the reward curve", async () => {
    const page = await open(PHONE);
    await page.screenshot({ path: `${SHOTS}/classroom-view-phone-idle.png` });
    const box = async (selector: string) => (await page.locator(selector).first().boundingBox())!;
    for (const control of ['train', 'step', 'phase', 'reset']) {
      const b = await box(`[data-testid="${control}"]`);
      expect(b.y + b.height, control).toBeLessThanOrEqual(PHONE.height);
    }
    const stepper = await box('.pipeline');
    expect(stepper.y + stepper.height).toBeLessThanOrEqual(PHONE.height);
    expect((await box('[data-testid="chart-reward"]')).y).toBeLessThan(PHONE.height);
    // the set-up comes after the run
    expect((await box('[data-control="model"]')).y).toBeGreaterThan(
      (await box('[data-control="charts"]')).y,
    );
    expect((await box('[data-control="config"]')).y).toBeGreaterThan(PHONE.height);
    // after a step the stepper and the controls are still the first screen
    await page.getByTestId('step').click();
    await idle(page, 1);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SHOTS}/classroom-view-phone-step1.png` });
    const after = await box('.pipeline');
    expect(after.y + after.height).toBeLessThanOrEqual(PHONE.height);
    await page.close();
  });
});

describe('the production page in a classroom', () => {
  it('loads with no failed, aborted or 404 request, and shows the sandbox starting until it is ready', async () => {
    const server = await servePage();
    const page = await browser.newPage({ viewport: DESKTOP });
    try {
      const problems: string[] = [];
      page.on('requestfailed', (r) =>
        problems.push(`failed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`),
      );
      page.on('response', (r) => {
        if (r.status() >= 400)
          problems.push(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`);
      });
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      await page.goto(server.url);
      // the sandbox bar's texts from the start until the page is ready
      const texts: string[] = [];
      const startedAt = Date.now();
      for (;;) {
        const [text, state] = await page.evaluate(() => [
          document.querySelector('[data-testid="progress-sandbox"]')?.textContent ?? '',
          (window as unknown as { playground?: Playground }).playground?.state ?? '',
        ]);
        if (text && texts.at(-1) !== text) texts.push(text);
        if (text.includes('starting…') && texts.length === 1)
          await page.screenshot({ path: `${SHOTS}/classroom-view-sandbox-starting.png` });
        if (state === 'idle') break;
        expect(Date.now() - startedAt, 'the page is ready in 3 minutes').toBeLessThan(180_000);
        await page.waitForTimeout(200);
      }
      await page.waitForTimeout(500);
      expect(problems).toEqual([]);
      // the sandbox's start reports no bytes: the page counted its seconds, then said how long
      expect(
        texts.some((t) => /starting… \d+ s/.test(t)),
        texts.join(' | '),
      ).toBe(true);
      expect(texts.at(-1)).toMatch(/ready in \d+\.\d s/);
      expect(await page.getByTestId('progress-sandbox').isVisible()).toBe(true);
      expect(await page.getByTestId('model-name').textContent()).toMatch(/demo/);
    } finally {
      await page.close();
      await server.close();
    }
  });
});
