// What a class reads on the page tells the truth (issue 64, "the classroom"), in headless Chromium
// on the fake trainer (test/ui/harness): Revert while the only edit is refused, errors that go
// once what caused them is fixed (each with its own Dismiss), a custom task's message once, the
// Update card after a first step where every group was uniform, a passed card whose FINAL ANSWER
// was not scored, and a lesson's status line that names no hidden control. The pure parts:
// test/ui/classroom.test.ts. Screenshots go to /tmp/ui-shots/classroom-*.png (1920×1080 and
// 390×844).
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { encodeLink } from '../../src/run/link.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { harnessSession } from '../helpers/browser_harness.ts';
import { startMockHub } from '../helpers/mock_hub.ts';

const SHOTS = '/tmp/ui-shots';
const session = harnessSession(SHOTS);

const DESKTOP = { width: 1920, height: 1080 };
const PHONE = { width: 390, height: 844 };

/** Opens the harness (query: fake trainer options; hash: run link) and waits until it is idle. */
async function open(query: string, hash: string, viewport = DESKTOP): Promise<Page> {
  const page = await session.browser.newPage({ viewport });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${session.url}${query}${hash}`);
  await page.waitForFunction(
    () => {
      const w = window as unknown as { playground?: { state: string } };
      return w.playground !== undefined && w.playground.state === 'idle';
    },
    null,
    { timeout: 60_000 },
  );
  expect(errors).toEqual([]);
  return page;
}

/** Presses Step and waits for the step to finish. */
async function step(page: Page, count: number): Promise<void> {
  await page.getByTestId('step').click();
  await page.waitForFunction(
    (n) =>
      document.querySelector('[data-testid=step-count]')?.textContent === String(n) &&
      (window as unknown as { playground: { state: string } }).playground.state === 'idle',
    count,
    { timeout: 60_000 },
  );
}

describe('the classroom', () => {
  it('keeps Revert on while the only edit is a refused input ("abc"), and Revert puts it back', async () => {
    const page = await open('', '#seed=1');
    // by its name, as a teacher finds it (its test id is revert-config)
    const revert = page.getByRole('button', { name: 'Revert' });
    const temperature = page.getByTestId('field-temperature');
    const applied = await temperature.inputValue();
    expect(await revert.isDisabled()).toBe(true);
    await temperature.fill('abc');
    expect(await page.getByTestId('field-error-temperature').textContent()).toMatch(/temperature/);
    expect(await page.getByTestId('apply-config').isDisabled()).toBe(true);
    expect(await revert.isEnabled()).toBe(true);
    await revert.click();
    expect(await temperature.inputValue()).toBe(applied);
    expect(await page.getByTestId('field-error-temperature').textContent()).toBe('');
    expect(await revert.isDisabled()).toBe(true);
    await page.close();
  });

  it("shows a custom task's message once, under the editor", async () => {
    const page = await open('', '#seed=1');
    await page.getByTestId('field-tasks').selectOption('custom');
    await page.getByTestId('add-task').click();
    await page.getByTestId('task-prompt-0').fill('Write add(a, b).');
    await page.locator('input[name=mode-0]').nth(1).check(); // assert tests
    await page.getByTestId('task-check-0').fill('assert 1 == 1');
    const slot = page.getByTestId('field-error-customTasks');
    const message = (await slot.textContent()) ?? '';
    expect(message).toMatch(/custom task 1: a test names nothing the program defines/);
    expect(message.split('names nothing').length - 1).toBe(1);
    // nowhere else on the page either
    const everywhere = (await page.locator('body').textContent()) ?? '';
    expect(everywhere.split('names nothing').length - 1).toBe(1);
    expect(await page.getByTestId('apply-config').isDisabled()).toBe(true);
    await page.close();
  });

  it('replaces a failed load by the next one, gives each error its Dismiss, and clears them once a model loads', async () => {
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
      // a damaged link: its error is the first block
      const page = await open('', '#seed=1&g=abc');
      const entries = page.locator('[data-testid=error] .error-entry');
      expect(await entries.count()).toBe(1);
      await page.locator('summary', { hasText: 'Hub address' }).click();
      await page.getByTestId('hub-url').fill(hub.url);
      await page.getByTestId('hub-url').dispatchEvent('change');
      const load = async (id: string) => {
        await page.getByTestId('model-select').selectOption('__hub__');
        await page.getByTestId('hub-id').fill(id);
        await page.getByTestId('load-model').click();
        await page.waitForFunction(
          (wanted) =>
            (document.querySelector('[data-testid=error]')?.textContent ?? '').includes(wanted),
          id,
          { timeout: 30_000 },
        );
      };
      await load('big/qwen-7b'); // refused: too large
      expect(await entries.count()).toBe(2);
      await load('nobody/missing-model'); // not on the hub: replaces the refusal
      expect(await entries.count()).toBe(2);
      const shown = (await page.getByTestId('error').textContent()) ?? '';
      expect(shown).not.toContain('big/qwen-7b');
      expect(shown).toContain('nobody/missing-model');
      // each block has its Dismiss; the area's button dismisses all
      expect(await page.getByTestId('dismiss-error-entry').count()).toBe(2);
      expect(await page.getByTestId('dismiss-error').textContent()).toBe('Dismiss all');
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: `${SHOTS}/classroom-errors.png` });

      // a model that loads: the failed loads' error goes, and the link's (another run now)
      await page.getByTestId('model-select').selectOption('HuggingFaceTB/SmolLM2-135M-Instruct');
      await page.getByTestId('load-model').click();
      await page.waitForFunction(
        () =>
          document.querySelector('[data-testid=model-card-name]')?.textContent ===
          'HuggingFaceTB/SmolLM2-135M-Instruct',
        null,
        { timeout: 30_000 },
      );
      await page.waitForFunction(
        () => document.querySelectorAll('[data-testid=error] .error-entry').length === 0,
      );
      expect(await page.getByTestId('error').isVisible()).toBe(false);

      // one error alone: its own Dismiss is the area's
      await load('big/qwen-7b');
      expect(await entries.count()).toBe(1);
      expect(await page.getByTestId('dismiss-error-entry').count()).toBe(0);
      expect(await page.getByTestId('dismiss-error').textContent()).toBe('Dismiss');
      await page.close();
    } finally {
      await hub.close();
    }
  });

  it('says plainly that a first step whose every group was uniform changed nothing (seed 1)', async () => {
    for (const [viewport, name] of [
      [DESKTOP, 'desktop'],
      [PHONE, 'phone'],
    ] as const) {
      const page = await open('?uniform=1', '#seed=1&s=3', viewport);
      await step(page, 1);
      const data = (await page.getByTestId('phase-data').textContent()) ?? '';
      expect(data).toMatch(/Update of step 1.*grad norm 0/);
      expect(data).not.toMatch(/Green samples/);
      expect(data).toContain(
        'No group had different rewards (in each of the 3 groups every sample scored the same), so every advantage is 0 and this update changed nothing: GRPO learns only from groups whose samples differ.',
      );
      const summary = page.getByTestId('update-summary');
      await summary.scrollIntoViewIfNeeded();
      await page
        .locator('[data-control=pipeline]')
        .screenshot({ path: `${SHOTS}/classroom-uniform-update-${name}.png` });
      await page.screenshot({ path: `${SHOTS}/classroom-uniform-${name}.png` });
      // the next step has signal: the green and red sentence is back
      await step(page, 2);
      expect(await summary.textContent()).toMatch(/^Green samples had a positive advantage/);
      await page.close();
    }
  });

  it('ends a passed card whose tests decided the pass in a plain, labelled final answer, not a bold result', async () => {
    const fragment = await encodeLink({
      ...presetConfig('default'),
      seed: 1,
      tasks: 'custom',
      customTasks: [{ prompt: 'Write double(x).', tests: 'assert double(2) == 4' }],
    });
    for (const [viewport, name] of [
      [DESKTOP, 'desktop'],
      [PHONE, 'phone'],
    ] as const) {
      const page = await open('', fragment, viewport);
      await step(page, 1);
      const passed = page.locator('[data-testid=trajectory].passed');
      expect(await passed.count()).toBeGreaterThan(0);
      const card = passed.first();
      const answer = card.locator('.answer'); // test id: sample-answer
      expect(await answer.textContent()).toMatch(/^final answer \(not scored\): /);
      expect(await answer.textContent()).not.toMatch(/FINAL ANSWER/);
      const weight = await answer.evaluate((el) => Number(getComputedStyle(el).fontWeight));
      expect(weight).toBeLessThan(600);
      expect(await card.getByTestId('sample-scored').textContent()).toMatch(/· tests 1 × weight 1/);
      await card.scrollIntoViewIfNeeded();
      await card.screenshot({ path: `${SHOTS}/classroom-passed-card-${name}.png` });
      await page.close();
    }
  });

  it('names no hidden control in the status line or the step card (#hide=train,pause,step)', async () => {
    const page = await open('', '#seed=1&s=2&hide=train,pause,step');
    const status = (await page.getByTestId('status').textContent()) ?? '';
    expect(status).toBe('Ready. Press Next phase for one phase at a time.');
    expect(status).not.toMatch(/\bTrain\b|\bStep\b/);
    const hint = (await page.getByTestId('phase-data').textContent()) ?? '';
    expect(hint).not.toMatch(/\bTrain\b|\bStep\b/);
    expect(await page.getByTestId('phase').isVisible()).toBe(true);
    await page.screenshot({ path: `${SHOTS}/classroom-lesson-status.png` });
    await page.close();
    // without hide=, every way is named
    const plain = await open('', '#seed=1&s=2');
    expect(await plain.getByTestId('status').textContent()).toBe(
      'Ready. Press Train to run every step, Step for one step or Next phase for one phase at a time.',
    );
    await plain.close();
  });
});
