// `npm run bench -- --compare REV [--only model] [--runs 5] [--claim FIG,...] [--rev-patch FILE]
// [--rename old=new,...]`: the bench
// on commit REV against this working tree, alternated on one machine so both see the same load.
// REV is checked out in a git worktree of its own (under the system's temp folder, or
// --worktrees DIR), with its own `npm ci`, kept for the next comparison with that commit. Each
// alternation runs the named sections (the bench's default ones without --only) on REV, then on
// HEAD, each in a fresh process. --rev-patch applies a patch to REV's worktree first, for a figure
// the bench gained after REV: the patch adds the measurement and nothing else (its worktree is named
// by the commit and the patch's hash). The figures reduce as src/bench/compare_stats.ts says (medians,
// HEAD / REV, the pairs' spread, "within noise" unless every pair agrees). The table goes to
// stderr with the runs' progress, the JSON (every run's figures too) to stdout.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchRun, compareRuns, formatComparison } from '../../src/bench/compare_stats.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface CompareOptions {
  rev: string;
  only: string | undefined;
  runs: number;
  renames: Record<string, string>;
  /** The figures the comparison is run to show (compare_stats.ts: a claim's bound). */
  claims: string[];
  /** A patch applied to REV's worktree (bench-only: a figure REV's bench lacks), or undefined. */
  revPatch: string | undefined;
  worktrees: string;
}

