// A CodeExecutor backed by the machine's CPython (a subprocess per run), so task solutions and the
// tests harness are checked by a real interpreter before the Pyodide sandbox exists. Set PYTHON to
// choose the interpreter (default python3).
import { spawnSync } from 'node:child_process';
import type { CodeExecutor, ExecOutcome } from '../../src/env/types.ts';

/** The interpreter's real path: spawning a pyenv shim costs ~100 ms a run, the binary ~20 ms. */
const python = (() => {
  const name = process.env.PYTHON ?? 'python3';
  const found = spawnSync(name, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() !== '' ? found.stdout.trim() : name;
})();

/** Whether the interpreter can be started (the suite fails loudly if not). */
export function pythonVersion(): string | null {
  const result = spawnSync(python, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? (result.stdout || result.stderr).trim() : null;
}

/** Runs `code` like the sandbox does: observation = tail of stdout+stderr, TIMEOUT on timeout. */
export function runPython(code: string, timeoutMs = 10_000, maxOutputChars = 500): ExecOutcome {
  const result = spawnSync(python, ['-c', code], {
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, PYTHONHASHSEED: '0' },
  });
  if (result.error && (result.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') {
    return {
      ok: false,
      observation: 'TIMEOUT',
      timedOut: true,
      error: { type: 'Timeout', message: `ran over ${timeoutMs} ms` },
    };
  }
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  const lastErrorLine = (result.stderr ?? '').trim().split('\n').at(-1) ?? '';
  return {
    ok: result.status === 0,
    observation: output.slice(-maxOutputChars),
    timedOut: false,
    error:
      result.status === 0
        ? null
        : { type: lastErrorLine.split(':')[0] ?? 'Error', message: lastErrorLine },
  };
}

/** The sandbox interface over runPython. */
export const pythonExecutor: CodeExecutor = {
  execute: async (code, options) => runPython(code, options?.timeoutMs),
};
