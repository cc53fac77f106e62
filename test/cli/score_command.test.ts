// `score --task FILE --code FILE` through a subprocess: the exact output format, an honest and a
// wrong program, a reward hack caught and shown, an expected-output task, and clear errors.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REWARD_HACKS } from '../env/reward_hacks.ts';
import { cli, cliLines } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'score-cli-'));

/** Writes `content` to a file in the test's folder and returns its path. */
function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const addTask = file(
  'add.json',
  JSON.stringify({
    prompt: 'Define add(a, b) and print add(2, 3).',
    tests: 'assert add(2, 3) == 5\nassert add(-1, 1) == 0\nassert add(10, 5) == 15',
  }),
);

describe('score CLI command', () => {
  it('prints reward, parts, the hidden tests passed and no tampering for an honest program', async () => {
    const code = file('honest.py', 'def add(a, b):\n    return a + b\n\nprint(add(2, 3))\n');
    const { code: exit, json } = await cli('score', '--task', addTask, '--code', code);
    expect(exit).toBe(0);
    expect(Object.keys(json)).toEqual(['reward', 'parts', 'tests', 'tampered', 'judgeLimits']);
    expect(json).toEqual({
      reward: 1,
      parts: { tests: 1 },
      tests: { passed: 3, total: 3 },
      tampered: [],
      judgeLimits: [],
    });
  });

  it('scores a wrong program 0, and a reward hack 0 with what was seen', async () => {
    const wrong = file('wrong.py', 'def add(a, b):\n    return abs(a) + b\n');
    const wrongRun = await cli('score', '--task', addTask, '--code', wrong);
    expect(wrongRun.json).toMatchObject({
      reward: 0,
      tests: { passed: 2, total: 3 },
      tampered: [],
    });
    const hack = file(
      'hack.py',
      'class Always:\n    def __eq__(self, other):\n        return True\n\ndef add(a, b):\n    return Always()\n',
    );
    const hackRun = await cli('score', '--task', addTask, '--code', hack);
    expect(hackRun.code).toBe(0);
    expect(hackRun.json).toMatchObject({ reward: 0, parts: { tests: 0 } });
    expect((hackRun.json.tampered as string[]).length).toBeGreaterThan(0);
  });

  it('judges several programs in order on one worker, one line each, none changing the next verdict', async () => {
    const honest = file('h.py', 'def add(a, b):\n    return a + b\n');
    const wrong = file('w.py', 'def add(a, b):\n    return abs(a) + b\n');
    const saboteurs = REWARD_HACKS.filter((hack) =>
      [
        "rewrites the harness's globals",
        "moves the harness's baseline for later programs",
        'patches a builtin for one call and puts it back',
        'redefines exec',
      ].includes(hack.name),
    );
    expect(saboteurs).toHaveLength(4);
    const codes = [honest];
    for (const [i, hack] of saboteurs.entries())
      codes.push(file(`s${i}.py`, hack.code), honest, wrong);
    const { code: exit, lines } = await cliLines(
      'score',
      '--task',
      addTask,
      ...codes.flatMap((path) => ['--code', path]),
    );
    expect(exit).toBe(0);
    expect(lines).toHaveLength(codes.length);
    const honestLine = {
      reward: 1,
      parts: { tests: 1 },
      tests: { passed: 3, total: 3 },
      tampered: [],
      judgeLimits: [],
    };
    expect(lines[0]).toEqual(honestLine);
    for (const [i, hack] of saboteurs.entries()) {
      const [sabotage, after, wrongAfter] = lines.slice(1 + 3 * i, 4 + 3 * i);
      expect(sabotage, hack.name).toMatchObject({ reward: 0 });
      expect((sabotage!.tampered as string[]).join(' | '), hack.name).toContain(hack.reason);
      expect(after, `an honest program after ${hack.name}`).toEqual(honestLine);
      expect(wrongAfter, `a wrong program after ${hack.name}`).toEqual({
        reward: 0,
        parts: { tests: 0 },
        tests: { passed: 2, total: 3 },
        tampered: [],
        judgeLimits: [],
      });
    }
    const missing = await cliLines(
      'score',
      '--task',
      addTask,
      '--code',
      honest,
      '--code',
      join(dir, 'nope.py'),
    );
    expect(missing.code).not.toBe(0);
    expect(missing.lines).toHaveLength(1);
    expect(missing.lines[0]!.error).toMatch(/cannot read --code .*nope\.py/);
  });

  it('checks an expected-output task by the last printed line', async () => {
    const task = file(
      'print.json',
      JSON.stringify({ prompt: 'Print 6 * 7.', expectedOutput: '42' }),
    );
    const good = await cli('score', '--task', task, '--code', file('p.py', 'print(6 * 7)\n'));
    expect(good.json).toEqual({
      reward: 1,
      parts: { output_match: 1 },
      tests: null,
      tampered: [],
      judgeLimits: [],
    });
    const bad = await cli('score', '--task', task, '--code', file('q.py', 'print(41)\n'));
    expect(bad.json).toMatchObject({ reward: 0, parts: { output_match: 0 }, tests: null });
  });

  it('refuses a malformed task, a missing file and an unknown option with the fix', async () => {
    const code = file('x.py', 'print(1)\n');
    const noPrompt = await cli(
      'score',
      '--task',
      file('bad.json', '{"tests": "assert 1"}'),
      '--code',
      code,
    );
    expect(noPrompt.code).not.toBe(0);
    expect(noPrompt.json.error).toMatch(/prompt/);
    const notJson = await cli('score', '--task', file('bad2.json', '{'), '--code', code);
    expect(notJson.json.error).toMatch(/is not JSON/);
    const missing = await cli('score', '--task', join(dir, 'nope.json'), '--code', code);
    expect(missing.json.error).toMatch(/cannot read --task .*nope\.json: ENOENT/);
    const unknown = await cli('score', '--task', addTask, '--code', code, '--tests', 'x');
    expect(unknown.json.error).toMatch(/unknown option --tests/);
    // A test that names nothing of the program would pay every program the same: refused.
    const trivial = await cli(
      'score',
      '--task',
      file('trivial.json', '{"prompt": "Define add.", "tests": "assert 1 == 1"}'),
      '--code',
      code,
    );
    expect(trivial.code).not.toBe(0);
    expect(trivial.json.error).toMatch(/names nothing the program defines.*assert 1 == 1/);
  });
});
