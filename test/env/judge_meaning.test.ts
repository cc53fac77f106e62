// What a test means in Python, kept across the judge's crossing (issue 63), in Node worker_threads:
// the cases of test/env/judge_meaning_cases.ts (the browser runs them in
// test/e2e/judge_meaning.test.ts; scripts/check-judge-cases.ts checks them against CPython).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import type { SandboxPool } from '../../src/env/pool.ts';
import { splitTests } from '../../src/tasks/custom.ts';
import { hiddenTests } from '../../src/tasks/tests_harness.ts';
import type { JudgeCase } from './judge_cases.ts';
import { describeCases, verdictOf } from './judge_expect.ts';
import { MEANING_ATTACKS, MEANING_CASES, MEANING_HONEST } from './judge_meaning_cases.ts';

describe('the judge keeps what a test means in Python (Node worker_threads)', () => {
  let pool: SandboxPool;

  beforeAll(async () => {
    pool = await createNodeSandboxPool({ size: 1, spares: 1 });
  }, 120_000);

  afterAll(async () => {
    await pool?.close();
  });

  it('has named, paired cases: each group a right program and a wrong or hostile one', () => {
    expect(new Set(MEANING_CASES.map((c) => c.name)).size).toBe(MEANING_CASES.length);
    const kinds = new Set(MEANING_CASES.map((c) => c.kind));
    for (const kind of kinds) {
      const scores = new Set(MEANING_CASES.filter((c) => c.kind === kind).map((c) => c.score));
      expect([kind, [...scores].sort()]).toEqual([kind, [0, 1]]);
    }
  });

  describeCases(
    [
      ['attacks', MEANING_ATTACKS],
      ['honest programs', MEANING_HONEST],
    ],
    async (c: JudgeCase) => verdictOf(await pool.judge(c.code, hiddenTests(splitTests(c.tests)))),
  );
});
