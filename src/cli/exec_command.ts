// `npm run --silent cli -- exec [--timeout-ms MS] FILE...` (docs/architecture.md §8): runs each
// file as a new episode in one sandbox, one after another, and prints one JSON line per file:
// {"observation": …, "done": …}. Checks outside the test suite rely on this exact format.
import { readFile } from 'node:fs/promises';
import { Environment } from '../env/environment.ts';
import { createNodeSandboxPool } from '../env/node_pool.ts';
import { numberOption, type CliArgs } from './args.ts';

/** Runs the files and prints their observations; throws (→ {"error"}) on bad arguments. */
export async function execCommand(args: CliArgs): Promise<void> {
  const files = args.positional;
  if (files.length === 0)
    throw new Error(
      'exec needs at least one FILE: npm run --silent cli -- exec [--timeout-ms MS] FILE...',
    );
  const timeoutMs = numberOption(args, 'timeout-ms', 10_000);
  if (timeoutMs <= 0) throw new Error(`--timeout-ms must be positive, got ${timeoutMs}`);
  const unknown = [...args.options.keys(), ...args.flags].filter((name) => name !== 'timeout-ms');
  if (unknown.length > 0)
    throw new Error(`exec: unknown option --${unknown[0]}; usage: exec [--timeout-ms MS] FILE...`);
  const programs = await Promise.all(
    files.map(async (file) => {
      try {
        return await readFile(file, 'utf8');
      } catch (error) {
        throw new Error(
          `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        );
      }
    }),
  );
  const pool = await createNodeSandboxPool({ size: 1, spares: 1, timeoutMs });
  try {
    const environment = new Environment(pool);
    for (const code of programs) {
      await environment.reset();
      const { observation, done } = await environment.step('execute_code', { code });
      process.stdout.write(`${JSON.stringify({ observation, done })}\n`);
    }
  } finally {
    await pool.close();
  }
}
