// Parity of the TRL export's rewards with the tab's (issue 48, item 3): the same programs scored by
// the tab (scoreTrajectory over the Node sandbox pool and its judge) and by the exported rewards.py
// (python3, a CPython subprocess and its judge) get the same reward and the same parts. Programs:
// every seed, built-in and search task's reference solution (answered right), the solution with a
// wrong last line (answered wrong), a program that only prints the expected line (no functions:
// the tests fail), the demo model's own programs and answers (121, from real rollouts:
// test/fixtures/trl/demo_samples.json, written by `npx tsx scripts/demo/trl_samples.ts`), and the
// judge's hack suite and honest controls (test/env/reward_hacks.ts).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import type { SandboxPool } from '../../src/env/pool.ts';
import { scoreTrajectory, type RewardWeights } from '../../src/rl/rewards.ts';
import type { Trajectory } from '../../src/rl/types.ts';
import { defaultConfig } from '../../src/run/config.ts';
import { exportTrlProject, taskLine } from '../../src/run/trl_export.ts';
import { customTask } from '../../src/tasks/custom.ts';
import { TASKS_BY_ID } from '../../src/tasks/registry.ts';
import type { Task } from '../../src/tasks/task.ts';
import DEMO_SAMPLES from '../fixtures/trl/demo_samples.json' with { type: 'json' };
import { ADD_TESTS, HONEST_PROGRAMS, REWARD_HACKS } from '../env/reward_hacks.ts';

const run = promisify(execFile);
// The tab's default deadline; the two sides run one after the other, so neither slows the other
// into a timeout the other did not have.
const TIMEOUT_MS = 10_000;
const ALL: RewardWeights = { output_match: 1, tests: 1, final_answer: 1, format: 1 };

interface Item {
  label: string;
  task: Task;
  code: string;
  answer: string | null;
  weights: RewardWeights;
  partialCredit: boolean;
}

function items(): Item[] {
  const list: Item[] = [];
  for (const task of TASKS_BY_ID.values()) {
    const solution = task.solution!;
    const base = { task, weights: ALL, partialCredit: false };
    list.push({
      ...base,
      label: `${task.id} solution`,
      code: solution,
      answer: task.expectedOutput,
    });
    list.push({
      ...base,
      label: `${task.id} wrong last line`,
      code: `${solution}\nprint("not it")\n`,
      answer: 'not it',
    });
    list.push({
      ...base,
      label: `${task.id} prints the answer only`,
      code: `print(${JSON.stringify(task.expectedOutput)})\n`,
      answer: null,
    });
  }
  // The demo model's own programs (scripts/demo/trl_samples.ts wrote the fixture).
  DEMO_SAMPLES.samples.forEach((sample, i) => {
    const task = TASKS_BY_ID.get(sample.task);
    if (!task) throw new Error(`demo_samples.json names an unknown task ${sample.task}`);
    list.push({
      task,
      weights: ALL,
      partialCredit: false,
      label: `demo sample ${i} (${sample.task})`,
      code: sample.code,
      answer: sample.answer,
    });
  });
  const add = customTask({ prompt: 'Define add(a, b).', tests: ADD_TESTS.join('\n') }, 0);
  const tests = { task: add, answer: null, weights: { ...ALL, tests: 1 }, partialCredit: true };
  for (const hack of REWARD_HACKS)
    list.push({ ...tests, label: `hack: ${hack.name}`, code: hack.code });
  for (const honest of HONEST_PROGRAMS)
    list.push({ ...tests, label: `honest: ${honest.name}`, code: honest.code });
  return list;
}

/** The tab's score: an episode that ran `code` once in the pool, then answered (if given). */
async function tabScore(pool: SandboxPool, item: Item) {
  const result = await pool.execute(item.code, { timeoutMs: TIMEOUT_MS });
  const turns: unknown[] = [
    {
      action: { type: 'execute_code', code: item.code, unterminated: false },
      execution: { code: item.code, result, durationMs: 1 },
    },
  ];
  const answered = item.answer !== null && !result.timedOut;
  if (answered) turns.push({ action: { type: 'finish', answer: item.answer }, execution: null });
  const scored = await scoreTrajectory(
    {
      turns,
      finalAnswer: answered ? item.answer : null,
      timedOut: result.timedOut,
    } as unknown as Pick<Trajectory, 'turns' | 'finalAnswer' | 'timedOut'>,
    item.task,
    { weights: item.weights, partialCredit: item.partialCredit, timeoutMs: TIMEOUT_MS },
    pool,
  );
  return { reward: scored.reward, parts: scored.rewardParts };
}

describe('the TRL export scores programs as the tab does', () => {
  let pool: SandboxPool;
  let dir: string;

  beforeAll(async () => {
    pool = await createNodeSandboxPool({ size: 2, spares: 1, timeoutMs: TIMEOUT_MS });
    dir = await mkdtemp(join(tmpdir(), 'trl-parity-'));
    const files = exportTrlProject({ ...defaultConfig(), timeoutMs: TIMEOUT_MS });
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  }, 60_000);

  afterAll(async () => {
    await pool?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('gives the same reward and parts on every program (at least 200)', async () => {
    const all = items();
    expect(all.length).toBeGreaterThanOrEqual(200);
    // Python: two processes, each scoring half of the programs.
    const halves = [all.filter((_, i) => i % 2 === 0), all.filter((_, i) => i % 2 === 1)];
    // The tab first (after a warm-up run in each worker), then Python.
    await Promise.all([pool.execute('print(1)'), pool.execute('print(2)')]);
    const tab: Awaited<ReturnType<typeof tabScore>>[] = [];
    for (let i = 0; i < all.length; i += 2)
      tab.push(...(await Promise.all(all.slice(i, i + 2).map((item) => tabScore(pool, item)))));
    const python = Promise.all(
      halves.map(async (half, h) => {
        const file = join(dir, `items${h}.jsonl`);
        const lines = half.map((item) =>
          JSON.stringify({
            task: taskLine(item.task),
            code: item.code,
            answer: item.answer,
            weights: item.weights,
            partial_credit: item.partialCredit,
          }),
        );
        await writeFile(file, `${lines.join('\n')}\n`);
        const { stdout } = await run('python3', ['rewards.py', '--score', file], {
          cwd: dir,
          maxBuffer: 16 * 1024 * 1024,
        });
        return stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { reward: number; parts: Record<string, number> });
      }),
    );
    const [even, odd] = await python;
    const py = all.map((_, i) => (i % 2 === 0 ? even![i / 2] : odd![(i - 1) / 2])!);
    const differ = all
      .map((item, i) => ({
        label: item.label,
        tab: tab[i],
        python: { reward: py[i]!.reward, parts: py[i]!.parts },
      }))
      .filter(({ tab: t, python: p }) => JSON.stringify(t) !== JSON.stringify(p));
    expect(differ).toEqual([]);
    // The comparison could fail: the programs do not all score alike.
    const rewards = new Set(tab.map((t) => t.reward));
    expect(rewards.size).toBeGreaterThanOrEqual(3);
    console.log(`parity: ${all.length} programs, rewards ${[...rewards].sort().join(', ')}`);
  }, 900_000);
});
