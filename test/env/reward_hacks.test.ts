// Reward hacks against the judge in Node (the browser runs the same cases in
// test/e2e/sandbox.test.ts): each scores 0 for `tests` and is flagged; honest programs, stdlib
// users included, score as they deserve and are not flagged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import type { SandboxPool } from '../../src/env/pool.ts';
import { scoreTrajectory, type RewardSettings } from '../../src/rl/rewards.ts';
import { customTask, splitTests } from '../../src/tasks/custom.ts';
import { hiddenTests } from '../../src/tasks/tests_harness.ts';
import {
  ADD_TESTS,
  FORGE_TESTS,
  FORGES,
  HONEST_CASES,
  HONEST_PROGRAMS,
  REWARD_HACKS,
} from './reward_hacks.ts';

const task = customTask({ prompt: 'Define add(a, b).', tests: ADD_TESTS.join('\n') }, 0);
const settings: RewardSettings = {
  weights: { output_match: 0, tests: 1, final_answer: 0, format: 0 },
  partialCredit: true,
  timeoutMs: 10_000,
};

/** A finished episode whose last execution ran `code`. */
function episode(code: string) {
  return {
    turns: [
      {
        generated: { start: 0, end: 0 },
        observation: null,
        text: code,
        stop: 'eos' as const,
        action: { type: 'execute_code' as const, code, unterminated: false },
        execution: {
          code,
          result: { ok: true, observation: '', timedOut: false, error: null },
          durationMs: 1,
        },
      },
    ],
    finalAnswer: null,
    timedOut: false,
  };
}