/** The options from the bench's arguments (those after `npm run bench --`). */
export function compareOptions(argv: readonly string[]): CompareOptions {
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    if (i < 0) return undefined;
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) throw new Error(`${flag} needs a value`);
    return next;
  };
  const rev = value('--compare');
  if (!rev) throw new Error('--compare needs a commit (a hash, tag or branch)');
  const runs = Number(value('--runs') ?? 5);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs must be a positive integer, got ${value('--runs')}`);
  const renames: Record<string, string> = {};
  for (const pair of (value('--rename') ?? '').split(',').filter((p) => p !== '')) {
    const [from, to, ...rest] = pair.split('=');
    if (!from || !to || rest.length > 0)
      throw new Error(
        `--rename takes REV_NAME=HEAD_NAME pairs, comma-separated; got ${JSON.stringify(pair)}`,
      );
    renames[from] = to;
  }
  return {
    rev,
    only: value('--only'),
    runs,
    renames,
    claims: (value('--claim') ?? '').split(',').filter((name) => name !== ''),
    revPatch: value('--rev-patch'),
    worktrees: value('--worktrees') ?? join(tmpdir(), 'agentic-rl-bench-compare'),
  };
}

const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

function log(message: string): void {
  process.stderr.write(`[bench compare] ${message}\n`);
}

/**
 * REV's worktree with its packages installed (and `patch` applied): made once per commit and patch
 * and kept (the folder is named by the full hash, and the patch's), so later comparisons with it
 * start at once.
 */
function worktreeOf(sha: string, parent: string, patch?: { file: string; hash: string }): string {
  const dir = join(parent, patch ? `${sha}-${patch.hash}` : sha);
  const marker = join(dir, 'node_modules', '.bench-compare-installed');
  if (existsSync(marker)) return dir;
  if (!existsSync(join(dir, '.git'))) {
    log(`git worktree add --detach ${dir} ${sha.slice(0, 10)}`);
    git('worktree', 'add', '--detach', dir, sha);
    if (patch) {
      log(`git apply ${patch.file} in ${dir}`);
      try {
        execFileSync('git', ['apply', patch.file], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (error) {
        // the folder goes with it: kept, a later run would find it and bench REV unpatched
        git('worktree', 'remove', '--force', dir);
        const why = (error as { stderr?: Buffer }).stderr?.toString().trim() ?? String(error);
        throw new Error(`--rev-patch ${patch.file} does not apply to ${sha.slice(0, 10)}: ${why}`);
      }
    }
  } else if (
    execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim() !== sha
  )
    throw new Error(
      `${dir} holds another commit than ${sha}: remove it (git worktree remove --force ${dir})`,
    );
  const install = (command: string[]) => {
    log(`${command.join(' ')} in ${dir}`);
    execFileSync('npm', command, { cwd: dir, stdio: ['ignore', process.stderr, process.stderr] });
  };
  try {
    install(['ci', '--no-audit', '--no-fund']);
  } catch {
    // npm 11's `npm ci` refuses some lock files (vite's Windows-only optional dependency, which
    // npm never records for Linux); `npm install` follows the lock file all the same
    install(['install', '--no-audit', '--no-fund']);
  }
  writeFileSync(marker, `${sha}\n`);
  return dir;
}

/** One bench run in `cwd` (the sections `only` names): its JSON, progress relayed with `label`. */
function benchRun(cwd: string, only: string | undefined, label: string): Promise<BenchRun> {
  const args = ['run', '--silent', 'bench', '--', ...(only ? ['--only', only] : [])];
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let tail = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-4000);
      for (const line of text.split('\n').filter((l) => l.trim() !== ''))
        process.stderr.write(`  [${label}] ${line}\n`);
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const last = stdout.trim().lastIndexOf('\n{');
      const text = stdout.trim().slice(last + 1);
      let parsed: BenchRun | null = null;
      try {
        parsed = JSON.parse(text) as BenchRun;
      } catch {}
      if (code === 0 && parsed && !('error' in parsed)) resolve(parsed);
      else
        reject(
          new Error(
            `the bench on ${label} failed (exit ${code}): ${parsed && 'error' in parsed ? parsed.error : tail.trim().split('\n').slice(-5).join('\n')}`,
          ),
        );
    });
  });
}

/** The patch's absolute path and hashes; a clear error where it cannot be read. */
function patchOf(file: string): { file: string; hash: string; sha256: string } {
  const path = resolve(file);
  if (!existsSync(path)) throw new Error(`--rev-patch ${file}: no such file`);
  const sha256 = createHash('sha256').update(readFileSync(path)).digest('hex');
  return { file: path, hash: sha256.slice(0, 12), sha256 };
}

/** Runs the comparison and returns its JSON (the table is written to stderr). */
export async function compareBench(options: CompareOptions): Promise<Record<string, unknown>> {
  let sha: string;
  try {
    sha = git('rev-parse', '--verify', `${options.rev}^{commit}`);
  } catch {
    throw new Error(`--compare ${options.rev}: no such commit in this repository`);
  }
  const headSha = git('rev-parse', 'HEAD');
  const dirty = git('status', '--porcelain') !== ''; // untracked files too: a new module counts
  const patch = options.revPatch ? patchOf(options.revPatch) : undefined;
  const revDir = worktreeOf(sha, options.worktrees, patch);
  const labels = {
    rev: patch ? `${options.rev}+patch` : options.rev,
    head: dirty ? 'HEAD+changes' : 'HEAD',
  };
  const revRuns: BenchRun[] = [];
  const headRuns: BenchRun[] = [];
  const started = Date.now();
  for (let i = 0; i < options.runs; i++) {
    log(`alternation ${i + 1} of ${options.runs}: ${labels.rev}, then ${labels.head}`);
    revRuns.push(await benchRun(revDir, options.only, labels.rev));
    headRuns.push(await benchRun(root, options.only, labels.head));
    // a misspelt --claim is refused after the first pair, not after the last
    if (i === 0) compareRuns(revRuns, headRuns, options.renames, options.claims);
  }
  const comparison = compareRuns(revRuns, headRuns, options.renames, options.claims);
  process.stderr.write(`\n${formatComparison(comparison, labels)}\n`);
  return {
    rev: options.rev,
    rev_sha: sha,
    ...(patch ? { rev_patch: { file: options.revPatch, sha256: patch.sha256 } } : {}),
    head_sha: headSha,
    head_has_changes: dirty,
    sections: options.only ?? 'default',
    alternations: options.runs,
    minutes: Math.round((Date.now() - started) / 600) / 100,
    figures: Object.fromEntries(
      comparison.figures.map((f) => [
        f.name,
        {
          ...(f.revName !== f.name ? { rev_name: f.revName } : {}),
          rev_median: f.revMedian,
          head_median: f.headMedian,
          ratio: f.ratio,
          pair_ratios: f.pairRatios,
          spread: f.spread,
          verdict: f.verdict,
          p: f.p,
          ...(f.meaning ? { head_is: f.meaning } : {}),
          ...(f.claim ? { claim: f.claim } : {}),
          ...(f.atLeast ? { at_least: f.atLeast } : {}),
        },
      ]),
    ),
    unsteady_pairs: comparison.unsteadyPairs,
    noise_verdicts: comparison.noiseVerdicts,
    claims: comparison.claims,
    only_rev: comparison.onlyRev,
    only_head: comparison.onlyHead,
    context: comparison.context,
    runs: { rev: revRuns, head: headRuns },
  };
}
