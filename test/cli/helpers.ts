// Runs the CLI as `npm run cli` does (`node scripts/relaxed-simd.mjs src/cli.ts …` in a subprocess)
// and parses its JSON output.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const run = promisify(execFile);

/** Exit code and stdout lines parsed as JSON (one object per line). */
export async function cliLines(
  ...args: string[]
): Promise<{ code: number; lines: Record<string, unknown>[] }> {
  const parse = (stdout: string) =>
    stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  try {
    const { stdout } = await run(
      process.execPath,
      ['scripts/relaxed-simd.mjs', 'src/cli.ts', ...args],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
    );
    return { code: 0, lines: parse(stdout) };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, lines: parse(failed.stdout) };
  }
}

/** Exit code and the single JSON object a command prints. */
export async function cli(
  ...args: string[]
): Promise<{ code: number; json: Record<string, unknown> }> {
  const { code, lines } = await cliLines(...args);
  return { code, json: lines[0] ?? {} };
}
