// Rewards: the reference output_match rule, hidden tests through a real CPython (and a fake
// sandbox for failures), final answer, format, weighting, timeouts, and errors that never crash.
import { describe, expect, it } from 'vitest';
import { parseAction } from '../../src/rl/actions.ts';
import type { Turn } from '../../src/rl/types.ts';
import type { CodeExecutor, HiddenTest, Judgement } from '../../src/env/types.ts';
import { TASKS_BY_ID } from '../../src/tasks/registry.ts';
import { customTask } from '../../src/tasks/custom.ts';
import {
  rewardCoverageProblems,
  scoreTrajectory,
  type RewardSettings,
} from '../../src/rl/rewards.ts';
import { pythonExecutor, runPython } from '../tasks/python.ts';

const fib = TASKS_BY_ID.get('seed/fibonacci')!;
const sumTo = TASKS_BY_ID.get('builtin/sum_to')!;
const defaults: RewardSettings = {
  weights: { output_match: 1, tests: 1, final_answer: 0, format: 0 },
  partialCredit: false,
  timeoutMs: 10_000,
};

/** A turn from the model's text; code turns run in real Python to get their observation. */
function turn(text: string): Turn {
  const action = parseAction(text);
  const result = action.type === 'execute_code' ? runPython(action.code) : null;
  return {
    generated: { start: 0, end: 0 },
    observation: null,
    text,
    stop: 'eos',
    action,
    execution:
      action.type === 'execute_code' ? { code: action.code, result: result!, durationMs: 1 } : null,
  };
}
const episode = (texts: string[], extra: { timedOut?: boolean } = {}) => {
  const turns = texts.map(turn);
  const finish = turns.map((t) => t.action).find((a) => a.type === 'finish');
  return {
    turns,
    finalAnswer: finish?.type === 'finish' ? finish.answer : null,
    timedOut: extra.timedOut ?? false,
  };
};
const code = (source: string) => `\`\`\`python\n${source}\n\`\`\``;
const failingExecutor = (message: string): CodeExecutor => ({
  execute: async () => {
    throw new Error(message);
  },
});

describe('output_match (reference rule)', () => {
  it('scores 1 when the last non-empty line of any execution equals the expected output', async () => {
    const right = await scoreTrajectory(
      episode([code('print("working")\nprint(55)\nprint()'), 'FINAL ANSWER: 55']),
      fib,
      defaults,
      pythonExecutor,
    );
    expect(right).toMatchObject({
      reward: 1,
      rewardParts: { output_match: 1 },
      passed: true,
      rewardErrors: [],
    });
    const later = await scoreTrajectory(
      episode([code('print(fib(10))'), code('print(55)')]),
      fib,
      defaults,
      pythonExecutor,
    );
    expect(later.reward).toBe(1); // the second execution fixed the NameError
    const earlier = await scoreTrajectory(
      episode([code('print(55)'), code('print(54)')]),
      fib,
      defaults,
      pythonExecutor,
    );
    expect(earlier.reward).toBe(1); // ANY execution counts, as in the reference
  });

  it('scores 0 when 55 is printed but not last, or only stated in the final answer', async () => {
    expect(
      (
        await scoreTrajectory(
          episode([code('print(55)\nprint("done")')]),
          fib,
          defaults,
          pythonExecutor,
        )
      ).reward,
    ).toBe(0);
    const answered = await scoreTrajectory(
      episode(['FINAL ANSWER: 55']),
      fib,
      defaults,
      pythonExecutor,
    );
    expect(answered).toMatchObject({ reward: 0, passed: false });
  });
});

