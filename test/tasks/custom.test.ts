// Custom tasks: validation that says how to fix, test splitting, and a round trip.
import { describe, expect, it } from 'vitest';
import {
  customTask,
  customTaskInput,
  customTaskProblems,
  customTasksProblems,
  splitTests,
} from '../../src/tasks/custom.ts';

const problems = (input: unknown) => customTaskProblems(input, 'custom task 1');

describe('custom task validation', () => {
  it('accepts an expected output or tests', () => {
    expect(problems({ prompt: 'Print 2 + 3.', expectedOutput: '5' })).toEqual([]);
    expect(problems({ prompt: 'Define add(a, b).', tests: 'assert add(2, 3) == 5' })).toEqual([]);
  });

  it('explains each problem with a fix', () => {
    expect(problems({ prompt: '  ', expectedOutput: '5' })).toEqual([
      expect.stringMatching(/prompt is empty. Fix: say what the program should do/),
    ]);
    expect(problems({ prompt: 'p', expectedOutput: '5', tests: 'assert f() == 1' })).toEqual([
      expect.stringMatching(/both .* Fix: keep one/),
    ]);
    expect(problems({ prompt: 'p' })).toEqual([
      expect.stringMatching(/neither .* Fix: add the line/),
    ]);
    expect(problems({ prompt: 'p', expectedOutput: '1\n2' })).toEqual([
      expect.stringMatching(/several lines.*Fix: give just that last line/),
    ]);
    expect(problems({ prompt: 'x'.repeat(2001), expectedOutput: '1' })).toEqual([
      expect.stringMatching(/2001 characters, over the limit of 2000. Fix: shorten/),
    ]);
    expect(problems({ prompt: 'p', tests: 'add(2, 3) == 5' })).toEqual([
      expect.stringMatching(/no assert statement.*Fix/),
    ]);
    expect(problems({ prompt: 'p', expected: '5' })).toEqual([
      expect.stringMatching(
        /unknown field "expected". Fix: use only prompt, expectedOutput and tests/,
      ),
    ]);
    expect(problems({ prompt: 5, expectedOutput: '5' })).toEqual([
      expect.stringMatching(/prompt must be text.*Fix/),
    ]);
    expect(problems('Print 5')).toEqual([expect.stringMatching(/Fix: write it as/)]);
  });

  it('checks the list: type, count and each entry with its position', () => {
    expect(customTasksProblems({})).toEqual([expect.stringMatching(/must be a list.*Fix/)]);
    expect(
      customTasksProblems(Array.from({ length: 21 }, () => ({ prompt: 'p', expectedOutput: '1' }))),
    ).toEqual([expect.stringMatching(/21 custom tasks.*Fix: remove some/)]);
    expect(
      customTasksProblems([
        { prompt: 'p', expectedOutput: '1' },
        { prompt: '', expectedOutput: '1' },
      ]),
    ).toEqual([expect.stringMatching(/^custom task 2: the prompt is empty/)]);
  });
});

describe('custom tasks', () => {
  it('splits tests into statements; indented lines continue one', () => {
    expect(
      splitTests(
        'assert f(1) == 1\n# a comment\n\nfor x in range(3):\n    assert f(x) >= 0\n\n    assert True\nassert f(0) == 0\n',
      ),
    ).toEqual([
      'assert f(1) == 1',
      'for x in range(3):\n    assert f(x) >= 0\n    assert True',
      'assert f(0) == 0',
    ]);
  });

  it('keeps a compound statement, open brackets, strings and decorators in one statement, as Python reads them', () => {
    const q = '"'.repeat(3);
    const source = [
      'try:',
      "    f('x')",
      '    raised = False',
      'except ValueError:',
      '    raised = True',
      'else:',
      '    pass',
      'finally:',
      '    done = True',
      'assert raised',
      'if f(1):',
      '    a = 1',
      'elif f(2):',
      '    a = 2',
      'assert f([',
      '    1,',
      '',
      ']) == [1]',
      "assert f('(') == '('  # a bracket in a string",
      `doc = ${q}`,
      'assert inside',
      q,
      'total = 1 + \\',
      '    2',
      '@staticmethod',
      'def g():',
      '    return 1',
      'assert g() == 1',
    ].join('\n');
    expect(splitTests(source)).toEqual([
      "try:\n    f('x')\n    raised = False\nexcept ValueError:\n    raised = True\nelse:\n    pass\nfinally:\n    done = True",
      'assert raised',
      'if f(1):\n    a = 1\nelif f(2):\n    a = 2',
      'assert f([\n    1,\n\n]) == [1]',
      "assert f('(') == '('  # a bracket in a string",
      `doc = ${q}\nassert inside\n${q}`,
      'total = 1 + \\\n    2',
      '@staticmethod\ndef g():\n    return 1',
      'assert g() == 1',
    ]);
  });

  it('becomes a Task and back without loss (what a run link carries)', () => {
    const inputs = [
      { prompt: 'Print the sum of 1..10.', expectedOutput: '55' },
      { prompt: 'Define `add(a, b)`.', tests: 'assert add(2, 3) == 5\nassert add(-1, 1) == 0' },
    ];
    const tasks = inputs.map(customTask);
    expect(tasks.map((t) => [t.id, t.expectedOutput, t.tests])).toEqual([
      ['custom/1', '55', null],
      ['custom/2', null, ['assert add(2, 3) == 5', 'assert add(-1, 1) == 0']],
    ]);
    expect(tasks.map(customTaskInput)).toEqual(inputs);
    expect(tasks.map(customTaskInput).map(customTask)).toEqual(tasks);
    expect(() => customTask({ prompt: '' }, 2)).toThrow(/custom task 3: the prompt is empty/);
  });
});
