// The verdict a judge case (test/env/judge_cases.ts) must get, checked the same way in Node
// (test/env/judge_meaning.test.ts, test/env/test_forms.test.ts) and in Chromium
// (test/e2e/judge_meaning.test.ts).
import { describe, expect, it } from 'vitest';
import type { JudgeCase } from './judge_cases.ts';

/** What a judgement says, as both the Node pool and the Chromium harness page report it. */
export interface Verdict {
  passed: number;
  total: number;
  tampered: string[];
  /** Each test's detail (null where it passed). */
  details: (string | null)[];
}

/**
 * Score 1: every test passes, there is at least one, nothing is flagged. Score 0: no test passes;
 * an honest wrong program is not flagged either (an attack may be, or not). `total`, where the
 * case states it, is the count the judge must make.
 */
export function expectVerdict(c: JudgeCase, verdict: Verdict): void {
  const seen = JSON.stringify(verdict);
  if (c.total !== undefined) expect(verdict.total, `total; judged ${seen}`).toBe(c.total);
  if (c.score === 1) {
    expect(verdict.total, `no tests; judged ${seen}`).toBeGreaterThan(0);
    expect(verdict.passed, `passed; judged ${seen}`).toBe(verdict.total);
    expect(verdict.tampered, `flagged; judged ${seen}`).toEqual([]);
  } else {
    expect(verdict.passed, `passed; judged ${seen}`).toBe(0);
    if (!c.hostile) expect(verdict.tampered, `flagged; judged ${seen}`).toEqual([]);
  }
}

/**
 * Where the judge does not keep Python's meaning (docs/sandbox.md "The judge", Limits): these cases
 * get the opposite score, asserted so that a fix shows up here. A proxy is not a function object
 * to `inspect.isgeneratorfunction`.
 */
export const KNOWN_LIMITS = new Set(['stand-in: inspect.isgeneratorfunction(f) (generator)']);

/** expectVerdict, but a known limit must get the opposite score (see KNOWN_LIMITS). */
export function expectCase(c: JudgeCase, verdict: Verdict): void {
  if (!KNOWN_LIMITS.has(c.name)) {
    expectVerdict(c, verdict);
    return;
  }
  const seen = JSON.stringify(verdict);
  const allPassed = verdict.total > 0 && verdict.passed === verdict.total;
  expect(
    allPassed,
    `a known limit now scores as it should: move it out of KNOWN_LIMITS; ${seen}`,
  ).toBe(c.score === 0);
}

/** One test per case, in a describe block per group; `judge` gives a case's verdict. */
export function describeCases(
  groups: ReadonlyArray<readonly [string, readonly JudgeCase[]]>,
  judge: (c: JudgeCase) => Promise<Verdict>,
): void {
  for (const [title, list] of groups) {
    describe(title, () => {
      for (const c of list) {
        it(`${c.name} scores ${c.score}`, async () => {
          expectCase(c, await judge(c));
        }, 30_000);
      }
    });
  }
}

/** A case's verdict from a pool's judgement, as the suites compare it. */
export function verdictOf(judged: {
  passed: number;
  total: number;
  tampered: string[];
  tests: ReadonlyArray<{ detail: string | null }>;
}): Verdict {
  return {
    passed: judged.passed,
    total: judged.total,
    tampered: judged.tampered,
    details: judged.tests.map((t) => t.detail),
  };
}
