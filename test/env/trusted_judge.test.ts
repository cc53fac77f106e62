// The trusted interpreter's side of a crossing (src/env/trusted_judge.ts, python/trusted.py,
// python/crossing.py), with a planted program side: malformed replies fail the one test that made
// the call, and the judgement goes on; a reply without its reasons stops it; a request carries the
// operation's values and nothing of the test.
import { loadPyodide } from 'pyodide';
import { beforeAll, describe, expect, it } from 'vitest';
import { TrustedJudge } from '../../src/env/trusted_judge.ts';
import type { JudgeProbe, RawTestResult } from '../../src/env/types.ts';

let trusted: TrustedJudge;

beforeAll(async () => {
  trusted = await TrustedJudge.load(loadPyodide, undefined, undefined);
}, 120_000);

/** judge.py's answer: the reasons, a newline, [kind, tokens, after, random state, out, err]. */
const answer = (tokens: unknown, kind = 'value') =>
  `[]\n${JSON.stringify([kind, tokens, [], null, '', '', 1])}`;

/** The program's interpreter, planted: its global `f` is a callable whose calls answer `reply`. */
function judgeWith(reply: (request: string) => string, tests: readonly JudgeProbe[]) {
  const requests: string[] = [];
  const call = ((request: string) => {
    requests.push(request);
    const [op] = JSON.parse(request) as [string];
    return op === 'get' ? answer(['h', [0, 1]]) : reply(request);
  }) as never;
  const { results } = trusted.run(call, '[null, 1]', tests, () => {});
  return { results, requests };
}

const statement = (source: string): JudgeProbe => ({ kind: 'statement', source });

describe('the trusted judge, against planted replies', () => {
  it('passes a test on a well-formed reply, and sends the values only', () => {
    const { results, requests } = judgeWith(
      () => answer(['i', 42]),
      [statement("secret = 'expected'\nassert f(1, [2], k='x') == 42, secret")],
    );
    expect(results).toEqual([{ status: 'pass' }]);
    const sent = requests.map((r) => JSON.parse(r) as unknown[]);
    expect(sent.map((r) => r.slice(0, 3))).toEqual([
      ['get', 'f', null],
      // (args, kwargs): a tuple of (1, [2]) and {'k': 'x'}, as flat tokens.
      // (args, keyword pairs); the list is numbered (0): tied to its copy on the other side.
      ['call', 0, ['t', 2, 't', 2, 'i', 1, 'l', 0, 1, 'i', 2, 't', 1, 't', 2, 's', 'k', 's', 'x']],
    ]);
    expect(requests.join()).not.toContain('expected');
  });

  it('keeps the types a reply names: tuple, bytes, complex, a set in a set, deep nesting', () => {
    const deep = [...Array(300).fill(['l', -1, 1]).flat(), 'N'];
    const replies: Record<string, unknown> = {
      tuple: ['t', 2, 'i', 1, 'i', 2],
      bytes: ['y', 'ab'],
      complex: ['c', 1, -2],
      frozen: ['S', -1, 1, 'z', 1, 'i', 1],
      deep,
    };
    const { results } = judgeWith(
      (request) => answer(replies[/"s", ?"(\w+)"/.exec(request)![1]!]),
      [
        statement("assert f('tuple') == (1, 2) and type(f('tuple')) is tuple"),
        statement("assert f('bytes') == b'ab'"),
        statement("assert f('complex') == 1 - 2j"),
        statement("assert f('frozen') == {frozenset({1})}"),
        statement(
          "x = f('deep')\nn = 0\nwhile x is not None:\n    x = x[0]\n    n += 1\nassert n == 300",
        ),
      ],
    );
    expect(results).toEqual(Array(5).fill({ status: 'pass' }));
  });

  it('fails a test on each malformed reply, and goes on', () => {
    const malformed = [
      answer(['bogus']),
      answer([]),
      answer(['i', 'zz']),
      answer(['l', -1, 'not a count']),
      answer(['l', -1, 2, 'i', 1]),
      answer(['i', 1, 'i', 2]),
      answer(['S', -1, 1, 'l', -1, 0]),
      answer(['t', 1, '@', 0]),
      answer(['H', 99]),
      answer(['a', 999]),
      answer(['A', 0]),
      answer(['g', ['builtins', 'exec']]),
      answer(['g', ['os', 'system']]),
      answer(['R', ['builtins', 'eval'], 't', 1, 's', '1']),
      answer(5, 'raised'),
      `[]\n${JSON.stringify(['value'])}`,
      '[]\nnot json',
    ];
    let index = 0;
    const { results } = judgeWith(
      (request) => (request.includes('"next"') ? malformed[index++]! : answer(['i', 1])),
      [...malformed.map(() => statement("f('next')")), statement("assert f('ok') == 1")],
    );
    expect(index).toBe(malformed.length);
    expect(results.slice(-1)).toEqual([{ status: 'pass' }]);
    for (const [i, result] of results.slice(0, -1).entries())
      expect({ reply: malformed[i]!.slice(0, 80), result }).toEqual({
        reply: malformed[i]!.slice(0, 80),
        result: { status: 'error', error: expect.any(String) } satisfies RawTestResult,
      });
  });

  it('stops the judgement on a reply without its reasons, and says why', () => {
    expect(() => judgeWith(() => JSON.stringify(['value', ['N']]), [statement("f('x')")])).toThrow(
      'the judge replied without its reasons',
    );
    // The next judgement starts clean.
    expect(judgeWith(() => answer(['T']), [statement('assert f() is True')]).results).toEqual([
      { status: 'pass' },
    ]);
  });
});
