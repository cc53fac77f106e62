// The Lessons gallery and compared runs in headless Chromium, on the fake trainer (test/ui/harness):
// `#lesson=ID&autostart=1` trains each lesson's runs one after another and draws them all on every
// chart (`data-series`), `window.playground.comparison` holds each run's config and metrics, the
// finished comparison's link reproduces it in a fresh page, the run history overlays and deletes
// runs, and the viewer shows an earlier run at the same step. Screenshots (1920×1080 and 390×844)
// go to /tmp/ui-shots/lessons-*.png.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { LESSONS } from '../../src/run/lessons.ts';
import { harnessSession } from '../helpers/browser_harness.ts';

const SHOTS = '/tmp/ui-shots';
const session = harnessSession(SHOTS);

type Run = { label: string; current: boolean; config: Record<string, unknown>; metrics: unknown[] };
type Playground = {
  state: string;
  lesson: { state: string; run: number; plan: { id: string } } | null;
  comparison: { lesson: string | null; runs: Run[]; caveats: string[] };
  history: { id: string; label: string }[];
  overlays: { id: string }[];
};
const playground = (page: Page) =>
  page.evaluate(() => {
    const p = (window as unknown as { playground: Playground }).playground;
    return {
      state: p.state,
      lesson: p.lesson && { state: p.lesson.state, run: p.lesson.run, id: p.lesson.plan.id },
      comparison: p.comparison,
      history: p.history.map((r) => ({ id: r.id, label: r.label })),
      overlays: p.overlays.map((o) => o.id),
    };
  });

