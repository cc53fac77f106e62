// The sandbox in headless Chromium: the real Web Worker (bundled by Vite) running the adversarial
// suite, once cross-origin isolated (interrupt, then terminate) and once without isolation, where
// terminate is the only way to stop a runaway and must still be correct.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { SandboxMetrics, SandboxReady } from '../../src/env/types.ts';
import {
  ADVERSARIAL_CASES,
  NORMAL_PROGRAM,
  RUNAWAY_BOUND_MS,
  RUNAWAY_TIMEOUT_MS,
} from '../env/adversarial_cases.ts';
import {
  ADD_TESTS,
  FORGE_TESTS,
  FORGES,
  HONEST_CASES,
  HONEST_PROGRAMS,
  REWARD_HACKS,
} from '../env/reward_hacks.ts';
import { splitTests } from '../../src/tasks/custom.ts';
import { CROSS_EPISODE_CASES, CROSS_TESTS } from '../env/cross_episode.ts';
import { expectObservation } from '../helpers/expect_observation.ts';
import { launchBrowser } from '../../scripts/browser.ts';
import { serveSandboxHarness } from '../helpers/browser_harness.ts';

const NETWORK_GLOBALS = [
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'importScripts',
  'indexedDB',
  'caches',
];

interface StepReply {
  observation: string;
  done: boolean;
  elapsedMs: number;
  exec: { durationMs: number } | null;
}
interface JudgeReply {
  passed: number;
  total: number;
  tampered: string[];
  timedOut: boolean;
  details: (string | null)[];
}
interface Harness {
  isolated: boolean;
  start(options: object): Promise<{ ready: SandboxReady; metrics: SandboxMetrics }>;
  step(code: string, timeoutMs?: number): Promise<StepReply>;
  judge(code: string, tests: string[], timeoutMs?: number): Promise<JudgeReply>;
  metrics(): SandboxMetrics;
  close(): Promise<void>;
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
});