describe('tests reward (real Python behind the sandbox interface)', () => {
  const correct = code('def sum_to(n):\n    return n * (n + 1) // 2\nprint(sum_to(100))');
  const offByOne = code('def sum_to(n):\n    return sum(range(n))\nprint(sum_to(100))');

  it('runs the final code against the hidden tests: all pass -> 1', async () => {
    const scored = await scoreTrajectory(
      episode([offByOne, correct, 'FINAL ANSWER: 5050']),
      sumTo,
      defaults,
      pythonExecutor,
    );
    expect(scored).toMatchObject({
      rewardParts: { output_match: 1, tests: 1 },
      reward: 1,
      passed: true,
    });
  });

  it('uses the LAST executed code, and weights parts by their weights', async () => {
    const scored = await scoreTrajectory(
      episode([correct, offByOne]),
      sumTo,
      defaults,
      pythonExecutor,
    );
    expect(scored.rewardParts).toEqual({ output_match: 1, tests: 0 });
    expect(scored.reward).toBe(0.5);
    expect(scored.passed).toBe(false);
    const weighted = await scoreTrajectory(
      episode([correct, offByOne]),
      sumTo,
      { ...defaults, weights: { ...defaults.weights, tests: 3 } },
      pythonExecutor,
    );
    expect(weighted.reward).toBe(0.25);
  });

  it('partial credit only when asked: 2 of 4 tests -> 0.5', async () => {
    // n * n passes sum_to(1) == 1 and sum_to(0) == 0, fails sum_to(3) == 6 and sum_to(10) == 55
    const half = episode([code('def sum_to(n):\n    return n * n\nprint(sum_to(100))')]);
    expect((await scoreTrajectory(half, sumTo, defaults, pythonExecutor)).rewardParts.tests).toBe(
      0,
    );
    expect(
      (await scoreTrajectory(half, sumTo, { ...defaults, partialCredit: true }, pythonExecutor))
        .rewardParts.tests,
    ).toBe(0.5);
  });

  it('no executed code scores 0 without running anything', async () => {
    let calls = 0;
    const counting: CodeExecutor = {
      execute: async () => {
        calls++;
        return { ok: true, observation: '', timedOut: false, error: null };
      },
    };
    expect(
      (await scoreTrajectory(episode(['FINAL ANSWER: 5050']), sumTo, defaults, counting))
        .rewardParts.tests,
    ).toBe(0);
    expect(calls).toBe(0);
  });
});

describe('tests reward through a judge (a fake sandbox that judges)', () => {
  const correct = code('def sum_to(n):\n    return n * (n + 1) // 2\nprint(sum_to(100))');
  /** A judging executor whose verdict is `make(tests)`; records what it was asked. */
  const judging = (make: (tests: readonly HiddenTest[]) => Partial<Judgement>) => {
    const asked: { code: string; tests: readonly HiddenTest[] }[] = [];
    const executor: CodeExecutor = {
      execute: async () => {
        throw new Error('the tests reward must not execute when it can judge');
      },
      judge: async (source, tests) => {
        asked.push({ code: source, tests });
        const verdicts = tests.map(() => ({ passed: true, detail: null }));
        return {
          execution: { ok: true, observation: '', timedOut: false, error: null },
          tests: verdicts,
          passed: tests.length,
          total: tests.length,
          tampered: [],
          timedOut: false,
          ...make(tests),
        };
      },
    };
    return { executor, asked };
  };
  const testsOnly = {
    ...defaults,
    weights: { output_match: 0, tests: 1, final_answer: 0, format: 0 },
  };

  it('judges the final code against the split hidden tests, and counts them', async () => {
    const { executor, asked } = judging(() => ({}));
    const scored = await scoreTrajectory(episode([correct]), sumTo, testsOnly, executor);
    expect(scored).toMatchObject({ rewardParts: { tests: 1 }, tampered: [], passed: true });
    expect(scored.testCounts).toEqual({ passed: 4, total: 4 });
    expect(Object.keys(scored)).not.toContain('testCounts');
    expect(asked[0]!.tests.map((t) => t.kind)).toEqual(['value', 'value', 'value', 'value']);
  });

  it('scores 0 and records the reasons when the judge saw tampering, whatever passed', async () => {
    const { executor } = judging(() => ({ tampered: ['redefines builtin exec'] }));
    const scored = await scoreTrajectory(
      episode([correct]),
      sumTo,
      { ...testsOnly, partialCredit: true },
      executor,
    );
    expect(scored).toMatchObject({
      rewardParts: { tests: 0 },
      tampered: ['redefines builtin exec'],
      passed: false,
      rewardErrors: [],
    });
  });

  it('scores 0 when the judge counts another number of tests, or timed out', async () => {
    const short = judging((tests) => ({ total: tests.length - 1, passed: tests.length - 1 }));
    expect(
      (await scoreTrajectory(episode([correct]), sumTo, testsOnly, short.executor)).rewardParts
        .tests,
    ).toBe(0);
    const late = judging(() => ({ timedOut: true }));
    expect(
      (await scoreTrajectory(episode([correct]), sumTo, testsOnly, late.executor)).rewardParts
        .tests,
    ).toBe(0);
  });

  it('partial credit counts the tests the judge passed', async () => {
    const { executor } = judging((tests) => ({ passed: tests.length - 1 }));
    expect(
      (
        await scoreTrajectory(
          episode([correct]),
          sumTo,
          { ...testsOnly, partialCredit: true },
          executor,
        )
      ).rewardParts.tests,
    ).toBe(0.75);
  });
});

