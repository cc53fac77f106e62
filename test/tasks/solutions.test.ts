// Every seed and built-in task is solvable as stated: its reference solution, run by a real
// CPython, prints the expected output last and passes all hidden tests through the same harness
// the `tests` reward uses. Typical wrong first attempts must fail the hidden tests.
import { describe, expect, it } from 'vitest';
import { BUILTIN_TASKS } from '../../src/tasks/builtin/index.ts';
import { SEED_TASKS } from '../../src/tasks/seed.ts';
import { lastLine } from '../../src/rl/rewards.ts';
import { parseTestsReport, testsProgram } from '../../src/tasks/tests_harness.ts';
import { pythonVersion, runPython } from './python.ts';

const byName = (name: string) => BUILTIN_TASKS.find((task) => task.id === `builtin/${name}`)!;

/** Hidden tests passed by `code`, through the reward's harness. */
function testsPassed(
  code: string,
  tests: readonly string[],
): { passed: number; total: number } | null {
  return parseTestsReport(runPython(testsProgram(code, tests, 'n0nce')).observation, 'n0nce');
}

describe('task solutions (real Python)', () => {
  it('has a Python interpreter', () => {
    expect(pythonVersion(), 'python3 not found: install it or set PYTHON').toMatch(/^Python 3\./);
  });

  for (const task of [...SEED_TASKS, ...BUILTIN_TASKS]) {
    it(`${task.id}: prints ${task.expectedOutput} and passes its hidden tests`, () => {
      const run = runPython(task.solution!);
      expect(run.ok, run.observation).toBe(true);
      expect(lastLine(run.observation)).toBe(task.expectedOutput);
      if (task.tests)
        expect(testsPassed(task.solution!, task.tests)).toEqual({
          passed: task.tests.length,
          total: task.tests.length,
        });
    });
  }

  it('the legacy harness runs setup lines in order and counts only asserts', () => {
    const tests = ['r = add(2, 3)', 'assert r == 5', 'assert r == 6', 'assert add(r, 1) == 6'];
    expect(testsPassed('def add(a, b):\n    return a + b', tests)).toEqual({ passed: 2, total: 3 });
  });

  // Wrong first attempts a model is likely to write; each must print or test wrong.
  const traps: [string, string][] = [
    ['sum_to', 'def sum_to(n):\n    return sum(range(n))\nprint(sum_to(100))'],
    [
      'average',
      'def average(nums):\n    return sum(nums) // len(nums)\nprint(average([1, 2, 3, 4]))',
    ],
    [
      'evens_between',
      'def evens_between(a, b):\n    return [x for x in range(a, b) if x % 2 == 0]\nprint(evens_between(3, 11))',
    ],
    [
      'add_item',
      'def add_item(item, items=[]):\n    items.append(item)\n    return items\nprint(add_item(1))\nprint(add_item(2))',
    ],
    [
      'is_leap_year',
      'def is_leap_year(year):\n    return year % 4 == 0\nprint(is_leap_year(1900))',
    ],
    [
      'second_largest',
      'def second_largest(nums):\n    return sorted(nums)[-2]\nprint(second_largest([4, 1, 7, 7, 3]))',
    ],
    [
      'rotate_left',
      'def rotate_left(items, k):\n    return items[k:] + items[:k]\nprint(rotate_left([1, 2, 3, 4, 5], 7))',
    ],
    [
      'count_words',
      "def count_words(s):\n    return len(s.split(' '))\nprint(count_words('  leading and   multiple spaces '))",
    ],
    ['c_to_f', 'def c_to_f(celsius):\n    return celsius * 9 / 5 + 32\nprint(c_to_f(37))'],
    [
      'is_prime',
      'def is_prime(n):\n    return all(n % i for i in range(2, n))\nprint(is_prime(97))',
    ],
  ];
  for (const [name, code] of traps) {
    it(`a typical wrong attempt at ${name} fails`, () => {
      const task = byName(name);
      const printsRight = lastLine(runPython(code).observation) === task.expectedOutput;
      const report = testsPassed(code, task.tests!);
      expect(printsRight && report?.passed === report?.total).toBe(false);
    });
  }

  it('the harness reports 0 when the code exits early, errors, or fakes the report', () => {
    const tests = ['assert f() == 1'];
    expect(testsPassed('def f():\n    return 1\nraise SystemExit(0)', tests)).toBeNull();
    expect(testsPassed('def f(:\n    return 1', tests)).toBeNull();
    expect(testsPassed('def f():\n    return 2\nprint("fake 1 1")', tests)).toEqual({
      passed: 0,
      total: 1,
    });
    expect(
      testsPassed('def f():\n    return 1\nimport sys\nprint("warning", file=sys.stderr)', tests),
    ).toEqual({ passed: 1, total: 1 });
  });
});
