// Checks the judge cases (test/env/judge_meaning_cases.ts, test_forms_cases.ts) against real CPython (python3 on the PATH, or $PYTHON):
//   npx tsx scripts/check-judge-cases.ts
// Each case's program and its tests (split into statements by splitTests, as the judge splits
// them) run in one namespace in scripts/check_judge_cases.py, counted by the judge's counting rule
// (test/env/judge_cases.ts `total`). A case with score 1 must pass every test there, one with score
// 0 must pass none, and `total` must be what CPython's count gives. A case marked `attack` is one
// where CPython itself is the attack surface (StopIteration through map): it must fool CPython
// (pass every test), which is why the judge must not take CPython's word there. Prints a summary;
// exits 1 on any mismatch.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { splitTests } from '../src/tasks/custom.ts';
import type { JudgeCase } from '../test/env/judge_cases.ts';
import { MEANING_CASES } from '../test/env/judge_meaning_cases.ts';
import { BENCHMARK_CASES, BENCHMARK_PROBLEMS, FORM_CASES } from '../test/env/test_forms_cases.ts';

interface Ran {
  name: string;
  passed: number;
  total: number;
  failures: string[];
}

const sets: [string, readonly JudgeCase[]][] = [
  ['judge_meaning_cases', MEANING_CASES],
  ['test_forms_cases (forms)', FORM_CASES],
  ['test_forms_cases (benchmark)', BENCHMARK_CASES],
];
const all = sets.flatMap(([, list]) => list);
const names = new Set<string>();
for (const c of all) {
  if (names.has(c.name)) throw new Error(`two cases are named ${JSON.stringify(c.name)}`);
  names.add(c.name);
}

const python = process.env.PYTHON ?? 'python3';
const run = spawnSync(python, [join(import.meta.dirname, 'check_judge_cases.py')], {
  input: JSON.stringify(
    all.map((c) => ({ name: c.name, code: c.code, statements: splitTests(c.tests) })),
  ),
  encoding: 'utf8',
  maxBuffer: 64 * 2 ** 20,
});
if (run.status !== 0) {
  process.stderr.write(run.stderr);
  throw new Error(`${python} check_judge_cases.py exited with ${run.status}`);
}
const ran = new Map((JSON.parse(run.stdout) as Ran[]).map((r) => [r.name, r]));

/** `--verbose`: each score-0 case's failures (to see that each fails for its intended reason). */
const verbose = process.argv.includes('--verbose');
const problems: string[] = [];
const version = spawnSync(python, ['--version'], { encoding: 'utf8' }).stdout.trim();
process.stdout.write(`CPython check of the judge cases (${version})\n`);
for (const [label, list] of sets) {
  const counts = { right: 0, wrong: 0, fooled: 0 };
  for (const c of list) {
    const r = ran.get(c.name)!;
    const where = `${c.name}: CPython passed ${r.passed} of ${r.total}`;
    if (c.total !== undefined && c.total !== r.total)
      problems.push(`${c.name}: total is ${c.total}, CPython's count is ${r.total}`);
    if (c.attack) {
      if (r.passed === r.total && r.total > 0) counts.fooled++;
      else
        problems.push(`${where}, but an attack case must fool CPython (${r.failures.join('; ')})`);
    } else if (c.score === 1) {
      if (r.passed === r.total && r.total > 0) counts.right++;
      else problems.push(`${where}, expected all (${r.failures.join('; ')})`);
    } else if (r.passed === 0 && r.total > 0) {
      counts.wrong++;
      if (verbose) process.stdout.write(`  ${c.name}: ${r.failures.join('; ')}\n`);
    } else problems.push(`${where}, expected none`);
  }
  process.stdout.write(
    `${label}: ${list.length} cases: ${counts.right} score 1 clean, ${counts.wrong} score 0 raise in every test, ${counts.fooled} attacks fool CPython (skipped)\n`,
  );
}
process.stdout.write(`benchmark problems: ${BENCHMARK_PROBLEMS}\n`);
if (problems.length > 0) {
  process.stdout.write(
    `${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}\n`,
  );
  process.exit(1);
}
process.stdout.write('all cases agree with CPython\n');
