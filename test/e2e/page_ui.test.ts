// The page's UI in headless Chromium, on the fake trainer (test/ui/harness): training, the phase
// stepper, pause/step/reset, config validation, run links (copy, reopen, bad links, lesson mode),
// reload → resume from IndexedDB, exports and actionable errors. The same panels run on the real
// worker in page.test.ts. Screenshots of the main states go to /tmp/ui-shots.
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipFiles } from '../../src/run/exports.ts';
import { encodeLink } from '../../src/run/link.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { startMockHub } from '../helpers/mock_hub.ts';
import type { Page } from 'playwright-core';
import { harnessSession } from '../helpers/browser_harness.ts';

const SHOTS = '/tmp/ui-shots';
const session = harnessSession(SHOTS);

const text = async (page: Page, testid: string) =>
  (await page.getByTestId(testid).first().textContent())?.trim() ?? '';

/**
 * Opens the harness (query: fake trainer options; hash: run link) and waits until it is ready or
 * failed.
 */
async function open(query = '', hash = '', page?: Page): Promise<Page> {
  const tab = page ?? (await session.browser.newPage({ viewport: { width: 1440, height: 1000 } }));
  const errors: string[] = [];
  tab.on('pageerror', (error) => errors.push(error.message));
  await tab.goto(`${session.url}${query}${hash}`);
  await tab.waitForFunction(
    () => {
      const w = window as unknown as { playground?: { state: string } };
      return w.playground !== undefined && w.playground.state === 'idle';
    },
    null,
    { timeout: 60_000 },
  );
  expect(errors).toEqual([]);
  return tab;
}

const stepCount = async (page: Page) => Number(await text(page, 'step-count'));