for (const isolate of [true, false]) {
  describe(`sandbox in Chromium, ${isolate ? 'cross-origin isolated' : 'not isolated (terminate only)'}`, () => {
    let server: { url: string; close: () => Promise<void> };
    let page: Page;
    const pageErrors: string[] = [];
    let ready: SandboxReady;

    const step = (code: string, timeoutMs?: number) =>
      page.evaluate(
        ([c, t]) =>
          (window as unknown as { sandboxHarness: Harness }).sandboxHarness.step(
            c as string,
            t as number | undefined,
          ),
        [code, timeoutMs] as const,
      );

    beforeAll(async () => {
      server = await serveSandboxHarness(isolate);
      page = await browser.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(`${server.url}sandbox.html`);
      await page.waitForFunction(
        () => document.querySelector('[data-testid="status"]')?.textContent === 'ready',
      );
      ready = (
        await page.evaluate(() =>
          (window as unknown as { sandboxHarness: Harness }).sandboxHarness.start({
            size: 1,
            spares: 2,
            audit: true,
          }),
        )
      ).ready;
    }, 180_000);

    afterAll(async () => {
      await page
        ?.evaluate(() => (window as unknown as { sandboxHarness: Harness }).sandboxHarness.close())
        .catch(() => undefined);
      await page?.close();
      await server?.close();
    });

    it(`is ${isolate ? '' : 'not '}isolated and strips network and storage from the worker`, async () => {
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(isolate);
      expect(
        await page.evaluate(
          () =>
            (window as unknown as { sandboxHarness: Harness }).sandboxHarness.metrics()
              .interruptible,
        ),
      ).toBe(isolate);
      for (const name of NETWORK_GLOBALS) expect(ready.removedGlobals).toContain(name);
      expect(ready.audit).toEqual([]);
      expect(ready.auditVisited).toBeGreaterThan(20_000);
      expect(ready.fromSnapshot).toBe(true); // the last spare: restored from the first worker's snapshot
    });

    for (const testCase of ADVERSARIAL_CASES) {
      it(testCase.name, async () => {
        const result = await step(testCase.code, testCase.done ? RUNAWAY_TIMEOUT_MS : undefined);
        expectObservation(result.observation, testCase.observation);
        expect(result.done).toBe(testCase.done ?? false);
        // The sandbox's own time is what the deadline bounds. The page's wall time may also hold a
        // wait for a worker the previous case's runaway had terminated (a Pyodide start, slower
        // when CI runs other files beside this one), so it gets a looser bound.
        if (testCase.done) {
          expect(result.exec?.durationMs).toBeLessThan(RUNAWAY_BOUND_MS);
          expect(result.elapsedMs).toBeLessThan(RUNAWAY_BOUND_MS + 10_000);
        }
        const then = testCase.then ?? NORMAL_PROGRAM;
        const next = await step(then.code);
        expectObservation(next.observation, then.observation);
      });
    }

    /** The page's judge (the sandbox harness page's pool). */
    const judge = (code: string, tests: string[]) =>
      page.evaluate(
        ([c, t]) =>
          (window as unknown as { sandboxHarness: Harness }).sandboxHarness.judge(
            c as string,
            t as string[],
          ),
        [code, tests] as const,
      );

    // The reward hacks of test/env/reward_hacks.ts through the page's judge: each scores nothing
    // and is flagged, and the honest programs are not (cross-origin isolated only, to keep it
    // short).
    if (isolate) {
      for (const hack of REWARD_HACKS) {
        it(`judge: ${hack.name} is flagged`, async () => {
          const judged = await judge(hack.code, ADD_TESTS);
          expect(judged.tampered.join(' | ')).toContain(hack.reason);
          expect(judged.timedOut).toBe(false);
        }, 30_000);
      }
      // The forges of the verdict: the tests run in the worker's second, trusted interpreter.
      for (const forge of FORGES) {
        it(`judge: forge: ${forge.name} scores 0 of 3`, async () => {
          const judged = await judge(forge.code, FORGE_TESTS);
          expect({ passed: judged.passed, total: judged.total }).toEqual({ passed: 0, total: 3 });
        }, 30_000);
      }
      for (const program of HONEST_PROGRAMS) {
        it(`judge: honest ${program.name} is not flagged`, async () => {
          const judged = await judge(program.code, ADD_TESTS);
          expect(judged.tampered).toEqual([]);
          expect(judged.passed === judged.total ? 1 : 0).toBe(program.score);
        }, 30_000);
      }
      for (const honest of HONEST_CASES) {
        it(`judge: honest ${honest.name} passes ${honest.passed} of ${honest.total}, not flagged`, async () => {
          const judged = await judge(honest.code, splitTests(honest.tests));
          expect(judged.tampered).toEqual([]);
          expect({ passed: judged.passed, total: judged.total }).toEqual({
            passed: honest.passed,
            total: honest.total,
          });
        }, 30_000);
      }
    }

    // Every run in a clean interpreter (test/env/isolation.test.ts): a saboteur, then on the same
    // worker an honest correct program scores 1 and a wrong one 0, unflagged.
    if (isolate) {
      const counts = () =>
        page.evaluate(() => {
          const m = (window as unknown as { sandboxHarness: Harness }).sandboxHarness.metrics();
          return [m.respawns, m.recycles];
        });
      for (const c of CROSS_EPISODE_CASES) {
        it(`cross-episode: ${c.name}: the next correct program scores 1, a wrong one 0`, async () => {
          const before = await counts();
          await step(c.saboteur);
          await judge(c.saboteur, CROSS_TESTS);
          const right = await judge(c.correct, CROSS_TESTS);
          const off = await judge(c.wrong, CROSS_TESTS);
          expect(right).toMatchObject({ passed: 4, total: 4, tampered: [] });
          expect(off).toMatchObject({ passed: 0, total: 4, tampered: [] });
          expect(await counts()).toEqual(before);
        }, 30_000);
      }
    }

    it('counted the runaways and raised no page errors', async () => {
      const metrics = await page.evaluate(() =>
        (window as unknown as { sandboxHarness: Harness }).sandboxHarness.metrics(),
      );
      expect(metrics.timeouts).toBe(ADVERSARIAL_CASES.filter((c) => c.done).length);
      if (!isolate) expect(metrics.interrupts).toBe(0);
      else expect(metrics.interrupts).toBeGreaterThanOrEqual(3);
      expect(metrics.medianRestoreStartMs).not.toBeNull(); // spares and replacements came from the snapshot
      expect(pageErrors).toEqual([]);
    });
  });
}