describe('other parts, timeouts and errors', () => {
  it('final_answer compares with whitespace normalized', async () => {
    const settings = {
      ...defaults,
      weights: { output_match: 0, tests: 0, final_answer: 1, format: 0 },
    };
    const sort = TASKS_BY_ID.get('seed/sort')!;
    expect(
      (
        await scoreTrajectory(
          episode(['FINAL ANSWER:   [1, 2, 4,  5, 8] ']),
          sort,
          settings,
          pythonExecutor,
        )
      ).reward,
    ).toBe(1);
    expect(
      (
        await scoreTrajectory(
          episode(['FINAL ANSWER: [1,2,4,5,8]']),
          sort,
          settings,
          pythonExecutor,
        )
      ).reward,
    ).toBe(0);
  });

  it('format rewards well-formed turns that end with FINAL ANSWER', async () => {
    const settings = {
      ...defaults,
      weights: { output_match: 1, tests: 0, final_answer: 0, format: 1 },
    };
    const good = await scoreTrajectory(
      episode([code('print(55)'), 'FINAL ANSWER: 55']),
      fib,
      settings,
      pythonExecutor,
    );
    expect(good).toMatchObject({ rewardParts: { output_match: 1, format: 1 }, reward: 1 });
    const rambling = await scoreTrajectory(
      episode(['hmm', code('print(55)')]),
      fib,
      settings,
      pythonExecutor,
    );
    expect(rambling).toMatchObject({
      rewardParts: { output_match: 1, format: 0 },
      reward: 0.5,
      passed: true,
    });
  });

  it('a timed-out episode scores 0 overall, even after a matching execution, and runs no tests', async () => {
    let calls = 0;
    const counting: CodeExecutor = {
      execute: async (source) => {
        calls++;
        return pythonExecutor.execute(source);
      },
    };
    const scored = await scoreTrajectory(
      episode([code('print(5050)')], { timedOut: true }),
      sumTo,
      defaults,
      counting,
    );
    expect(scored).toMatchObject({
      reward: 0,
      rewardParts: { output_match: 0, tests: 0 },
      passed: false,
    });
    expect(calls).toBe(0);
  });

  it('a reward part that throws is recorded, scores 0, and does not crash the run', async () => {
    const scored = await scoreTrajectory(
      episode([code('def sum_to(n):\n    return n * (n + 1) // 2\nprint(sum_to(100))')]),
      sumTo,
      defaults,
      failingExecutor('sandbox worker crashed'),
    );
    expect(scored.rewardErrors).toEqual([{ part: 'tests', message: 'sandbox worker crashed' }]);
    expect(scored).toMatchObject({
      rewardParts: { output_match: 1, tests: 0 },
      reward: 0.5,
      passed: false,
    });
  });

  it('custom tasks: tests-only tasks are scored by tests; uncovered tasks are reported up front', async () => {
    const custom = customTask(
      { prompt: 'Define add(a, b).', tests: 'assert add(2, 3) == 5\nassert add(-1, 1) == 0' },
      0,
    );
    const scored = await scoreTrajectory(
      episode([code('def add(a, b):\n    return a + b')]),
      custom,
      defaults,
      pythonExecutor,
    );
    expect(scored).toMatchObject({ reward: 1, rewardParts: { tests: 1 }, passed: true });
    const referenceOnly = { output_match: 1, tests: 0, final_answer: 0, format: 0 };
    expect(rewardCoverageProblems([fib, custom], referenceOnly)).toEqual([
      expect.stringMatching(/task custom\/1 has no reward.*Fix: give tests a weight above 0/),
    ]);
    const none = await scoreTrajectory(
      episode([code('pass')]),
      custom,
      { ...defaults, weights: referenceOnly },
      pythonExecutor,
    );
    expect(none).toMatchObject({ reward: 0, passed: false, rewardErrors: [{ part: '*' }] });
  });
});

