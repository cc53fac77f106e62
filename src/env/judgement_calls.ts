// The three calls of one judgement across the worker's two interpreters (docs/sandbox.md "The
// judge"): the program's `begin` (it runs, its definitions stay), the trusted interpreter's tests
// (each operation on the program's names crossing through `call`), the program's `finish` (the
// clean-up and the output). The runner (runner.ts) wraps them: the clean interpreter before, the
// file system and the verdict's shape after.
import { type JudgeApi, type PyCallable, plainResult } from './runner_runtime.ts';
import type { TrustedJudge } from './trusted_judge.ts';
import type { JudgeProbe, RawTestResult } from './types.ts';

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/** How the calls ended; `escaped` is what one of them threw (the deadline, the runtime dying). */
export interface JudgementCalls {
  ok: boolean;
  errorType: string | null;
  interrupted: boolean;
  escaped: unknown;
  tainted: boolean;
  results: RawTestResult[];
  tampered: string[];
  limits: string[];
  combined: string;
  stdout: string;
  stderr: string;
  truncated: boolean;
}

/**
 * Runs `code`, then `tests` against it, then the clean-up. `call` is the program's side of a
 * crossing (api.call, or it wrapped for a call that arrives while the program is inside the
 * judge's device).
 */
export function judgementCalls(
  api: JudgeApi,
  call: PyCallable,
  trusted: TrustedJudge,
  code: string,
  tests: readonly JudgeProbe[],
  caps: { maxOutputChars: number; maxCaptureChars: number },
): JudgementCalls {
  const tampered: string[] = [];
  const limits: string[] = [];
  const results: RawTestResult[] = [];
  const noteAll = (reasons: unknown) => {
    for (const reason of strings(reasons)) if (!tampered.includes(reason)) tampered.push(reason);
  };
  let ok = false;
  let errorType: string | null = null;
  let interrupted = false;
  let escaped: unknown = null;
  try {
    const [programOk, programError, programInterrupted, reasons, initialState] = plainResult(
      api.begin(code, caps.maxOutputChars, caps.maxCaptureChars),
    );
    ok = programOk === true;
    errorType = typeof programError === 'string' ? programError : null;
    interrupted = programInterrupted === true;
    noteAll(reasons);
    const initial = typeof initialState === 'string' ? initialState : '[null]';
    if (!interrupted) {
      const judged = trusted.run(call, initial, tests, noteAll);
      results.push(...judged.results);
      limits.push(...judged.limits);
      interrupted = judged.interrupted;
      if (interrupted) {
        ok = false;
        errorType ??= 'KeyboardInterrupt';
      }
    }
  } catch (error) {
    // An interrupt (the deadline) or the runtime dying: the remaining tests never ran.
    escaped = error;
  }
  let tainted = escaped !== null;
  let combined = '';
  let stdout = '';
  let stderr = '';
  let truncated = false;
  try {
    const [found, finishTainted, text, out, err, cut] = plainResult(api.finish());
    noteAll(found);
    tainted ||= finishTainted === true;
    combined = typeof text === 'string' ? text : '';
    stdout = typeof out === 'string' ? out : '';
    stderr = typeof err === 'string' ? err : '';
    truncated = cut === true;
  } catch (error) {
    tainted = true;
    escaped ??= error;
  }
  return {
    ok,
    errorType,
    interrupted,
    escaped,
    tainted,
    results,
    tampered,
    limits,
    combined,
    stdout,
    stderr,
    truncated,
  };
}
