// Turns how a judge run ended (sandbox.ts) into the Judgement the tests reward reads: the raw
// per-test results are compared with the expected values here, on the caller's side, and the
// number of results must equal the number of hidden tests.
import { toExecResult } from './exec_result.ts';
import { decodePlain, formatPlain, plainEquals, type PlainValue } from './plain_value.ts';
import type { SandboxOutcome } from './sandbox.ts';
import type {
  HiddenTest,
  JudgeProbe,
  Judgement,
  RawJudgement,
  RawTestResult,
  TestVerdict,
} from './types.ts';

/** What the worker gets of each test: never the expected value. */
export function toProbes(tests: readonly HiddenTest[]): JudgeProbe[] {
  return tests.map((test) =>
    test.kind === 'value'
      ? { kind: 'value', expr: test.expr, ...(test.literal ? { literal: test.literal } : {}) }
      : { kind: test.kind, source: test.source },
  );
}

/** The tests among a task's statements: every one but its setup lines. */
export function countedTests(tests: readonly HiddenTest[]): number {
  return tests.filter((test) => test.kind !== 'setup').length;
}

/** One test's verdict from its raw result. */
export function verdict(test: HiddenTest, result: RawTestResult): TestVerdict {
  if (result.status === 'error') return { passed: false, detail: result.error };
  if (test.kind !== 'value')
    return result.status === 'pass'
      ? { passed: true, detail: null }
      : { passed: false, detail: 'no result' };
  // Not exact plain data (a Decimal, a Counter): the trusted judge compared it in Python.
  if (result.status === 'pass') return { passed: true, detail: null };
  if (result.status !== 'value') return { passed: false, detail: 'no value' };
  let got: PlainValue;
  try {
    got = decodePlain(result.value);
  } catch (error) {
    return { passed: false, detail: error instanceof Error ? error.message : String(error) };
  }
  return plainEquals(got, test.expected)
    ? { passed: true, detail: null }
    : { passed: false, detail: `got ${formatPlain(got).slice(0, 200)}` };
}

/** The Judgement for one outcome; `timeoutMs` only words the timeout error. */
export function toJudgement(
  outcome: SandboxOutcome,
  tests: readonly HiddenTest[],
  timeoutMs: number,
): Judgement {
  const execution = toExecResult(outcome, timeoutMs);
  // One result comes back per statement; setup lines are not tests, so they get no verdict.
  const counted = tests.filter((test) => test.kind !== 'setup');
  const total = counted.length;
  const raw =
    outcome.kind === 'done' || outcome.kind === 'interrupted'
      ? (outcome.raw as RawJudgement)
      : null;
  const tampered = [...new Set(raw?.tampered ?? [])];
  const limits = [...new Set(raw?.limits ?? [])];
  const failAll = (detail: string): Judgement => ({
    execution,
    tests: counted.map(() => ({ passed: false, detail })),
    passed: 0,
    total,
    tampered,
    limits,
    timedOut: execution.timedOut,
  });
  if (execution.timedOut) return failAll('timed out');
  if (!raw || raw.fatal) return failAll('the sandbox crashed');
  if (raw.interrupted) return failAll('interrupted');
  if (!raw.ok) return failAll(`the program failed (${raw.error?.type ?? 'error'})`);
  if (!Array.isArray(raw.results) || raw.results.length !== tests.length) {
    return failAll(
      `the judge returned ${Array.isArray(raw.results) ? raw.results.length : 'no'} results for ${tests.length} statements`,
    );
  }
  const verdicts = tests.flatMap((test, i) =>
    test.kind === 'setup' ? [] : [verdict(test, raw.results[i]!)],
  );
  return {
    execution,
    tests: verdicts,
    passed: verdicts.filter((v) => v.passed).length,
    total,
    tampered,
    limits,
    timedOut: false,
  };
}
