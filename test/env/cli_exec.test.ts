// `npm run --silent cli -- exec` as a subprocess (the exact command checks use): the exact output format other checks rely on.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function runCli(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'cli', '--', ...args],
      { cwd: root, timeout: 120_000 },
      (error, stdout) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout });
      },
    );
  });
}

describe('cli exec', () => {
  it('prints one JSON line per file, each a new episode in one sandbox', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-exec-'));
    const files = {
      'hello.py': "print('hello')\nimport sys\nprint('oops', file=sys.stderr)\nx = 1\n",
      'fresh.py': "print('x' in globals())\n",
      'loop.py': 'while True:\n    pass\n',
      'error.py': 'raise ValueError("bad")\n',
    };
    for (const [name, code] of Object.entries(files)) writeFileSync(join(dir, name), code);
    const { code, stdout } = await runCli([
      'exec',
      '--timeout-ms',
      '1500',
      ...Object.keys(files).map((name) => join(dir, name)),
    ]);
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual([
      { observation: 'hello\noops\n', done: false },
      { observation: 'False\n', done: false },
      { observation: 'TIMEOUT', done: true },
      {
        observation:
          'Traceback (most recent call last):\n  File "main.py", line 1, in <module>\n    raise ValueError("bad")\nValueError: bad\n',
        done: false,
      },
    ]);
  });

  it('reports bad usage as {"error"} with a non-zero exit', async () => {
    const missing = await runCli(['exec', '/no/such/file.py']);
    expect(missing.code).not.toBe(0);
    expect(JSON.parse(missing.stdout)).toEqual({ error: 'cannot read /no/such/file.py: ENOENT' });
    const none = await runCli(['exec']);
    expect(JSON.parse(none.stdout).error).toMatch(/exec needs at least one FILE/);
    const badTimeout = await runCli(['exec', '--timeout-ms', 'soon', '/x.py']);
    expect(JSON.parse(badTimeout.stdout).error).toMatch(/--timeout-ms must be a number/);
  });
});
