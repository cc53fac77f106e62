// The arguments of `npm run bench -- --compare REV` (scripts/bench/compare.ts compareOptions): the
// defaults, the renames, and a clear error for each malformed one before anything is built or run.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareBench, compareOptions } from '../../scripts/bench/compare.ts';

describe('bench --compare options', () => {
  it('defaults to 5 alternations of the default sections, worktrees under the temp folder', () => {
    expect(compareOptions(['--compare', 'eb03784'])).toEqual({
      rev: 'eb03784',
      only: undefined,
      runs: 5,
      renames: {},
      claims: [],
      revPatch: undefined,
      worktrees: join(tmpdir(), 'agentic-rl-bench-compare'),
    });
  });

  it('takes the sections, the alternations, renames, a worktree folder, the claims and a patch', () => {
    const options = compareOptions([
      '--only',
      'model',
      '--compare',
      'HEAD~3',
      '--runs',
      '7',
      '--rename',
      'a_ms=b_ms,c_tok_s=d_tok_s',
      '--worktrees',
      '/tmp/trees',
      '--claim',
      'decode_cached_tok_s,train_step_ms',
      '--rev-patch',
      'scripts/bench/patches/eb03784-steady.patch',
    ]);
    expect(options).toEqual({
      rev: 'HEAD~3',
      only: 'model',
      runs: 7,
      renames: { a_ms: 'b_ms', c_tok_s: 'd_tok_s' },
      claims: ['decode_cached_tok_s', 'train_step_ms'],
      revPatch: 'scripts/bench/patches/eb03784-steady.patch',
      worktrees: '/tmp/trees',
    });
  });

  it('refuses a missing commit, a bad count and a malformed rename, naming the argument', () => {
    expect(() => compareOptions(['--compare'])).toThrow(/--compare needs a value/);
    expect(() => compareOptions(['--compare', '--only', 'model'])).toThrow(
      /--compare needs a value/,
    );
    expect(() => compareOptions(['--compare', 'x', '--runs', '0'])).toThrow(
      /--runs must be a positive integer, got 0/,
    );
    expect(() => compareOptions(['--compare', 'x', '--runs', '2.5'])).toThrow(/got 2\.5/);
    expect(() => compareOptions(['--compare', 'x', '--rename', 'a_ms'])).toThrow(
      /REV_NAME=HEAD_NAME pairs.*"a_ms"/,
    );
    expect(() => compareOptions(['--compare', 'x', '--rename', 'a=b=c'])).toThrow(/"a=b=c"/);
  });

  it('refuses a commit the repository does not have, naming it, before making a worktree', async () => {
    const worktrees = join(tmpdir(), `bench-compare-test-${process.pid}`);
    await expect(
      compareBench({ ...compareOptions(['--compare', 'no-such-commit-0']), worktrees }),
    ).rejects.toThrow('--compare no-such-commit-0: no such commit in this repository');
    expect(existsSync(worktrees)).toBe(false);
  });
});
