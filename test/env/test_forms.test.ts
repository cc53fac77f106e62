// The forms real test suites take (HumanEval's check(candidate), MBPP's plain asserts, pytest
// functions, unittest.TestCase, tolerance and exception checks) and a public-benchmark set in the
// HumanEval form, judged in Node worker_threads: each correct solution scores 1, each wrong one 0
// (test/env/test_forms_cases.ts; the browser runs them in test/e2e/judge_meaning.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import type { SandboxPool } from '../../src/env/pool.ts';
import { splitTests } from '../../src/tasks/custom.ts';
import { hiddenTests } from '../../src/tasks/tests_harness.ts';
import type { JudgeCase } from './judge_cases.ts';
import { describeCases, verdictOf } from './judge_expect.ts';
import { BENCHMARK_CASES, BENCHMARK_PROBLEMS, FORM_CASES } from './test_forms_cases.ts';

describe('test forms and a public benchmark set (Node worker_threads)', () => {
  let pool: SandboxPool;

  beforeAll(async () => {
    pool = await createNodeSandboxPool({ size: 1, spares: 1 });
  }, 120_000);

  afterAll(async () => {
    await pool?.close();
  });

  it('has at least 25 benchmark problems, each with a canonical and wrong solutions', () => {
    expect(BENCHMARK_PROBLEMS).toBeGreaterThanOrEqual(25);
    const all = [...FORM_CASES, ...BENCHMARK_CASES];
    expect(new Set(all.map((c) => c.name)).size).toBe(all.length);
    expect(BENCHMARK_CASES.filter((c) => c.score === 1)).toHaveLength(BENCHMARK_PROBLEMS);
    expect(BENCHMARK_CASES.filter((c) => c.score === 0).length).toBeGreaterThanOrEqual(
      2 * BENCHMARK_PROBLEMS,
    );
  });

  describeCases(
    [
      ['test forms', FORM_CASES],
      ['benchmark', BENCHMARK_CASES],
    ],
    async (c: JudgeCase) => verdictOf(await pool.judge(c.code, hiddenTests(splitTests(c.tests)))),
  );
});
