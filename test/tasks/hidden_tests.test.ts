// The judge's split of hidden tests (src/tasks/tests_harness.ts) and the Python literals it parses
// (src/tasks/python_literal.ts): every built-in `assert EXPR == VALUE` test splits, its VALUE
// parses, and comparison follows Python's `==` for plain data (src/env/plain_value.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_TASKS } from '../../src/tasks/builtin/index.ts';
import { SEED_TASKS } from '../../src/tasks/seed.ts';
import { customTask } from '../../src/tasks/custom.ts';
import { parsePythonLiteral } from '../../src/tasks/python_literal.ts';
import {
  hiddenTests,
  isAssertTest,
  parseTestsReport,
  splitTest,
  testCount,
} from '../../src/tasks/tests_harness.ts';
import {
  decodePlain,
  formatPlain,
  plainEquals,
  type PlainValue,
} from '../../src/env/plain_value.ts';

const lit = (source: string): PlainValue => {
  const value = parsePythonLiteral(source);
  if (value === null) throw new Error(`not a literal: ${source}`);
  return value;
};
const int = (n: number | bigint): PlainValue => ({ type: 'int', value: BigInt(n) });

describe('parsePythonLiteral', () => {
  it('parses numbers of any size, negative numbers and floats', () => {
    expect(lit('42')).toEqual(int(42));
    expect(lit('-7')).toEqual(int(-7));
    expect(lit('1_000')).toEqual(int(1000));
    expect(lit('0x1f')).toEqual(int(31));
    expect(lit('0o17')).toEqual(int(15));
    expect(lit('0b101')).toEqual(int(5));
    expect(lit('123456789012345678901234567890')).toEqual(int(123456789012345678901234567890n));
    expect(lit('2.5')).toEqual({ type: 'float', value: 2.5 });
    expect(lit('-1e-9')).toEqual({ type: 'float', value: -1e-9 });
    expect(lit('.5')).toEqual({ type: 'float', value: 0.5 });
    expect(lit('5.')).toEqual({ type: 'float', value: 5 });
    expect(lit('97.9')).toEqual({ type: 'float', value: 97.9 });
  });

  it('parses strings with quotes, escapes, prefixes and concatenation', () => {
    expect(lit("'abc'")).toEqual({ type: 'str', value: 'abc' });
    expect(lit('"it\'s"')).toEqual({ type: 'str', value: "it's" });
    expect(lit("'a\\tb\\nc'")).toEqual({ type: 'str', value: 'a\tb\nc' });
    expect(lit("'\\x41\\u00e9\\U0001F600\\101'")).toEqual({ type: 'str', value: 'Aé😀A' });
    expect(lit("r'a\\n'")).toEqual({ type: 'str', value: 'a\\n' });
    expect(lit("'''x'y'''")).toEqual({ type: 'str', value: "x'y" });
    expect(lit("'a' 'b'")).toEqual({ type: 'str', value: 'ab' });
    expect(lit("'\\q'")).toEqual({ type: 'str', value: '\\q' });
  });

  it('parses constants and containers', () => {
    expect(lit('True')).toEqual({ type: 'bool', value: true });
    expect(lit('None')).toEqual({ type: 'none' });
    expect(lit('[1, [2, 3], []]')).toEqual({
      type: 'list',
      items: [int(1), { type: 'list', items: [int(2), int(3)] }, { type: 'list', items: [] }],
    });
    expect(lit('(1,)')).toEqual({ type: 'tuple', items: [int(1)] });
    expect(lit('(1)')).toEqual(int(1));
    expect(lit('()')).toEqual({ type: 'tuple', items: [] });
    expect(lit("{'a': 1, 'b': [2]}")).toEqual({
      type: 'dict',
      entries: [
        [{ type: 'str', value: 'a' }, int(1)],
        [
          { type: 'str', value: 'b' },
          { type: 'list', items: [int(2)] },
        ],
      ],
    });
    expect(lit('{}')).toEqual({ type: 'dict', entries: [] });
    expect(lit('{1, 2, 1}')).toEqual({ type: 'set', items: [int(1), int(2)] });
  });

  it('refuses what is not one literal', () => {
    for (const source of [
      'x',
      'f(1)',
      '1 + 2',
      "b'x'",
      "f'{x}'",
      '1j',
      '[1, x]',
      '1, 2',
      '012',
      '{[1]: 2}',
      "'a",
      '',
      'True False',
    ]) {
      expect(parsePythonLiteral(source), source).toBeNull();
    }
  });
});