describe('tool_use (shaping: searched before the first code run)', () => {
  /** A search turn as the rollout records it (built by hand: the parser is tested elsewhere). */
  const search = (query: string, recorded = true): Turn => ({
    generated: { start: 0, end: 0 },
    observation: null,
    text: `SEARCH: ${query}`,
    stop: 'eos',
    action: { type: 'tool_call', tool: 'search', input: query },
    execution: null,
    ...(recorded
      ? {
          tool: 'search',
          call: { tool: 'search', input: query, observation: 'Search results:', durationMs: 1 },
        }
      : {}),
  });
  const choose = TASKS_BY_ID.get('search/choose')!;
  const shaped: RewardSettings = {
    ...defaults,
    weights: { output_match: 1, tests: 1, final_answer: 0, format: 0, tool_use: 1 },
  };
  const solve = code('import math\nprint(math.comb(10, 3))');
  const scoreOf = async (turns: Turn[]) =>
    scoreTrajectory({ turns, finalAnswer: null, timedOut: false }, choose, shaped, pythonExecutor);

  it('is 1 when the first search comes before the first code run, 0 when after or never', async () => {
    const first = await scoreOf([search('choose k of n'), turn(solve)]);
    expect(first).toMatchObject({ rewardParts: { output_match: 1, tool_use: 1 }, reward: 1 });
    const after = await scoreOf([turn(solve), search('choose k of n'), turn(solve)]);
    expect(after).toMatchObject({ rewardParts: { output_match: 1, tool_use: 0 }, reward: 0.5 });
    const never = await scoreOf([turn(solve)]);
    expect(never.rewardParts.tool_use).toBe(0);
    // a format error before the search does not count as running code
    expect((await scoreOf([turn('hmm'), search('x'), turn(solve)])).rewardParts.tool_use).toBe(1);
    // searched, then answered without running code: the look-up still came first
    expect((await scoreOf([search('x'), turn('FINAL ANSWER: 120')])).rewardParts.tool_use).toBe(1);
  });

  it('reads the action when the turn has no recorded tool (records from before tools)', async () => {
    expect((await scoreOf([search('x', false), turn(solve)])).rewardParts.tool_use).toBe(1);
  });

  it('never counts toward passed, and is off (absent) with the default weights', async () => {
    const searchedOnly = await scoreOf([search('choose k of n'), turn(code('print(1)'))]);
    expect(searchedOnly).toMatchObject({
      rewardParts: { output_match: 0, tool_use: 1 },
      reward: 0.5,
      passed: false,
    });
    const unshaped = await scoreTrajectory(
      { turns: [search('x'), turn(solve)], finalAnswer: null, timedOut: false },
      choose,
      defaults,
      pythonExecutor,
    );
    expect(unshaped.rewardParts).toEqual({ output_match: 1 });
    expect(unshaped.passed).toBe(true);
  });

  it('format counts a search turn as well-formed', async () => {
    const scored = await scoreTrajectory(
      {
        turns: [search('x'), turn(solve), turn('FINAL ANSWER: 120')],
        finalAnswer: '120',
        timedOut: false,
      },
      choose,
      { ...defaults, weights: { output_match: 0, tests: 0, final_answer: 1, format: 1 } },
      pythonExecutor,
    );
    expect(scored.rewardParts).toEqual({ final_answer: 1, format: 1 });
  });
});
