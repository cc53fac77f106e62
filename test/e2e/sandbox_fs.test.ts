// The file system put back after every run, in headless Chromium (the real Web Worker bundled by
// Vite; test/env/fs_restore.test.ts is the same check in Node): on one worker, each saboteur of
// test/env/fs_saboteurs.ts runs three times in a row; then a stat of the whole tree must match the
// worker's first program's exactly, modules no run has loaded must import, and the worker must be
// the same one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { SandboxMetrics } from '../../src/env/types.ts';
import {
  FS_SABOTEURS,
  IMPORTER,
  LISTING,
  OWN_EXTREME_TIMES,
  parseListing,
  SPACE,
} from '../env/fs_saboteurs.ts';
import { launchBrowser } from '../../scripts/browser.ts';
import { serveSandboxHarness } from '../helpers/browser_harness.ts';

interface Harness {
  start(options: object): Promise<unknown>;
  step(code: string): Promise<{ observation: string; done: boolean }>;
  metrics(): SandboxMetrics;
  close(): Promise<void>;
}

const RUNS = 3;

let browser: Browser;
let server: { url: string; close: () => Promise<void> };
let page: Page;
const pageErrors: string[] = [];
let fresh: ReturnType<typeof parseListing>;

const step = async (code: string) =>
  (
    await page.evaluate(
      (c) => (window as unknown as { sandboxHarness: Harness }).sandboxHarness.step(c),
      code,
    )
  ).observation;
const sameWorker = () =>
  page.evaluate(() => {
    const m = (window as unknown as { sandboxHarness: Harness }).sandboxHarness.metrics();
    return [m.respawns, m.recycles, m.terminations, m.crashes];
  });

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
      spares: 0,
      recycleEvery: 0,
      maxOutputChars: 200_000,
    }),
  );
  fresh = parseListing(await step(LISTING));
  const tree = (fresh.listing as { tree: Record<string, unknown> }).tree;
  for (const path of ['/proc/self/fd', '/dev/tty', '/lib/python314.zip', '/tmp', '/home/pyodide'])
    expect(tree).toHaveProperty([path]);
}, 180_000);

afterAll(async () => {
  await page
    ?.evaluate(() => (window as unknown as { sandboxHarness: Harness }).sandboxHarness.close())
    .catch(() => undefined);
  await page?.close();
  await server?.close();
  await browser?.close();
});

describe('sandbox in Chromium: every run starts from the file system the lockdown left', () => {
  for (const saboteur of FS_SABOTEURS) {
    it(`${saboteur.name}: the next program sees a fresh worker's file system`, async () => {
      const before = await sameWorker();
      for (let i = 0; i < RUNS; i++) {
        const observation = await step(saboteur.code);
        if (saboteur.output !== undefined) expect(observation).toBe(saboteur.output);
      }
      expect(parseListing(await step(LISTING))).toEqual(fresh);
      expect(await step(IMPORTER.code)).toBe(IMPORTER.output);
      expect(await sameWorker()).toEqual(before);
    }, 60_000);
  }

  it('space does not grow: 40 MB written under /proc in three episodes in a row is 40 MB each time', async () => {
    const before = await sameWorker();
    for (let i = 0; i < RUNS; i++) expect(await step(SPACE)).toBe('40\n');
    expect(parseListing(await step(LISTING))).toEqual(fresh);
    expect(await sameWorker()).toEqual(before);
  }, 60_000);

  it("a program's own extreme times are refused, and its stats and imports go on", async () => {
    const before = await sameWorker();
    expect(await step(OWN_EXTREME_TIMES.code)).toBe(OWN_EXTREME_TIMES.output);
    expect(await step(IMPORTER.code)).toBe(IMPORTER.output);
    expect(parseListing(await step(LISTING))).toEqual(fresh);
    expect(await sameWorker()).toEqual(before);
  }, 60_000);

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
