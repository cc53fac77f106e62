// The judge on the real tasks (Node worker_threads): every built-in task's reference solution
// passes all its hidden tests and is not flagged; typical wrong attempts fail and are not flagged;
// the demo model's corpus programs (a sample of every template: solutions and their wrong first
// attempts) are not flagged, and the solutions pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import type { SandboxPool } from '../../src/env/pool.ts';
import { BUILTIN_TASKS } from '../../src/tasks/builtin/index.ts';
import { TASKS_BY_ID } from '../../src/tasks/registry.ts';
import { hiddenTests } from '../../src/tasks/tests_harness.ts';
import { Rng } from '../../src/model/rng.ts';
import { TEMPLATES } from '../../scripts/demo/templates.ts';

const TRAPS: [string, string][] = [
  ['sum_to', 'def sum_to(n):\n    return sum(range(n))\nprint(sum_to(100))'],
  [
    'average',
    'def average(nums):\n    return sum(nums) // len(nums)\nprint(average([1, 2, 3, 4]))',
  ],
  [
    'add_item',
    'def add_item(item, items=[]):\n    items.append(item)\n    return items\nprint(add_item(1))\nprint(add_item(2))',
  ],
  ['is_leap_year', 'def is_leap_year(year):\n    return year % 4 == 0\nprint(is_leap_year(1900))'],
  ['c_to_f', 'def c_to_f(celsius):\n    return celsius * 9 / 5 + 32\nprint(c_to_f(37))'],
  [
    'word_count',
    'from collections import Counter\ndef word_count(s):\n    return dict(sorted(Counter(s.split()).items()))\nprint(word_count("b a b"))',
  ],
];

describe('the judge on the built-in tasks and the demo corpus (Node worker_threads)', () => {
  let pool: SandboxPool;

  beforeAll(async () => {
    pool = await createNodeSandboxPool({ size: 2, spares: 1 });
  }, 60_000);

  afterAll(async () => {
    await pool?.close();
  });

  it('every built-in reference solution passes all its hidden tests and is not flagged', async () => {
    const results = await Promise.all(
      BUILTIN_TASKS.map(async (task) => ({
        task,
        judged: await pool.judge(task.solution!, hiddenTests(task.tests!)),
      })),
    );
    for (const { task, judged } of results) {
      expect({
        id: task.id,
        passed: judged.passed,
        tampered: judged.tampered,
        details: judged.tests.map((t) => t.detail).filter(Boolean),
      }).toEqual({ id: task.id, passed: task.tests!.length, tampered: [], details: [] });
    }
  }, 120_000);

  it('typical wrong attempts fail their tests and are not flagged', async () => {
    for (const [name, code] of TRAPS) {
      const task = TASKS_BY_ID.get(`builtin/${name}`)!;
      const judged = await pool.judge(code, hiddenTests(task.tests!));
      expect(judged.tampered, name).toEqual([]);
      expect(judged.passed, name).toBeLessThan(judged.total);
    }
  }, 60_000);

  it('the demo corpus programs are not flagged, and their solutions pass', async () => {
    const rng = new Rng(7);
    const jobs: Promise<{
      label: string;
      passed: number;
      total: number;
      tampered: string[];
      solution: boolean;
    }>[] = [];
    for (const template of TEMPLATES) {
      const task = TASKS_BY_ID.get(template.taskId)!;
      if (!task.tests) continue;
      const instance = template.make(rng);
      const programs = [
        { code: instance.solution, solution: true },
        ...instance.mistakes.slice(0, 2).map((m) => ({ code: m.code, solution: false })),
      ];
      for (const program of programs) {
        jobs.push(
          pool.judge(program.code, hiddenTests(task.tests)).then((j) => ({
            label: `${template.taskId}${program.solution ? '' : ' (mistake)'}`,
            passed: j.passed,
            total: j.total,
            tampered: j.tampered,
            solution: program.solution,
          })),
        );
      }
    }
    const results = await Promise.all(jobs);
    expect(results.length).toBeGreaterThan(40);
    for (const result of results) {
      expect(result.tampered, result.label).toEqual([]);
      if (result.solution) expect(result.passed, result.label).toBe(result.total);
    }
  }, 180_000);
});
