// The standard library under the lockdown (issue 63): a broad sweep of stdlib calls
// (stdlib_cases.ts) runs in the locked-down sandbox, each group as one program through execute()
// and once more through the judge (one test per call), and must give what CPython gives. What a
// browser tab's Python cannot do at all (threads, processes, sockets) must fail the way Pyodide
// fails without the lockdown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import type { SandboxPool } from '../../src/env/pool.ts';
import { splitTests } from '../../src/tasks/custom.ts';
import { hiddenTests } from '../../src/tasks/tests_harness.ts';
import {
  executeProgram,
  judgedForm,
  limitsProgram,
  parseResults,
  PYODIDE_LIMITS,
  STDLIB_GROUPS,
} from './stdlib_cases.ts';

const TIMEOUT_MS = 20_000;

describe('the standard library in the locked-down sandbox', () => {
  let pool: SandboxPool;

  beforeAll(async () => {
    pool = await createNodeSandboxPool({ size: 1, spares: 0, maxCaptureChars: 100_000 });
  });

  afterAll(async () => {
    await pool?.close();
  });

  for (const [group, cases] of Object.entries(STDLIB_GROUPS)) {
    it(`${group}: execute gives what CPython gives`, async () => {
      const run = await pool.execute(executeProgram(cases), { timeoutMs: TIMEOUT_MS });
      expect(run.error, run.stderr).toBeNull();
      const results = parseResults(run.stdout);
      const got = Object.fromEntries(cases.map((one) => [one.name, results.get(one.name)]));
      expect(got).toEqual(Object.fromEntries(cases.map((one) => [one.name, one.expected])));
    });

    it(`${group}: the judge gives what CPython gives`, async () => {
      const { code, tests } = judgedForm(cases);
      const judged = await pool.judge(code, hiddenTests(splitTests(tests)), {
        timeoutMs: TIMEOUT_MS,
      });
      expect(judged.execution.error, judged.execution.observation).toBeNull();
      expect(judged.total).toBe(cases.length);
      // A case the judge treats otherwise by its own choice (stdlib_cases.ts says why) fails there.
      const verdicts = Object.fromEntries(
        cases.map((one, i) => {
          const verdict = judged.tests[i];
          return [one.name, verdict?.passed ? 'passed' : `failed: ${verdict?.detail}`];
        }),
      );
      const wanted = Object.fromEntries(
        cases.map((one) => [one.name, one.fails ? expect.stringMatching(/^failed: /) : 'passed']),
      );
      expect(verdicts).toEqual(wanted);
      const notes = cases.flatMap((one) => (one.notes ?? []).map((n) => n.note));
      expect([...judged.tampered].sort()).toEqual([...new Set(notes)].sort());
    });
  }

  it('what Pyodide cannot do fails as it does without the lockdown', async () => {
    const run = await pool.execute(limitsProgram(), { timeoutMs: TIMEOUT_MS });
    expect(run.error, run.stderr).toBeNull();
    const results = parseResults(run.stdout);
    const got = Object.fromEntries(PYODIDE_LIMITS.map((one) => [one.call, results.get(one.call)]));
    expect(got).toEqual(Object.fromEntries(PYODIDE_LIMITS.map((one) => [one.call, one.expected])));
  });
});