describe('page UI on the fake trainer', () => {
  it('loads with backend, model card, progress bars and a ready status; Train runs steps and fills charts and viewer', async () => {
    const page = await open('?delay=15&tokens=1', '#v=1&seed=0&s=3');
    expect(await text(page, 'backend')).toBe('WASM · SIMD + FMA · 2 threads');
    expect(await text(page, 'model-card-name')).toBe('demo');
    expect(await text(page, 'status')).toMatch(/^Ready/);
    expect(await page.getByTestId('progress-model').textContent()).toContain('38.1 MB / 38.1 MB');
    expect(await page.getByTestId('progress-sandbox').isVisible()).toBe(true);
    expect(await page.getByTestId('error').isVisible()).toBe(false);
    expect(await text(page, 'reward-mean')).toBe('–');
    await page.screenshot({ path: `${SHOTS}/1-ready.png` });

    // Long main-thread tasks while training (here: the panels' rendering plus the fake itself).
    await page.evaluate(() => {
      const w = window as unknown as { longest: number };
      w.longest = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.longest = Math.max(w.longest, entry.duration);
      }).observe({ type: 'longtask' });
    });
    await page.getByTestId('train').click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid=step-count]')?.textContent === '3',
      null,
      { timeout: 60_000 },
    );
    const longest = await page.evaluate(() => (window as unknown as { longest: number }).longest);
    console.log(
      `longest main-thread task while training on the fake trainer: ${longest.toFixed(0)} ms (0 = none over 50 ms)`,
    );
    expect(longest).toBeLessThan(500); // generous: a loaded 2-core CI machine; the target for the real page is 50 ms
    expect(Number(await text(page, 'reward-mean'))).toBeGreaterThanOrEqual(0);
    // the run finishes after its last step shows (the run is saved to the history first)
    await page.waitForFunction(
      () =>
        /Finished 3 steps/.test(document.querySelector('[data-testid=status]')?.textContent ?? ''),
      null,
      { timeout: 30_000 },
    );
    expect(await page.getByTestId('train').isDisabled()).toBe(true); // the configured steps are done
    for (const chart of ['reward', 'loss', 'kl', 'clip', 'tokens', 'turns', 'time']) {
      expect(
        Number(await page.getByTestId(`chart-${chart}`).getAttribute('data-points')),
      ).toBeGreaterThanOrEqual(3);
    }
    expect(await page.locator('[data-testid=chart-reward] canvas').count()).toBe(1);
    // the timeline: a strip per recent step, a row per lane (trainer, rollout, the sandbox)
    expect(await page.getByTestId('timeline').getAttribute('data-steps')).toBe('3');
    expect(
      await page
        .locator('[data-testid=timeline] .timeline-step')
        .last()
        .locator('[data-lane]')
        .count(),
    ).toBe(3);
    const samples = page.getByTestId('trajectory');
    expect(await samples.count()).toBe(4); // G samples of the first prompt, side by side
    expect(await samples.first().getByTestId('turn-generated').first().textContent()).toContain(
      '```python',
    );
    expect(await page.getByTestId('turn-observation').count()).toBeGreaterThan(0);
    // code reads as code by default; token by token on request
    const generated = samples.first().getByTestId('turn-generated').first();
    expect(await generated.locator('.tok').count()).toBe(0);
    await page.getByTestId('show-tokens').check();
    expect(await generated.locator('.tok').count()).toBeGreaterThan(1);
    await page.getByTestId('show-tokens').uncheck();
    await page.screenshot({ path: `${SHOTS}/2-trained.png`, fullPage: true });

    // Filters and prompt tabs.
    await page.getByTestId('filter-best').click();
    expect(await samples.count()).toBe(1);
    await page.getByTestId('filter-failures').click();
    for (const card of await samples.all()) expect(await card.textContent()).toContain('failed');
    await page.getByTestId('filter-all').click();
    await page.getByTestId('viewer-group').nth(2).click();
    expect(await page.locator('.prompt').textContent()).toContain('sort [5, 1, 4, 2, 8]');
    await page.close();
  });

  it("gives the timeline's strips a time axis, and a caption for asynchronous training when async is on", async () => {
    const page = await open('', '#v=2&seed=0&s=2');
    const caption = page.getByTestId('timeline-caption');
    expect(await caption.textContent()).toMatch(/Synchronous training idles the trainer/);
    await page.getByTestId('step').click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid=timeline]')?.getAttribute('data-steps') === '1',
    );
    // the fake step's wall is 4.4 s: a mark each second, from the step's start
    const axis = page.getByTestId('timeline-axis');
    expect(await axis.count()).toBe(1);
    expect(await axis.locator('.timeline-tick').allTextContents()).toEqual([
      '0 s',
      '1 s',
      '2 s',
      '3 s',
      '4 s',
    ]);
    // the axis lines up with the bars' track
    const [track, ticks] = await Promise.all([
      page.locator('.timeline-track').first().boundingBox(),
      axis.locator('.timeline-ticks').boundingBox(),
    ]);
    expect(Math.abs(track!.x - ticks!.x)).toBeLessThan(1);
    expect(Math.abs(track!.width - ticks!.width)).toBeLessThan(1);
    await page.locator('[data-testid=config] summary', { hasText: /^Run$/ }).click();
    await page.getByTestId('field-async').check();
    await page.getByTestId('apply-config').click();
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid=timeline-caption]')
        ?.textContent?.includes('Asynchronous'),
    );
    expect(await caption.textContent()).not.toMatch(/Synchronous/);
    await page.close();
  });

  it('steps through phases, showing rollout samples, rewards, advantage arithmetic and the update', async () => {
    const page = await open('?tokens=1', '#v=1&seed=3');
    const phase = page.getByTestId('phase');
    await phase.click();
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid=phase-data] h3')
        ?.textContent?.startsWith('Rollout of step 1'),
    );
    expect(await page.getByTestId('trajectory').first().textContent()).toContain('not scored yet');
    expect(await page.getByTestId('phase-rollout').getAttribute('class')).toContain('done');
    expect(await stepCount(page)).toBe(0);
    await phase.click();
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid=phase-data] h3')
        ?.textContent?.startsWith('Rewards of step 1'),
    );
    expect(await page.locator('[data-testid=phase-data] table tbody tr').count()).toBe(3);
    await phase.click();
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid=phase-data] h3')
        ?.textContent?.startsWith('Advantages of step 1'),
    );
    expect(await page.getByTestId('phase-data').textContent()).toContain(
      'Aᵢ = (rᵢ − mean(r)) / std(r)',
    );
    expect(await page.getByTestId('sample-advantage').count()).toBe(4);
    await page.screenshot({ path: `${SHOTS}/3-advantage-phase.png` });
    await phase.click();
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid=phase-data] h3')
        ?.textContent?.startsWith('Update of step 1'),
    );
    expect(await page.getByTestId('phase-data').textContent()).toMatch(/loss.*KL.*clip fraction/);
    expect(await stepCount(page)).toBe(1);
    // Half a step, then Step finishes it; Reset goes back to 0.
    await phase.click();
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid=phase-data] h3')
        ?.textContent?.startsWith('Rollout of step 2'),
    );
    await page.getByTestId('step').click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid=step-count]')?.textContent === '2',
    );
    await page.getByTestId('reset').click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid=step-count]')?.textContent === '0',
    );
    expect(await page.getByTestId('trajectory').count()).toBe(0);
    await page.close();
  });

  it('pauses after the step in flight and resumes a reloaded run from IndexedDB with charts intact', async () => {
    const page = await open('?delay=40&every=1', '#v=1&seed=5&s=50');
    await page.getByTestId('train').click();
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid=step-count]')?.textContent) >= 2,
      null,
      { timeout: 60_000 },
    );
    await page.getByTestId('pause').click();
    await page.waitForFunction(
      () =>
        document
          .querySelector('[data-testid=status]')
          ?.textContent?.startsWith('Paused after step'),
      null,
      { timeout: 60_000 },
    );
    const steps = await stepCount(page);
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid=checkpoint-status]')
        ?.textContent?.startsWith('Checkpoint: step'),
    );
    await page.reload();
    await page.waitForFunction(
      () => (window as unknown as { playground?: { state: string } }).playground?.state === 'idle',
      null,
      { timeout: 60_000 },
    );
    await page.getByTestId('resume').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('resume-offer').textContent()).toContain(`Step ${steps}`);
    await page.screenshot({ path: `${SHOTS}/4-resume-offer.png` });
    await page.getByTestId('resume').click();
    await page.waitForFunction(
      (n) => document.querySelector('[data-testid=step-count]')?.textContent === String(n),
      steps,
    );
    expect(
      Number(await page.getByTestId('chart-reward').getAttribute('data-points')),
    ).toBeGreaterThanOrEqual(steps * 3);
    const calls = await page.evaluate(
      () => (window as unknown as { fakeTrainer: { calls: string[] } }).fakeTrainer.calls,
    );
    expect(calls.at(-1)).toBe(`restore:${steps}`);
    await page.close();
  });

  it('explains a bad value inline, blocks Apply until fixed, and applies a valid config', async () => {
    const page = await open();
    const group = page.getByTestId('field-groupSize');
    await group.fill('1');
    expect(await text(page, 'field-error-groupSize')).toMatch(
      /groupSize must be a whole number from 2 to 64.*Fix:/,
    );
    expect(await page.getByTestId('apply-config').isDisabled()).toBe(true);
    await page.screenshot({
      path: `${SHOTS}/5-invalid-field.png`,
      clip: { x: 0, y: 150, width: 500, height: 700 },
    });
    await group.fill('6');
    expect(await text(page, 'field-error-groupSize')).toBe('');
    await page.getByTestId('field-tasks').selectOption('custom');
    expect(await text(page, 'field-error-tasks')).toMatch(/no custom tasks/);
    await page.getByTestId('add-task').click();
    await page.getByTestId('task-prompt-0').fill('Print the sum of 1..10.');
    await page.getByTestId('task-check-0').fill('55');
    expect(await text(page, 'field-error-tasks')).toBe('');
    expect(await page.getByTestId('apply-config').isEnabled()).toBe(true);
    await page.getByTestId('apply-config').click();
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid=status]')
        ?.textContent?.startsWith('Configuration applied'),
    );
    await page.getByTestId('step').click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid=step-count]')?.textContent === '1',
    );
    expect(await page.getByTestId('trajectory').count()).toBe(6); // one custom prompt × G = 6
    // each sample says what its reward was made of: the line it printed against the expected one
    expect(await page.getByTestId('sample-scored').count()).toBe(6);
    expect(await page.getByTestId('sample-scored').first().textContent()).toMatch(
      /^Scored: r = [\d.]+, from\n· output_match [\d.]+ × weight 1: (printed ".*"|no code ran|the last run printed nothing)[;,] expected "55"$/m,
    );
    expect(await page.locator('.prompt').textContent()).toContain('Print the sum of 1..10.');
    await page.close();
  });

  it("refuses a custom task's tests that do not compile, with the line, until they do", async () => {
    const page = await open('');
    await page.getByTestId('field-tasks').selectOption('custom');
    await page.getByTestId('add-task').click();
    await page.getByTestId('task-prompt-0').fill('Write double(x).');
    await page.locator('input[name=mode-0]').nth(1).check(); // assert tests
    await page.getByTestId('task-check-0').fill('assert double(2) == 4\nassert double(3) = 6');
    const error = page.getByTestId('field-error-customTasks');
    await page.waitForFunction(() =>
      /does not compile|do not compile/.test(
        document.querySelector('[data-testid=field-error-customTasks]')?.textContent ?? '',
      ),
    );
    expect(await error.textContent()).toMatch(
      /custom task 1's tests do not compile: line 2: invalid syntax \(assert double\(3\) = 6\)/,
    );
    expect(await page.getByTestId('apply-config').isDisabled()).toBe(true);
    await page.getByTestId('task-check-0').fill('assert double(2) == 4\nassert double(3) == 6');
    await page.waitForFunction(
      () => !(document.querySelector('[data-testid=apply-config]') as HTMLButtonElement).disabled,
    );
    expect(await error.textContent()).toBe('');
    await page.close();
  });

  it('says which task of a link has tests that do not compile', async () => {
    const fragment = await encodeLink({
      ...presetConfig('default'),
      tasks: 'custom',
      customTasks: [{ prompt: 'Write double(x).', tests: 'assert double(3) = 6' }],
    });
    const page = await open('', fragment);
    await page.waitForFunction(() =>
      /do not compile/.test(document.querySelector('[data-testid=error]')?.textContent ?? ''),
    );
    expect(await page.getByTestId('error').textContent()).toMatch(
      /Custom task 1's tests do not compile: line 1: invalid syntax/,
    );
    await page.close();
  });

  it('copies a link that restores the config and the same first-step samples in a fresh context', async () => {
    const page = await open('?tokens=1', '#v=1&seed=11');
    await page.getByTestId('field-groupSize').fill('5');
    await page.getByTestId('field-temperature').fill('0.7');
    await page.getByTestId('apply-config').click();
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid=status]')
        ?.textContent?.startsWith('Configuration applied'),
    );
    await page.getByTestId('copy-link').click();
    const link = await page.getByTestId('link-text').inputValue();
    // the run opened as a version-1 link (the reference run); Copy link starts it from that preset
    expect(link).toMatch(/#v=2&p=reference&/);
    for (const part of ['g=5', 'temp=0.7', 'seed=11']) expect(link).toContain(part);
    await page.getByTestId('step').click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid=step-count]')?.textContent === '1',
    );
    const samples = async (tab: Page) =>
      tab.getByTestId('trajectory').evaluateAll((cards) => cards.map((card) => card.textContent));
    const first = await samples(page);

    const context = await session.browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const fresh = await open('', '', await context.newPage());
    await fresh.goto(link.replace(/\?[^#]*/, '?tokens=1'));
    await fresh.waitForFunction(
      () =>
        (
          window as unknown as { playground?: { state: string; fragment: string } }
        ).playground?.fragment.includes('g=5'),
      null,
      { timeout: 60_000 },
    );
    expect(await fresh.getByTestId('field-groupSize').inputValue()).toBe('5');
    expect(await fresh.getByTestId('field-temperature').inputValue()).toBe('0.7');
    await fresh.getByTestId('step').click();
    await fresh.waitForFunction(
      () => document.querySelector('[data-testid=step-count]')?.textContent === '1',
    );
    expect(await samples(fresh)).toEqual(first);
    await context.close();
    await page.close();
  });

  it('opens a bad or old link with a message naming the fields that fell back; the page stays usable', async () => {
    const page = await open('', '#v=0&g=abc&zz=1&temp=-3&s=2');
    const error = page.getByTestId('error');
    expect(await error.isVisible()).toBe(true);
    const message = await error.textContent();
    expect(message).toContain('This link is damaged or from another version');
    expect(message).toMatch(/groupSize: .*not a number/);
    expect(message).toMatch(/temperature: .*above 0/);
    expect(message).toContain('zz: unknown key');
    expect(message).toMatch(/schema version "0"/);
    await page.screenshot({ path: `${SHOTS}/6-bad-link.png` });
    // an unknown version is read as the current one: the default run's G
    expect(await page.getByTestId('field-groupSize').inputValue()).toBe('6');
    expect(await page.getByTestId('field-steps').inputValue()).toBe('2'); // the good field was kept
    await page.getByTestId('train').click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid=step-count]')?.textContent === '2',
      null,
      { timeout: 60_000 },
    );
    await page.getByTestId('dismiss-error').click();
    expect(await error.isVisible()).toBe(false);
    await page.close();
  });

  it('opens a hand-written link without v as the default run plus its fields, silently', async () => {
    const page = await open('', '#seed=7');
    const notice = page.getByTestId('link-notice');
    expect(await notice.isVisible()).toBe(false);
    expect(await page.getByTestId('error').isVisible()).toBe(false);
    expect(await page.getByTestId('field-groupSize').inputValue()).toBe('6'); // the default run's
    expect(await page.getByTestId('field-seed').inputValue()).toBe('7');
    await page.getByTestId('copy-link').click();
    expect(await page.getByTestId('link-text').inputValue()).toMatch(/#v=2&seed=7$/);
    await page.close();
  });

  it('opens #p=search, #async=1 and a lesson link without v silently, as the issue tried them', async () => {
    for (const [link, field, value] of [
      ['#p=search', 'preset-select', 'search'],
      ['#async=1', 'field-async', true],
      ['#seed=3&hide=reset', 'field-seed', '3'],
    ] as const) {
      const page = await open('', link);
      expect(await page.getByTestId('link-notice').isVisible(), link).toBe(false);
      expect(await page.getByTestId('error').isVisible(), link).toBe(false);
      const input = page.getByTestId(field);
      if (typeof value === 'boolean') expect(await input.isChecked(), link).toBe(value);
      else expect(await input.inputValue(), link).toBe(value);
      await page.close();
    }
  });

  it("shows a link's notice until another run is applied", async () => {
    const page = await open('', '#v=2&seed=7&seed=8');
    const notice = page.getByTestId('link-notice');
    expect(await notice.textContent()).toMatch(/seed is given more than once/);
    expect(await notice.isVisible()).toBe(true);
    await page.getByTestId('field-groupSize').fill('4');
    await page.getByTestId('apply-config').click();
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid=status]')
        ?.textContent?.startsWith('Configuration applied'),
    );
    expect(await notice.isVisible()).toBe(false);
    await page.close();
  });

  it('lesson links hide the chosen controls and autostart training', async () => {
    const page = await open('?delay=5', '#v=1&seed=0&s=2&autostart=1&hide=config,reset,phase');
    expect(await page.getByTestId('config').isVisible()).toBe(false);
    expect(await page.getByTestId('reset').isVisible()).toBe(false);
    expect(await page.getByTestId('phase').isVisible()).toBe(false);
    await page.waitForFunction(
      () => document.querySelector('[data-testid=step-count]')?.textContent === '2',
      null,
      { timeout: 60_000 },
    );
    await page.close();
  });

  it('puts what shows the run first in narrower windows: three columns, then two, then one, and fits a phone', async () => {
    const panels = ['model', 'config', 'pipeline', 'viewer', 'charts', 'storage'] as const;
    type Box = { x: number; y: number; width: number; height: number };
    const boxes = async (width: number) => {
      const page = await open(
        '',
        '',
        await session.browser.newPage({ viewport: { width, height: 900 } }),
      );
      const found = {} as Record<(typeof panels)[number], Box>;
      for (const panel of panels)
        found[panel] = (await page.locator(`section[data-control=${panel}]`).boundingBox())!;
      const columns = async (selector: string) =>
        new Set(
          await page
            .locator(selector)
            .evaluateAll((all) => all.map((e) => Math.round(e.getBoundingClientRect().left))),
        ).size;
      const chartColumns = await columns('.chart');
      const phaseColumns = await columns('.phase');
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      await page.close();
      return { ...found, chartColumns, phaseColumns, overflow };
    };
    const right = (b: Box) => b.x + b.width;
    // 1440: setup | the step and trajectories | the curves, one chart a row
    const wide = await boxes(1440);
    expect(wide.pipeline.x).toBeGreaterThan(right(wide.config));
    expect(wide.charts.x).toBeGreaterThan(right(wide.pipeline));
    expect(wide.charts.y).toBeLessThan(wide.viewer.y);
    expect(wide.chartColumns).toBe(1);
    // 1024: setup | the step, the curves (two charts a row), the trajectories, Save & share
    const two = await boxes(1024);
    expect(two.pipeline.x).toBeGreaterThan(right(two.config));
    expect(two.charts.x).toBe(two.pipeline.x);
    expect(two.pipeline.y).toBeLessThan(two.charts.y);
    expect(right(two.charts)).toBeLessThan(1024);
    expect(two.charts.y + two.charts.height).toBeLessThan(two.viewer.y);
    expect(two.viewer.y).toBeLessThan(two.storage.y);
    expect(two.chartColumns).toBe(2);
    // 800: one column, the run first: step, curves, trajectories, then model, configuration, Save &
    // share
    const one = await boxes(800);
    const order = ['pipeline', 'charts', 'viewer', 'model', 'config', 'storage'] as const;
    for (let i = 1; i < order.length; i++)
      expect(one[order[i]!].y).toBeGreaterThan(one[order[i - 1]!].y + one[order[i - 1]!].height);
    expect(new Set(order.map((c) => one[c].x)).size).toBe(1);
    expect(one.chartColumns).toBe(2);
    // 390, a phone: the same order, the four phases two a row, nothing wider than the screen
    const phone = await boxes(390);
    for (let i = 1; i < order.length; i++)
      expect(phone[order[i]!].y).toBeGreaterThan(phone[order[i - 1]!].y);
    expect([phone.phaseColumns, phone.chartColumns, phone.overflow]).toEqual([2, 1, 0]);
    expect([wide.overflow, two.overflow, one.overflow]).toEqual([0, 0, 0]);
  });

  it('shows load failures with a title and what to do', async () => {
    const page = await open(
      '?fail=loadModel:WebAssembly.Memory(): could not allocate memory (out of memory)',
    );
    const message = await text(page, 'error');
    expect(message).toContain('Out of memory');
    expect(message).toContain('What to do: Choose a smaller model');
    expect(await page.getByTestId('train').isDisabled()).toBe(true);
    await page.close();
  });

  it("checks a hub model's config.json first: refuses one too large, loads one that fits, and takes a folder", async () => {
    const root = mkdtempSync(join(tmpdir(), 'hub-'));
    const repo = (id: string, config: object) => {
      mkdirSync(join(root, id), { recursive: true });
      writeFileSync(join(root, id, 'config.json'), JSON.stringify(config));
    };
    repo('big/qwen-7b', {
      model_type: 'qwen2',
      vocab_size: 152064,
      hidden_size: 3584,
      intermediate_size: 18944,
      num_hidden_layers: 28,
      num_attention_heads: 28,
      num_key_value_heads: 4,
    });
    repo('HuggingFaceTB/SmolLM2-135M-Instruct', {
      model_type: 'llama',
      vocab_size: 49152,
      hidden_size: 576,
      intermediate_size: 1536,
      num_hidden_layers: 30,
      num_attention_heads: 9,
      num_key_value_heads: 3,
      tie_word_embeddings: true,
    });
    const hub = await startMockHub({ root });
    try {
      const page = await open();
      await page.locator('summary', { hasText: 'Hub address' }).click();
      await page.getByTestId('hub-url').fill(hub.url);
      await page.getByTestId('hub-url').dispatchEvent('change');
      await page.getByTestId('model-select').selectOption('__hub__');
      await page.getByTestId('hub-id').fill('big/qwen-7b');
      await page.getByTestId('load-model').click();
      await page.waitForFunction(() =>
        document
          .querySelector('[data-testid=error]')
          ?.textContent?.includes('cannot even load here'),
      );
      expect(await text(page, 'error')).toMatch(
        /big\/qwen-7b cannot even load here: \d+(\.\d)? GB.*WebAssembly.*What to do: choose a smaller model/,
      );
      const calls = () =>
        page.evaluate(
          () => (window as unknown as { fakeTrainer: { calls: string[] } }).fakeTrainer.calls,
        );
      expect((await calls()).filter((c) => c.startsWith('loadModel'))).toEqual(['loadModel:demo']); // the 7B was never sent to the worker
      expect(
        await page.evaluate(
          () =>
            (window as unknown as { playground: { config: { model: string } } }).playground.config
              .model,
        ),
      ).toBe('demo');
      expect(hub.requests).toContain('GET /big/qwen-7b/resolve/main/config.json');
      await page.screenshot({ path: `${SHOTS}/7-model-refused.png` });

      await page.getByTestId('dismiss-error').click();
      await page.getByTestId('model-select').selectOption('HuggingFaceTB/SmolLM2-135M-Instruct');
      await page.getByTestId('load-model').click();
      await page.waitForFunction(
        () =>
          document.querySelector('[data-testid=model-card-name]')?.textContent ===
          'HuggingFaceTB/SmolLM2-135M-Instruct',
      );
      expect((await calls()).at(-1)).toBe('loadModel:HuggingFaceTB/SmolLM2-135M-Instruct');
      // It loads and fits: frozen weights 16-bit on WASM, the worst-case run (every turn at its
      // token limit) within the 4 GiB heap, with the estimate's breakdown
      expect(await page.locator('.model-card').textContent()).toMatch(
        /needs up to \d+(\.\d)? GB to train at these settings \(135M parameters: \d+ MB of 16-bit weights.*the budget is 4\.0 GB/,
      );

      // A folder from disk: picking it shows its cost and loads nothing; Load model checks its
      // config.json the same way, then the files go to the worker.
      await page.getByTestId('model-select').selectOption('__folder__');
      await page
        .getByTestId('model-folder')
        .setInputFiles(join(import.meta.dirname, '..', 'fixtures', 'models', 'tiny-llama'));
      await page.getByTestId('model-cost-step').waitFor();
      expect(await text(page, 'model-cost')).toMatch(
        /If you load tiny-llama, at these settings \(an estimate\):/,
      );
      expect((await calls()).at(-1)).toBe('loadModel:HuggingFaceTB/SmolLM2-135M-Instruct');
      expect(await text(page, 'model-card-name')).toBe('HuggingFaceTB/SmolLM2-135M-Instruct');
      await page.getByTestId('load-model').click();
      await page.waitForFunction(
        () =>
          document.querySelector('[data-testid=model-card-name]')?.textContent === 'picked-model',
      );
      expect((await calls()).at(-1)).toBe('loadModel:files');
      expect(
        await page.evaluate(
          () =>
            (window as unknown as { playground: { config: { model: string } } }).playground.config
              .model,
        ),
      ).toBe('tiny-llama');
      await page.close();
    } finally {
      await hub.close();
    }
  });

  it('exports metrics CSV, trajectories JSONL and the adapter zip', async () => {
    const page = await open('', '#v=1&seed=0&s=2');
    const note = '[data-testid=export-note]';
    expect(await page.locator(note).isVisible()).toBe(false);
    // while it trains (briefly, on the fake trainer), the page says in words why the adapter waits:
    // recorded by an observer, since a poll could miss it
    await page.evaluate((selector) => {
      const element = document.querySelector(selector) as HTMLElement;
      const seen: boolean[] = [];
      (window as unknown as { noteSeen: boolean[] }).noteSeen = seen;
      new MutationObserver(() => {
        const adapter = document.querySelector('[data-testid=export-adapter]') as HTMLButtonElement;
        if (!element.hidden) seen.push(adapter.disabled);
      }).observe(element, { attributes: true });
    }, note);
    await page.getByTestId('train').click();
    await page.waitForFunction(
      () => (window as unknown as { noteSeen: boolean[] }).noteSeen.length > 0,
    );
    expect(
      await page.evaluate(() => (window as unknown as { noteSeen: boolean[] }).noteSeen[0]),
    ).toBe(true);
    await page.waitForFunction(
      () => document.querySelector('[data-testid=step-count]')?.textContent === '2',
      null,
      { timeout: 60_000 },
    );
    await page.waitForSelector(note, { state: 'hidden' });
    await page.getByTestId('export-metrics').click();
    await page.getByTestId('export-trajectories').click();
    await page.getByTestId('export-adapter').click();
    await page.getByTestId('export-trl').click();
    await page.waitForFunction(
      () => (window as unknown as { downloads: unknown[] }).downloads.length === 4,
    );
    const downloads = await page.evaluate(
      () =>
        (window as unknown as { downloads: { name: string; size: number; text: string | null }[] })
          .downloads,
    );
    expect(downloads.map((d) => d.name)).toEqual([
      'metrics-demo-step2.csv',
      'trajectories-demo-step2.jsonl',
      'adapter-demo-step2.zip',
      'trl-demo-step2.zip',
    ]);
    // the TRL project: tasks, environment, rewards, train.py, README (tested in test/cli/export_trl)
    expect(downloads[3]!.size).toBeGreaterThan(20_000);
    expect(downloads[0]!.text!.split('\n')[0]).toMatch(/^step,reward_mean,/);
    expect(downloads[1]!.text!.trim().split('\n')).toHaveLength(2 * 12);
    expect(downloads[2]!.size).toBeGreaterThan(100);

    // Import: the exported .zip goes back to the worker as its two files; anything else is
    // explained.
    const files = {
      'adapter_config.json': new TextEncoder().encode('{"r": 8}'),
      'adapter_model.safetensors': new Uint8Array(16),
    };
    await page.getByTestId('import-adapter').setInputFiles({
      name: 'adapter.zip',
      mimeType: 'application/zip',
      buffer: Buffer.from(zipFiles(files)),
    });
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=status]')?.textContent?.startsWith('Adapter imported'),
    );
    const imported = await page.evaluate(() =>
      Object.keys(
        (window as unknown as { fakeTrainer: { imported: object } }).fakeTrainer.imported,
      ),
    );
    expect(imported.sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
    await page.getByTestId('import-adapter').setInputFiles({
      name: 'adapter_config.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{}'),
    });
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid=error]')
        ?.textContent?.includes('adapter_model.safetensors'),
    );
    expect(await text(page, 'error')).toMatch(/What to do: pick both files/);
    await page.close();
  });
});
