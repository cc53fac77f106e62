// `npm run --silent cli -- train --link …` as a subprocess, as outside checks run it: a link
// without `v` runs (exit 0) with its notice on stderr; a link with an error exits 1 before loading.
// The in-process checks of what a link gives are train_link.test.ts.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { root } from './helpers.ts';

const run = promisify(execFile);

/** `train --link LINK` in a subprocess: exit code, stdout, stderr. */
async function trainLink(link: string) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['scripts/relaxed-simd.mjs', 'src/cli.ts', 'train', '--link', link],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('cli train --link', () => {
  it('a link without v runs the default run: metrics on stdout, exit 0', async () => {
    // the default run cut to one tiny step (the contract's #seed=7 runs all 30 steps: minutes)
    const ok = await trainLink('http://127.0.0.1/#seed=7&s=1&pp=1&g=2&mt=1&mnt=8&ee=0');
    expect(ok.stderr).not.toMatch(/notice: link/);
    expect(ok.code).toBe(0);
    const lines = ok.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ step: 1, trained_trajectories: 2 });
    expect(lines[1].summary).toMatchObject({ steps: 1 });
  }, 120_000);

  it('a link with an error exits 1 naming it, before loading anything', async () => {
    const bad = await trainLink('http://127.0.0.1/#seed=7&seed=8&nosuchsetting=1');
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).error).toMatch(/unknown key "nosuchsetting"/);
    // its notices are still said
    expect(bad.stderr).toMatch(/notice: link seed: seed is given more than once/);
  }, 60_000);
});