describe('plainEquals (Python ==)', () => {
  it('follows the numeric tower, container kinds, and order-free dicts and sets', () => {
    expect(plainEquals(int(1), lit('1.0'))).toBe(true);
    expect(plainEquals(int(1), lit('True'))).toBe(true);
    expect(plainEquals(int(0), lit('False'))).toBe(true);
    expect(plainEquals(lit('0.1 '), lit('0.1'))).toBe(true);
    expect(plainEquals(int(2), lit('2.5'))).toBe(false);
    expect(plainEquals(lit('[1, 2]'), lit('(1, 2)'))).toBe(false);
    expect(plainEquals(lit("{'a': 1, 'b': 2}"), lit("{'b': 2, 'a': 1}"))).toBe(true);
    expect(plainEquals(lit('{1: 2}'), lit('{1.0: 2.0}'))).toBe(true);
    expect(plainEquals(lit('{1, 2}'), lit('{2, 1}'))).toBe(true);
    expect(plainEquals(lit("'a'"), lit('"a"'))).toBe(true);
    expect(plainEquals(lit("'a'"), lit("'A'"))).toBe(false);
    expect(plainEquals(lit('None'), lit('0'))).toBe(false);
    expect(plainEquals(lit('[[1], {2: (3,)}]'), lit('[[1.0], {2: (3,)}]'))).toBe(true);
    expect(plainEquals(int(10n ** 30n), lit('1e30'))).toBe(false); // 1e30 is not exactly 10**30
    expect(plainEquals(int(2n ** 70n), { type: 'float', value: 2 ** 70 })).toBe(true);
  });

  it('decodes the harness encoding, big ints and float specials included', () => {
    expect(decodePlain(['i', '-ff'])).toEqual(int(-255));
    expect(decodePlain(['f', 'inf'])).toEqual({ type: 'float', value: Infinity });
    expect(plainEquals(decodePlain(['f', 'nan']), decodePlain(['f', 'nan']))).toBe(false);
    expect(
      formatPlain(
        decodePlain([
          'd',
          [
            [
              ['s', 'a'],
              ['l', [['b', true], ['n']]],
            ],
          ],
        ]),
      ),
    ).toBe("{'a': [True, None]}");
    expect(() => decodePlain(['x', 1])).toThrow();
  });
});