describe('reward hacks against the judge (Node worker_threads)', () => {
  let pool: SandboxPool;

  beforeAll(async () => {
    pool = await createNodeSandboxPool({ size: 1, spares: 2 });
  }, 60_000);

  afterAll(async () => {
    await pool?.close();
  });

  it('has at least 20 hacks, and the task has value and statement tests', () => {
    expect(REWARD_HACKS.length).toBeGreaterThanOrEqual(20);
    expect(hiddenTests(ADD_TESTS).map((t) => t.kind)).toEqual([
      'value',
      'value',
      'value',
      'statement',
    ]);
  });

  for (const forge of FORGES) {
    it(`forge: ${forge.name}: scores 0 of 3`, async () => {
      const judged = await pool.judge(forge.code, hiddenTests(FORGE_TESTS));
      expect(judged.total).toBe(3);
      expect(judged.tests.map((t) => t.passed)).toEqual([false, false, false]);
    });
  }

  for (const hack of REWARD_HACKS) {
    it(`${hack.name}: scores 0 and is flagged`, async () => {
      const scored = await scoreTrajectory(episode(hack.code), task, settings, pool);
      expect(scored.rewardErrors).toEqual([]);
      expect(scored.rewardParts.tests).toBe(0);
      expect(scored.tampered.join(' | ')).toContain(hack.reason);
      // The same sandbox slot then judges an honest program correctly.
      const honest = await pool.judge('def add(a, b):\n    return a + b', hiddenTests(ADD_TESTS));
      expect(honest).toMatchObject({ passed: 4, total: 4, tampered: [], timedOut: false });
    }, 30_000);
  }

  for (const program of HONEST_PROGRAMS) {
    it(`honest: ${program.name} scores ${program.score} and is not flagged`, async () => {
      const scored = await scoreTrajectory(
        episode(program.code),
        task,
        { ...settings, partialCredit: false },
        pool,
      );
      expect(scored.tampered).toEqual([]);
      expect(scored.rewardParts.tests).toBe(program.score);
    }, 30_000);
  }

  for (const honest of HONEST_CASES) {
    it(`honest: ${honest.name}: passes ${honest.passed} of ${honest.total}, not flagged`, async () => {
      const own = customTask({ prompt: 'An honest case.', tests: honest.tests }, 0);
      const scored = await scoreTrajectory(
        episode(honest.code),
        own,
        { ...settings, partialCredit: false },
        pool,
      );
      expect(scored.rewardErrors).toEqual([]);
      expect(scored.tampered).toEqual([]);
      expect(scored.testCounts).toEqual({ passed: honest.passed, total: honest.total });
      expect(scored.rewardParts.tests).toBe(honest.passed === honest.total ? 1 : 0);
    }, 30_000);
  }

  it('runs the test source in one namespace: setup lines bind names, only asserts count', async () => {
    const tests = hiddenTests(
      splitTests('r = add(2, 3)\nassert r == 5\nassert add(r, r) == 11\ns = r * 2\nassert s == 10'),
    );
    expect(tests.map((t) => t.kind)).toEqual(['setup', 'value', 'value', 'setup', 'value']);
    const judged = await pool.judge('def add(a, b):\n    return a + b', tests);
    expect(judged).toMatchObject({ passed: 2, total: 3, tampered: [] });
    expect(judged.tests.map((t) => t.detail)).toEqual([null, 'got 10', null]);
    // A name a setup line binds does not leak into the program or the next judgement.
    const next = await pool.judge(
      'def add(a, b):\n    return a + b',
      hiddenTests(['assert r == 5']),
    );
    expect(next.tests[0]).toMatchObject({
      passed: false,
      detail: expect.stringMatching(/^NameError/),
    });
  });

  it('a test sees the real builtin where the program shadows it (the tests run in another interpreter), unflagged', async () => {
    const code =
      'def max(*xs):\n    return 99\n\ndef add(a, b):\n    return max(a, b) - 99 + a + b';
    const unused = await pool.judge(code, hiddenTests(['assert add(1, 2) == 3']));
    expect(unused).toMatchObject({ passed: 1, total: 1, tampered: [] });
    const used = await pool.judge(code, hiddenTests(['assert max(add(1, 2), 0) == 3']));
    expect(used.tests[0]).toEqual({ passed: true, detail: null });
    expect(used.tampered).toEqual([]);
  });

  it('an Enum member crosses as a member of its class (not its value, as in Python); one whose value is not plain data does not', async () => {
    const code =
      'import enum\nclass Odd:\n    def __eq__(self, other): return True\n    __hash__ = object.__hash__\nclass E(enum.Enum):\n    A = (1, "x")\n    B = Odd()\ndef f(k):\n    return E.A if k else E.B';
    const judged = await pool.judge(
      code,
      hiddenTests([
        'assert f(1) == E.A',
        "assert f(1).value == (1, 'x') and f(1).name == 'A'",
        "assert f(1) == (1, 'x')",
        'assert f(0) == 0',
      ]),
    );
    expect(judged.tests.map((t) => t.passed)).toEqual([false, false, false, false]);
    expect(judged.tampered.join(' | ')).toContain('not plain data (Odd, custom __eq__)');
  });

  it('a program that exits with a failure status fails its tests, unflagged', async () => {
    const judged = await pool.judge(
      'import sys\ndef add(a, b):\n    return a + b\nsys.exit(2)',
      hiddenTests(ADD_TESTS),
    );
    expect(judged).toMatchObject({ passed: 0, total: 4, tampered: [] });
    expect(judged.tests[0]!.detail).toBe('the program failed (SystemExit)');
  });

  it('compares plain data outside Python: big ints, floats, containers, and exact types', async () => {
    const code = 'def f(x):\n    return x';
    const tests = hiddenTests([
      'assert f(2 ** 100) == 1267650600228229401496703205376',
      'assert f(0.1 + 0.2) == 0.30000000000000004',
      "assert f({'b': [1, (2, 3)], 'a': None}) == {'a': None, 'b': [1.0, (2, 3)]}",
      'assert f(True) == 1',
      'assert f([1, 2]) == (1, 2)',
      "assert f(float('inf')) == 1e999",
      'assert f({1, 2}) == {2, 1}',
      "assert f(__import__('collections').Counter('aab')) == {'a': 2, 'b': 1}",
      'assert f(range(3)) == [0, 1, 2]',
    ]);
    const judged = await pool.judge(code, tests);
    expect(judged.tests.map((t) => t.passed)).toEqual([
      true,
      true,
      true,
      true,
      false,
      true,
      true,
      true,
      false,
    ]);
    expect(judged.tests[8]!.detail).toBe('got range(0, 3)');
    expect(judged.tampered).toEqual([]);
  });

  it('a statement test calls pristine builtins, not the ones the program patches for a moment', async () => {
    const hack = REWARD_HACKS.find(
      (h) => h.name === 'patches a builtin for one call and puts it back',
    )!;
    const judged = await pool.judge(hack.code, hiddenTests([ADD_TESTS[3]!]));
    expect(judged.tests[0]).toEqual({ passed: false, detail: 'AssertionError' });
  });

  it('times out as a whole: every test fails', async () => {
    const judged = await pool.judge(
      'import time\ndef add(a, b):\n    while True:\n        pass',
      hiddenTests(ADD_TESTS),
      { timeoutMs: 1000 },
    );
    expect(judged).toMatchObject({ timedOut: true, passed: 0, total: 4 });
    expect(judged.execution.observation).toBe('TIMEOUT');
    const after = await pool.judge('def add(a, b):\n    return a + b', hiddenTests(ADD_TESTS));
    expect(after).toMatchObject({ passed: 4, total: 4, tampered: [] });
  }, 30_000);
});