/** Opens the harness at `size` and waits until the page has started. */
async function open(hash: string, size = { width: 1920, height: 1080 }): Promise<Page> {
  const page = await session.browser.newPage({ viewport: size });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${session.url}${hash}`);
  await page.waitForFunction(
    () => {
      const w = window as unknown as { playground?: Playground };
      return w.playground !== undefined && w.playground.state !== 'starting';
    },
    null,
    { timeout: 60_000 },
  );
  expect(errors).toEqual([]);
  return page;
}

const lessonDone = (page: Page) =>
  page.waitForFunction(
    () => (window as unknown as { playground: Playground }).playground.lesson?.state === 'done',
    null,
    { timeout: 120_000 },
  );

/** Each chart's `data-series`, by test id. */
const seriesDrawn = (page: Page) =>
  page.$$eval('[data-testid^="chart-"][data-series]', (charts) =>
    Object.fromEntries(
      charts.map((c) => [c.getAttribute('data-testid'), c.getAttribute('data-series')]),
    ),
  );

describe('lessons', () => {
  it('#lesson=basics&autostart=1 trains both runs and draws them on every chart, with a legend that names the difference', async () => {
    const page = await open('#lesson=basics&autostart=1&s=4');
    await lessonDone(page);
    const seen = await playground(page);
    expect(seen.lesson).toEqual({ state: 'done', run: 1, id: 'basics' });
    expect(seen.comparison.lesson).toBe('basics');
    expect(seen.comparison.runs.map((r) => [r.label, r.current, r.metrics.length])).toEqual([
      ['learning', false, 4],
      ['learning rate 0', true, 4],
    ]);
    expect(seen.comparison.runs.map((r) => r.config.lr)).toEqual([2e-3, 0]);
    expect(seen.comparison.caveats).toEqual([]);
    const series = await seriesDrawn(page);
    expect(Object.keys(series).length).toBe(8);
    for (const [chart, drawn] of Object.entries(series))
      expect([chart, drawn]).toEqual([chart, '2']);
    const legend = page.getByTestId('compare-legend');
    expect(await legend.isVisible()).toBe(true);
    expect(await legend.textContent()).toContain('learning rate 0.002');
    // the card: the lesson's figures for this page's runs
    const card = page.getByTestId('lesson-basics');
    expect(await card.getByTestId('lesson-summary').textContent()).toContain('reward gain');
    expect(await card.getByTestId('lesson-progress').textContent()).toMatch(/^Done: 2 runs/);
    await page.screenshot({ path: `${SHOTS}/lessons-basics-1920.png`, fullPage: true });

    // the viewer shows the earlier run at the step it shows now
    await page.getByTestId('viewer-step').selectOption('3');
    const overlay = seen.history.find((r) => r.label === 'learning')!;
    await page.getByTestId('viewer-run').selectOption(overlay.id);
    expect(await page.getByTestId('viewer-step').inputValue()).toBe('3');
    expect(await page.getByTestId('trajectory').count()).toBeGreaterThan(0);

    // the finished comparison's link reproduces both runs in a fresh page
    await card.getByTestId('lesson-share').click();
    const link = await page.getByTestId('link-text').inputValue();
    expect(link).toMatch(/#lesson=basics&v=2&s=4&seed=1$/);
    const again = await open(`${link.slice(link.indexOf('#'))}&autostart=1`);
    await lessonDone(again);
    const repeated = await playground(again);
    const rewards = (runs: Run[]) =>
      runs.map((r) => (r.metrics as { reward_mean: number }[]).map((m) => m.reward_mean));
    expect(rewards(repeated.comparison.runs)).toEqual(rewards(seen.comparison.runs));
    await again.close();
    await page.close();
  });

  it('every lesson runs from its link and draws all its runs', async () => {
    for (const id of LESSONS.keys()) {
      const page = await open(`#lesson=${id}&autostart=1&s=2`);
      await lessonDone(page);
      const seen = await playground(page);
      expect([id, seen.comparison.runs.length]).toEqual([id, LESSONS.get(id)!.runs.length]);
      expect([id, (await seriesDrawn(page))['chart-reward']]).toEqual([
        id,
        String(LESSONS.get(id)!.runs.length),
      ]);
      await page.close();
    }
  });

  it('the run history overlays an earlier run, says when runs differ in task set, and deletes runs', async () => {
    const page = await open('#lesson=tools&s=2');
    expect((await playground(page)).lesson?.state).toBe('ready');
    await page.getByTestId('lesson-tools').getByTestId('lesson-run').click();
    await lessonDone(page);
    // another task set: apply the default run and train it, then overlay the search run
    await page.evaluate(async () => {
      const p = (
        window as unknown as {
          playground: {
            config: Record<string, unknown>;
            applyConfig: (config: unknown) => Promise<boolean>;
            train: () => Promise<boolean>;
          };
        }
      ).playground;
      await p.applyConfig({
        ...p.config,
        tasks: 'seed+builtin',
        tools: ['execute_code', 'finish'],
      });
      await p.train();
    });
    const before = await playground(page);
    expect(before.history.length).toBe(3);
    // the lesson's first run stays overlaid on the new run; add its second
    expect(before.overlays.length).toBe(1);
    await page.getByTestId('history-overlay').first().click();
    await page.waitForFunction(
      () => (window as unknown as { playground: Playground }).playground.overlays.length === 2,
    );
    const seen = await playground(page);
    expect(seen.comparison.caveats.join(' ')).toContain('different task sets');
    expect(await page.getByTestId('compare-caveat').first().isVisible()).toBe(true);
    expect((await seriesDrawn(page))['chart-reward']).toBe('3');
    await page.screenshot({ path: `${SHOTS}/lessons-compare-1920.png`, fullPage: true });
    const deletes = page.getByTestId('history-delete');
    await deletes.first().click();
    await page.waitForFunction(
      () => (window as unknown as { playground: Playground }).playground.history.length === 2,
    );
    await page.getByTestId('history-clear').click();
    await page.waitForFunction(
      () => (window as unknown as { playground: Playground }).playground.history.length === 0,
    );
    await page.close();
  });

  it('a phone shows the lesson card first and both runs on the charts', async () => {
    const page = await open('#lesson=kl&autostart=1&s=3', { width: 390, height: 844 });
    await lessonDone(page);
    expect((await seriesDrawn(page))['chart-kl']).toBe('2');
    const card = page.getByTestId('lesson-kl');
    expect(await card.isVisible()).toBe(true);
    const box = await card.boundingBox();
    expect(box!.width).toBeLessThanOrEqual(390);
    // nothing wider than the screen
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    await page.screenshot({ path: `${SHOTS}/lessons-kl-390.png` });
    await page.getByTestId('chart-kl').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/lessons-kl-390-charts.png` });
    await page.close();
  });
});