describe('splitTest', () => {
  it('splits assert EXPR == VALUE and leaves every other form a statement', () => {
    expect(splitTest('assert add(1, 2) == 3')).toMatchObject({
      kind: 'value',
      expr: 'add(1, 2)',
      expected: int(3),
    });
    expect(splitTest("assert f('a == b') == 'x'  # note")).toMatchObject({
      kind: 'value',
      expr: "f('a == b')",
      expected: { type: 'str', value: 'x' },
    });
    expect(splitTest('assert f([1, 2] == [1]) == -1')).toMatchObject({
      kind: 'value',
      expr: 'f([1, 2] == [1])',
      expected: int(-1),
    });
    for (const source of [
      'assert is_prime(7)',
      'assert f(x) != 3',
      'assert abs(f(2) - 1.5) < 1e-9',
      'a = [1]; f(a); assert a == [1]',
      'assert not f(1) == 2',
      'assert f(1) == 2, "message"',
      'assert f(1) == g(2)',
      'assert f(1) == 2 == 2',
      'assert f(1) == 1 and g() == 2',
      'assert x if y else z == 1',
      'assert f() is None',
      "assert f() == b'x'",
      'assert (f(1) == 2)',
      'x = f()\nassert x == 1',
      'assert f(1) <= 2',
    ]) {
      expect(splitTest(source).kind, source).toBe('statement');
    }
  });

  it('splits every built-in `assert EXPR == VALUE` test and parses its VALUE', () => {
    let values = 0;
    for (const task of [...SEED_TASKS, ...BUILTIN_TASKS]) {
      for (const source of task.tests ?? []) {
        const test = splitTest(source);
        const simple =
          /^assert [^;\n]*==/.test(source) && !/ and | is |isinstance|, "/.test(source);
        if (simple) expect(test.kind, `${task.id}: ${source}`).toBe('value');
        if (test.kind === 'value') {
          values++;
          expect(parsePythonLiteral(source.slice(source.lastIndexOf('==') + 2))).toEqual(
            test.expected,
          );
        }
      }
    }
    expect(values).toBeGreaterThan(100);
  });

  it('makes a statement with no assert a setup line, counted by no one', () => {
    for (const source of [
      'r = add(2, 3)',
      'import math',
      'def helper(x):\n    return x * 2',
      'xs = [add(i, i) for i in range(3)]',
      "print('assert')",
    ])
      expect(splitTest(source), source).toEqual({ kind: 'setup', source });
    for (const source of [
      'for i in range(3):\n    assert add(i, 1) == i + 1',
      'a = [1]; f(a); assert a == [1]',
      'a = [1];assert a',
      'assert(f(1))',
    ])
      expect(isAssertTest(source), source).toBe(true);
    expect(testCount(['r = add(2, 3)', 'assert r == 5', 's = r', 'assert s == 5'])).toBe(2);
    for (const task of [...SEED_TASKS, ...BUILTIN_TASKS])
      expect(testCount(task.tests ?? []), task.id).toBe(task.tests?.length ?? 0);
  });

  it("docs/sandbox.md's count of value tests and its list of statement-form ones are true", () => {
    const docs = readFileSync(join(import.meta.dirname, '../../docs/sandbox.md'), 'utf8').replace(
      /\s+/g,
      ' ',
    );
    const claim =
      /Of the (\d+) built-in tests, (\d+) are value tests; the statement-form ones are the (\w+) that check an argument is not mutated, one each in ((?:`\w+`(?:, | and )?)+)/.exec(
        docs,
      );
    expect(claim, 'the sentence in docs/sandbox.md').not.toBeNull();
    const [, all, values, , listed] = claim!;
    const tests = [...SEED_TASKS, ...BUILTIN_TASKS].flatMap((task) =>
      (task.tests ?? []).map((source) => ({ id: task.id, kind: splitTest(source).kind })),
    );
    expect(tests.length).toBe(Number(all));
    expect(tests.filter((t) => t.kind === 'value').length).toBe(Number(values));
    const statementTasks = tests.filter((t) => t.kind !== 'value').map((t) => t.id);
    expect(statementTasks).toEqual([...listed!.matchAll(/`(\w+)`/g)].map((m) => `builtin/${m[1]}`));
  });

  it('splits custom tasks the same way', () => {
    const task = customTask(
      {
        prompt: 'add',
        tests: 'assert add(2, 3) == 5\nassert add(-1, 1) == 0\nassert add(0, 0) != 1',
      },
      0,
    );
    expect(hiddenTests(task.tests!).map((t) => t.kind)).toEqual(['value', 'value', 'statement']);
  });
});

describe('parseTestsReport (the legacy harness)', () => {
  it('checks the total against the number of hidden tests', () => {
    expect(parseTestsReport('n0nce 3 3\n', 'n0nce', 3)).toEqual({ passed: 3, total: 3 });
    expect(parseTestsReport('n0nce 1 1\n', 'n0nce', 3)).toBeNull();
    expect(parseTestsReport('n0nce 4 3\n', 'n0nce')).toBeNull();
  });
});
