// Runs corpus programs in the project's Pyodide sandbox runner (src/env/runner.ts) in-process, so
// the observations in the corpus are exactly what the agent sees: the same harness, the same
// tail-capped stdout+stderr, the same tracebacks. The programs are our own templates (trusted and
// terminating), so no worker, deadline or scope hardening is needed here.
import { loadPyodide } from 'pyodide';
import { SandboxRunner } from '../../src/env/runner.ts';
import type { CodeExecutor, ExecOutcome } from '../../src/env/types.ts';

/** The agent's default observation cap (RunConfig maxOutputChars). */
export const OUTPUT_CHARS = 500;

/** A CodeExecutor over one in-process Pyodide runner; call `close()` when done. */
export async function sandboxExecutor(): Promise<CodeExecutor> {
  const runner = new SandboxRunner({ loadPyodide, hardenScope: () => [] });
  await runner.init({
    maxOutputChars: OUTPUT_CHARS,
    maxCaptureChars: 10_000,
    memoryCapBytes: 512 * 2 ** 20,
  });
  return {
    async execute(code: string): Promise<ExecOutcome> {
      const raw = await runner.execute(code);
      if (raw.fatal) throw new Error(`the Pyodide runtime died running a corpus program:\n${code}`);
      return { ok: raw.ok, observation: raw.combined, timedOut: false, error: raw.error };
    },
  };
}
