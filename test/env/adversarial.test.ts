// The adversarial suite in Node (the browser runs the same cases in test/e2e/sandbox.test.ts): each
// hostile program yields its expected observation, then a normal program runs correctly in the
// same sandbox slot (the same worker, or its replacement after a termination).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Environment } from '../../src/env/environment.ts';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import type { SandboxPool } from '../../src/env/pool.ts';
import {
  ADVERSARIAL_CASES,
  NORMAL_PROGRAM,
  RUNAWAY_BOUND_MS,
  RUNAWAY_TIMEOUT_MS,
} from './adversarial_cases.ts';
import { expectObservation } from '../helpers/expect_observation.ts';

describe('adversarial programs (Node worker_threads)', () => {
  let pool: SandboxPool;
  let runaways: Environment;
  let normal: Environment;

  beforeAll(async () => {
    // One sandbox executing, so "the same sandbox" is literal; two spares absorb the terminations.
    pool = await createNodeSandboxPool({ size: 1, spares: 2 });
    runaways = new Environment(pool, { timeoutMs: RUNAWAY_TIMEOUT_MS });
    normal = new Environment(pool);
  });

  afterAll(async () => {
    await pool?.close();
  });

  it('has at least 25 cases', () => {
    expect(ADVERSARIAL_CASES.length).toBeGreaterThanOrEqual(25);
  });

  for (const testCase of ADVERSARIAL_CASES) {
    it(testCase.name, async () => {
      const environment = testCase.done ? runaways : normal;
      await environment.reset();
      const start = performance.now();
      const result = await environment.step('execute_code', { code: testCase.code });
      const elapsed = performance.now() - start;
      expectObservation(result.observation, testCase.observation);
      expect(result.done).toBe(testCase.done ?? false);
      if (testCase.done) expect(elapsed).toBeLessThan(RUNAWAY_BOUND_MS);

      const then = testCase.then ?? NORMAL_PROGRAM;
      await normal.reset();
      const next = await normal.step('execute_code', { code: then.code });
      expectObservation(next.observation, then.observation);
      expect(next.done).toBe(false);
    });
  }

  it('counted every runaway as a timeout and replaced what it terminated', () => {
    const metrics = pool.metrics();
    const runawayCount = ADVERSARIAL_CASES.filter((c) => c.done).length;
    expect(metrics.timeouts).toBe(runawayCount);
    expect(metrics.interrupts + metrics.terminations - metrics.crashes).toBe(runawayCount);
    // sum(range(10**11)), the interrupt-swallowing loop and the ignored SIGINT cannot be interrupted.
    expect(metrics.terminations).toBeGreaterThanOrEqual(3);
    expect(metrics.respawns).toBeGreaterThanOrEqual(metrics.terminations);
    // the workers that took over were restored from the first one's snapshot: the cases after a
    // termination ran on restored interpreters
    expect(metrics.medianRestoreStartMs).not.toBeNull();
  });
});
