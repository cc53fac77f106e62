// Lesson links in headless Chromium, on the fake trainer (test/ui/harness): `hide=` keeps every
// named control hidden in every state (idle, training, paused, finished), Copy link carries the
// form's unapplied edits and names those it cannot carry before copying, and a link with a mistake
// (a bad autostart, an unknown hide name, a damaged field) says what was wrong and waits for Train.
// Screenshots (1920×1080) go to /tmp/ui-shots/lesson-*.png.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { HIDE_NAMES } from '../../src/run/link.ts';
import { harnessSession } from '../helpers/browser_harness.ts';

const SHOTS = '/tmp/ui-shots';
const session = harnessSession(SHOTS);

type Playground = {
  state: string;
  finishedSteps: number;
  train: () => Promise<void>;
  pause: () => void;
};

/**
 * Opens the harness (query: fake trainer options; hash: run link) at 1920×1080 and waits until it
 * has started (as page_ui.test.ts's open, without waiting for idle: an autostarted run trains).
 */
async function open(query: string, hash: string): Promise<Page> {
  const page = await session.browser.newPage({ viewport: { width: 1920, height: 1080 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${session.url}${query}${hash}`);
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

const state = (page: Page) =>
  page.evaluate(() => (window as unknown as { playground: Playground }).playground.state);
const waitState = (page: Page, wanted: string) =>
  page.waitForFunction(
    (s) => (window as unknown as { playground: Playground }).playground.state === s,
    wanted,
    { timeout: 60_000 },
  );

/** Which of `names` has a visible element (by data-control). */
async function visible(page: Page, names: readonly string[]): Promise<string[]> {
  const shown: string[] = [];
  for (const name of names)
    for (const element of await page.locator(`[data-control="${name}"]`).all())
      if (await element.isVisible()) shown.push(name);
  return shown;
}

describe('lesson links', () => {
  it('#hide=train,pause,step keeps Train, Pause and Step hidden while idle, training, paused and finished', async () => {
    const page = await open('?delay=400', '#seed=1&s=2&hide=train,pause,step');
    const hidden = ['train', 'pause', 'step'] as const;
    expect(await page.locator('.lesson-badge').textContent()).toBe('Lesson');
    expect(await state(page)).toBe('idle');
    expect(await visible(page, hidden)).toEqual([]);
    expect(await visible(page, ['reset', 'phase', 'config'])).toEqual(['reset', 'phase', 'config']);
    await page.screenshot({ path: `${SHOTS}/lesson-idle.png` });

    // the lesson's own script (or a teacher's console) trains: the controls stay hidden
    await page.evaluate(
      () => void (window as unknown as { playground: Playground }).playground.train(),
    );
    await waitState(page, 'training');
    expect(await visible(page, hidden)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/lesson-training.png` });

    await page.evaluate(() => (window as unknown as { playground: Playground }).playground.pause());
    await waitState(page, 'idle');
    expect(await visible(page, hidden)).toEqual([]);

    await page.evaluate(
      () => void (window as unknown as { playground: Playground }).playground.train(),
    );
    await page.waitForFunction(
      () => {
        const p = (window as unknown as { playground: Playground }).playground;
        return p.state === 'idle' && p.finishedSteps === 2;
      },
      null,
      { timeout: 60_000 },
    );
    expect(await page.getByTestId('status').textContent()).toMatch(/Finished 2 steps/);
    expect(await visible(page, hidden)).toEqual([]);
    await page.close();
  });

  it('every name hide= accepts names a control, and each stays hidden in every state', async () => {
    // docs/page.md's table, plus pipeline
    const names = [
      ...['train', 'pause', 'step', 'phase', 'reset', 'copy-link', 'model', 'config'],
      ...['charts', 'viewer', 'storage', 'lessons', 'compare', 'pipeline'],
    ];
    const page = await open('?delay=300', `#seed=1&s=1&autostart=1&hide=${names.join(',')}`);
    for (const name of names)
      expect(await page.locator(`[data-control="${name}"]`).count(), name).toBeGreaterThan(0);
    await waitState(page, 'training');
    expect(await visible(page, names)).toEqual([]);
    await page.waitForFunction(
      () => (window as unknown as { playground: Playground }).playground.finishedSteps === 1,
      null,
      { timeout: 60_000 },
    );
    await waitState(page, 'idle');
    expect(await visible(page, names)).toEqual([]);
    expect(await page.getByTestId('error').isVisible()).toBe(false);
    await page.close();
    expect([...names].sort()).toEqual([...HIDE_NAMES].sort());
  });

  it('Copy link carries an unapplied edit, and names an edit it cannot carry before copying', async () => {
    const page = await open('', '#v=2&seed=1');
    await page.getByTestId('field-groupSize').fill('4');
    await page.getByTestId('copy-link').click();
    const link = await page.getByTestId('link-text').inputValue();
    expect(link).toMatch(/#v=2&g=4&seed=1$/);
    expect(await page.getByTestId('link-carried').textContent()).toMatch(
      /unapplied edits: groupSize 4 \(applied: 6\)/,
    );
    expect(await page.getByTestId('link-left-out').count()).toBe(0);
    expect(await page.evaluate(() => location.hash)).toBe('#v=2&g=4&seed=1');
    expect(await page.getByTestId('step-count').textContent()).toBe('0');
    // the page still runs the applied G until Apply
    expect(
      await page.evaluate(
        () =>
          (window as unknown as { playground: { config: { groupSize: number } } }).playground.config
            .groupSize,
      ),
    ).toBe(6);

    // an edit the form refuses cannot be carried: it is named, and nothing is copied until asked
    await page.getByTestId('field-temperature').fill('abc');
    await page.getByTestId('copy-link').click();
    const box = page.getByTestId('link-box');
    expect(await box.textContent()).toMatch(/Not copied yet/);
    const leftOut = await page.getByTestId('link-left-out').textContent();
    expect(leftOut).toMatch(/leaves out this edit and keeps the applied value/);
    expect(leftOut).toMatch(/temperature \(applied: 0\.\d+\): .*abc/);
    expect(await page.getByTestId('link-text').inputValue()).toMatch(/#v=2&g=4&seed=1$/);
    await page.screenshot({ path: `${SHOTS}/lesson-copy-left-out.png` });
    await page.evaluate(() => history.replaceState(null, '', '#before'));
    await page.getByTestId('copy-anyway').click();
    expect(await page.evaluate(() => location.hash)).toBe('#v=2&g=4&seed=1');
    expect(await box.textContent()).not.toMatch(/Not copied yet/);
    await page.close();
  });

  it.each([
    ['#seed=1&s=1&autostart=yes&hide=pause', /autostart: "yes" is not 1 or 0\. Fix: autostart=1/],
    [
      '#seed=1&s=1&autostart=1&hide=train,paws',
      /hide: unknown name "paws" \(only train hidden\)\. Fix: hide= takes a comma-separated list of train, pause, step/,
    ],
    ['#seed=1&s=1&g=abc&autostart=1', /groupSize: "abc" is not a number/],
  ] as const)(
    'a link with a mistake (%s) names it: key, bad value, what is accepted; and waits for Train',
    async (hash, pattern) => {
      const page = await open('', hash);
      // it waits: no step in a while, and Train is there to press
      await page.waitForTimeout(1500);
      expect(await state(page), hash).toBe('idle');
      expect(await page.getByTestId('step-count').textContent(), hash).toBe('0');
      expect(await page.getByTestId('train').isVisible(), hash).toBe(true);
      // and says what was wrong
      const error = page.getByTestId('error');
      expect(await error.isVisible(), hash).toBe(true);
      const message = await error.textContent();
      expect(message, hash).toMatch(pattern);
      expect(message, hash).toMatch(/Training did not start by itself/);
      if (hash.includes('paws')) await page.screenshot({ path: `${SHOTS}/lesson-bad-link.png` });
      await page.getByTestId('train').click();
      await page.waitForFunction(
        () => document.querySelector('[data-testid=step-count]')?.textContent === '1',
        null,
        { timeout: 60_000 },
      );
      await page.close();
    },
  );
});