describe('sandbox in Chromium: the snapshot kept between visits (Cache API)', () => {
  interface KeptHarness extends Harness {
    startKept(
      options: object,
    ): Promise<{ given: number | null; ready: SandboxReady; metrics: SandboxMetrics }>;
    kept(): Promise<{ key: string; bytes: number }[]>;
    spoilKept(): Promise<void>;
  }
  const harness = (page: Page) => ({
    startKept: (options: object) =>
      page.evaluate(
        (o) => (window as unknown as { sandboxHarness: KeptHarness }).sandboxHarness.startKept(o),
        options,
      ),
    close: () =>
      page.evaluate(() =>
        (window as unknown as { sandboxHarness: KeptHarness }).sandboxHarness.close(),
      ),
    spoil: () =>
      page.evaluate(() =>
        (window as unknown as { sandboxHarness: KeptHarness }).sandboxHarness.spoilKept(),
      ),
    /**
     * Waits until the cache holds one snapshot of a whole heap (saving runs after the pool is
     * ready).
     */
    saved: async () => {
      let kept: { key: string; bytes: number }[] = [];
      for (
        const deadline = Date.now() + 60_000;
        Date.now() < deadline;
        await new Promise((r) => setTimeout(r, 200))
      ) {
        kept = await page.evaluate(() =>
          (window as unknown as { sandboxHarness: KeptHarness }).sandboxHarness.kept(),
        );
        if (kept.length === 1 && kept[0]!.bytes > 8 * 2 ** 20) return;
      }
      throw new Error(`no whole snapshot was kept within 60 s: ${JSON.stringify(kept)}`);
    },
  });

  it("keeps the first pool's snapshot, starts the next pool from it (locked down as a cold one), and replaces one that is spoiled", async () => {
    const server = await serveSandboxHarness(true);
    const context = await browser.newContext(); // its own, empty, storage
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${server.url}sandbox.html`);
      await page.waitForFunction(
        () => document.querySelector('[data-testid="status"]')?.textContent === 'ready',
      );
      const sandbox = harness(page);

      const first = await sandbox.startKept({ size: 1, spares: 0 });
      expect(first.given).toBeNull();
      expect(first.metrics.medianColdStartMs).not.toBeNull();
      await sandbox.saved();
      await sandbox.close();

      const second = await sandbox.startKept({ size: 1, spares: 1, audit: true });
      expect(second.given).toBeGreaterThan(8 * 2 ** 20);
      expect(second.metrics.medianColdStartMs).toBeNull(); // every worker restored
      expect(second.metrics.medianRestoreStartMs).not.toBeNull();
      expect(second.ready.fromSnapshot).toBe(true);
      expect(second.ready.audit).toEqual([]);
      expect(second.ready.auditVisited).toBeGreaterThan(20_000);
      const reply = await page.evaluate(() =>
        (window as unknown as { sandboxHarness: KeptHarness }).sandboxHarness.step(
          'print(sum(range(10)))',
        ),
      );
      expect(reply.observation).toBe('45\n');
      await sandbox.close();

      await sandbox.spoil();
      const third = await sandbox.startKept({ size: 1, spares: 0 });
      expect(third.given).toBe(1024);
      expect(third.metrics.medianColdStartMs).not.toBeNull(); // the spoiled one failed, a cold start made a new one
      await sandbox.saved();
      await sandbox.close();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      await server.close();
    }
  }, 240_000);
});
