// Tests that cannot fail for any program are found where they are written (src/tasks/
// independent_tests.ts): hand-made cases both ways, and no test of a built-in task or of the
// judge suites (all of which depend on their program) is taken for one.
import { describe, expect, it } from 'vitest';
import { customTaskProblems, splitTests } from '../../src/tasks/custom.ts';
import { programIndependentTests } from '../../src/tasks/independent_tests.ts';
import { TASKS_BY_ID } from '../../src/tasks/registry.ts';
import { MEANING_CASES } from '../env/judge_meaning_cases.ts';
import { BENCHMARK_CASES, FORM_CASES } from '../env/test_forms_cases.ts';

const independent = (source: string) => programIndependentTests(splitTests(source));

describe('tests that name nothing of the program', () => {
  it('are found: constants, builtins, imports and names the tests bind from them', () => {
    expect(independent('assert 1 == 1')).toEqual(['assert 1 == 1']);
    expect(independent('assert len([1, 2]) == 2\nassert add(1, 2) == 3')).toEqual([
      'assert len([1, 2]) == 2',
    ]);
    expect(independent('import math\nassert math.pi > 3')).toEqual(['assert math.pi > 3']);
    expect(independent('x = [1]\nx.append(2)\nassert x == [1, 2]')).toEqual(['assert x == [1, 2]']);
    expect(independent('def check(c):\n    assert c(1) == 1\ncheck(lambda v: v)')).toEqual([
      'check(lambda v: v)',
    ]);
    expect(independent("assert 'add' in 'address'  # add")).toEqual([
      "assert 'add' in 'address'  # add",
    ]);
    expect(independent('def test_nothing():\n    assert True')).toEqual(['test_nothing()']);
  });

  it('are not confused with tests that reach the program, however indirectly', () => {
    for (const source of [
      'assert add(1, 2) == 3',
      'r = add(2, 3)\nassert r == 5',
      'def check(candidate):\n    assert candidate(1) == 2\ncheck(inc)',
      'def check():\n    assert add(1, 2) == 3\ncheck()',
      'for args, want in [((1, 2), 3)]:\n    assert add(*args) == want',
      'assert f(xs=[1], key=len) == [1]',
      'xs = [3, 1]\nsort_in_place(xs)\nassert xs == [1, 3]',
      'assert f"{add(1, 2)}" == "3"',
      'import math\nassert math.isclose(area(1), math.pi)',
      'class T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(add(1, 2), 3)',
      'def test_add():\n    assert add(1, 2) == 3',
      'calls = 0\nassert counter() == 1',
    ])
      expect({ source, found: independent(source) }).toEqual({ source, found: [] });
  });

  it('finds none in the built-in tasks and the judge suites', () => {
    for (const task of TASKS_BY_ID.values())
      if (task.tests)
        expect({ id: task.id, found: programIndependentTests(task.tests) }).toEqual({
          id: task.id,
          found: [],
        });
    for (const c of [...MEANING_CASES, ...FORM_CASES, ...BENCHMARK_CASES])
      expect({ name: c.name, found: independent(c.tests) }).toEqual({ name: c.name, found: [] });
  });

  it('makes a custom task a problem that names the test and the fix', () => {
    const problems = customTaskProblems(
      { prompt: 'p', tests: 'assert 1 == 1\nassert add(1, 2) == 3' },
      'custom task 1',
    );
    expect(problems.join('\n')).toContain('assert 1 == 1');
    expect(problems.join('\n')).toContain('every program');
  });
});
