// The trusted interpreter's side of a crossing (src/env/trusted_judge.ts, python/trusted.py), with
// a planted program side: replies past the 8 MB cap and malformed replies fail the one test that
// made the call, and the judgement goes on; a reply that is not JSON stops it; a request carries the
// call's arguments and nothing of the test.
import { loadPyodide } from 'pyodide';
import { beforeAll, describe, expect, it } from 'vitest';
import { TrustedJudge } from '../../src/env/trusted_judge.ts';
import type { JudgeProbe, RawTestResult } from '../../src/env/types.ts';

let trusted: TrustedJudge;

beforeAll(async () => {
  trusted = await TrustedJudge.load(loadPyodide, undefined, undefined);
}, 120_000);

/** The program's interpreter, planted: `f` answers `reply` (judge.py's `[reply, reasons]` text). */
function judgeWith(reply: (request: string) => string, tests: readonly JudgeProbe[]) {
  const requests: string[] = [];
  const call = ((request: string) => {
    requests.push(request);
    return reply(request);
  }) as never;
  const names = JSON.stringify({ f: ['call'] });
  const { results } = trusted.run(call, names, tests, () => {});
  return { results, requests };
}

const statement = (source: string): JudgeProbe => ({ kind: 'statement', source });
const answer = (value: unknown) => JSON.stringify([['value', value], []]);
const fails = (what: string): RawTestResult => ({ status: 'error', error: what });

describe('the trusted judge, against planted replies', () => {
  it('passes a test on a well-formed reply, and sends the arguments only', () => {
    const { results, requests } = judgeWith(
      () => answer(['i', '2a']),
      [statement("secret = 'expected'\nassert f(1, [2], k='x') == 42, secret")],
    );
    expect(results).toEqual([{ status: 'pass' }]);
    expect(requests.map((r) => JSON.parse(r))).toEqual([
      [
        'call',
        'f',
        [
          'l',
          [
            ['i', '1'],
            ['l', [['i', '2']]],
          ],
        ],
        [
          'd',
          [
            [
              ['s', 'k'],
              ['s', 'x'],
            ],
          ],
        ],
      ],
    ]);
    expect(requests.join()).not.toContain('expected');
  });

  it('fails the one test whose reply is past the 8 MB cap, and goes on', () => {
    const big = answer(['s', 'x'.repeat(8 * 2 ** 20 + 1)]);
    const small = answer(['i', '1']);
    const { results } = judgeWith(
      (request) => (request.includes('"big"') ? big : small),
      [
        statement("assert len(f('big')) > 0"),
        { kind: 'value', expr: "f('big')" },
        statement("assert f('small') == 1"),
      ],
    );
    expect(results).toEqual([fails('TypeError'), fails('TypeError'), { status: 'pass' }]);
  });

  it('fails a test on each malformed reply, and goes on', () => {
    const malformed = [
      JSON.stringify([['bogus'], []]),
      JSON.stringify([[], []]),
      JSON.stringify([['value'], []]),
      JSON.stringify([['value', ['i', 'zz']], []]),
      JSON.stringify([['value', ['l', 'not a list']], []]),
      JSON.stringify([['value', ['q', 1]], []]),
      JSON.stringify([
        [
          'value',
          [
            'd',
            [
              [
                ['l', []],
                ['i', '1'],
              ],
            ],
          ],
        ],
        [],
      ]),
      JSON.stringify([
        ['value', JSON.parse(`${'["l",['.repeat(300)}["n"]${']]'.repeat(300)}`)],
        [],
      ]),
      JSON.stringify([['value', ['n'], [['l', 'x']]], []]),
      JSON.stringify([['raised', 5], []]),
    ];
    let index = 0;
    const { results } = judgeWith(
      (request) => (request.includes('"next"') ? malformed[index++]! : answer(['i', '1'])),
      [...malformed.map(() => statement("f('next')")), statement("assert f('ok') == 1")],
    );
    expect(index).toBe(malformed.length);
    expect(results.slice(-1)).toEqual([{ status: 'pass' }]);
    for (const [i, result] of results.slice(0, -1).entries())
      expect({ reply: malformed[i]!.slice(0, 80), result }).toEqual({
        reply: malformed[i]!.slice(0, 80),
        result: { status: 'error', error: expect.any(String) },
      });
  });

  it('stops the judgement on a reply that is not JSON or not a pair, and says why', () => {
    expect(() => judgeWith(() => 'not json {', [statement("f('x')")])).toThrow(/JSON/);
    for (const reply of [JSON.stringify(7), JSON.stringify([['value', ['n']]])])
      expect(() => judgeWith(() => reply, [statement("f('x')")])).toThrow(
        'the judge replied with something other than [reply, reasons]',
      );
    // The next judgement starts clean.
    expect(judgeWith(() => answer(['b', true]), [statement('assert f() is True')]).results).toEqual(
      [{ status: 'pass' }],
    );
  });
});
