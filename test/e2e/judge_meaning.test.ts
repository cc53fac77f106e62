// What a test means in Python, kept across the judge's crossing (issue 63), in headless Chromium:
// the cases of test/env/judge_meaning_cases.ts and test/env/test_forms_cases.ts through the real
// Web Worker (bundled by Vite) of the sandbox harness page, cross-origin isolated, as
// test/env/judge_meaning.test.ts and test/env/test_forms.test.ts run them in Node.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../../scripts/browser.ts';
import { splitTests } from '../../src/tasks/custom.ts';
import { serveSandboxHarness } from '../helpers/browser_harness.ts';
import type { JudgeCase } from '../env/judge_cases.ts';
import { describeCases, type Verdict } from '../env/judge_expect.ts';
import { MEANING_ATTACKS, MEANING_HONEST } from '../env/judge_meaning_cases.ts';
import { BENCHMARK_CASES, FORM_CASES } from '../env/test_forms_cases.ts';

/** The harness page's API (test/e2e/pages/sandbox_page.ts), the part used here. */
interface Harness {
  start(options: object): Promise<unknown>;
  judge(code: string, tests: string[], timeoutMs?: number): Promise<Verdict>;
  close(): Promise<void>;
}

describe('the judge keeps what a test means in Python (Chromium, cross-origin isolated)', () => {
  let browser: Browser;
  let server: { url: string; close: () => Promise<void> };
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    server = await serveSandboxHarness(true);
    page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${server.url}sandbox.html`);
    await page.waitForFunction(
      () => document.querySelector('[data-testid="status"]')?.textContent === 'ready',
    );
    await page.evaluate(() =>
      (window as unknown as { sandboxHarness: Harness }).sandboxHarness.start({
        size: 1,
        spares: 1,
      }),
    );
  }, 240_000);

  afterAll(async () => {
    await page
      ?.evaluate(() => (window as unknown as { sandboxHarness: Harness }).sandboxHarness.close())
      .catch(() => undefined);
    await page?.close();
    await server?.close();
    await browser?.close();
  });

  /** Judges a case through the page's pool (the page splits the tests for the judge). */
  const judge = (c: JudgeCase) =>
    page.evaluate(
      ([code, tests]) =>
        (window as unknown as { sandboxHarness: Harness }).sandboxHarness.judge(
          code as string,
          tests as string[],
        ),
      [c.code, splitTests(c.tests)] as const,
    );

  describeCases(
    [
      ['attacks', MEANING_ATTACKS],
      ['honest programs', MEANING_HONEST],
      ['test forms', FORM_CASES],
      ['benchmark', BENCHMARK_CASES],
    ],
    judge,
  );

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
