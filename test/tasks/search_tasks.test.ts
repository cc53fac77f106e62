// The search family (issue 32): well-formed tasks with a held-out split, prompts that describe a
// behaviour instead of naming the function, solutions that print the expected output in real
// CPython AND in the sandbox's Pyodide (a newer Python, whose float and repr output must agree),
// and guesses at a function name that fail, so searching pays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import { DOC_ENTRIES, searchDocs } from '../../src/env/search/index.ts';
import type { SandboxPool } from '../../src/env/pool.ts';
import { lastLine } from '../../src/rl/rewards.ts';
import {
  type SearchTaskSpec,
  SEARCH_EVAL_SPECS,
  SEARCH_TASKS,
  SEARCH_TRAIN_SPECS,
} from '../../src/tasks/builtin/search.ts';
import { TASK_SETS, TASKS_BY_ID, evalTasksFor, tasksFor } from '../../src/tasks/registry.ts';
import { hiddenTests, parseTestsReport, testsProgram } from '../../src/tasks/tests_harness.ts';
import { runPython } from './python.ts';

const train = SEARCH_TASKS.filter((t) => t.split === 'train');
const held = SEARCH_TASKS.filter((t) => t.split === 'eval');

describe('search tasks', () => {
  it('has about 24 train and 10 eval tasks, unique ids, family search, difficulty 2', () => {
    expect(train).toHaveLength(SEARCH_TRAIN_SPECS.length);
    expect(held).toHaveLength(SEARCH_EVAL_SPECS.length);
    expect(train.length).toBeGreaterThanOrEqual(24);
    expect(held.length).toBeGreaterThanOrEqual(10);
    expect(new Set(SEARCH_TASKS.map((t) => t.id)).size).toBe(SEARCH_TASKS.length);
    for (const task of SEARCH_TASKS) {
      expect(task.id, task.id).toMatch(/^search\/[a-z_]+$/);
      expect([task.source, task.family, task.difficulty], task.id).toEqual([
        'builtin',
        'search',
        2,
      ]);
      expect(task.kind, task.id).toMatch(/^[a-z]+(\.[A-Za-z_]+)*$/);
      expect(task.expectedOutput, task.id).toMatch(/^\S(.*\S)?$/);
      // the solution uses the function the task is about
      expect(task.solution, task.id).toContain(task.kind.split('.').at(-1)!);
    }
  });

  it('every train task is about a different function', () => {
    expect(new Set(train.map((t) => t.kind)).size).toBe(train.length);
  });

  it('prompts describe a behaviour and ask for the standard library, never name the function', () => {
    for (const task of SEARCH_TASKS) {
      expect(task.prompt, task.id).toMatch(/standard library|built-in/);
      if (task.kind.includes('.')) expect(task.prompt, task.id).not.toContain(task.kind);
      expect(task.prompt, task.id).not.toContain(`${task.kind.split('.').at(-1)}(`);
    }
    // The few whose behaviour's usual name IS the function's name (the module still has to be
    // known): kept to a short, known list.
    const named = SEARCH_TASKS.filter((task) =>
      new RegExp(`\\b${task.kind.split('.').at(-1)}\\b`, 'i').test(task.prompt),
    ).map((t) => t.id);
    expect(named).toEqual(['search/sample_variance']);
  });

  it('the eval split is held out: new functions, or the same function with other wording and numbers', () => {
    const trainKinds = new Set(train.map((t) => t.kind));
    const reused = held.filter((t) => trainKinds.has(t.kind));
    expect(reused.map((t) => t.id)).toEqual(['search/card_hands', 'search/top_two_letters']);
    expect(held.length - reused.length).toBeGreaterThanOrEqual(8);
    for (const task of reused) {
      const twin = train.find((t) => t.kind === task.kind)!;
      expect(task.expectedOutput).not.toBe(twin.expectedOutput);
      expect(task.prompt).not.toBe(twin.prompt);
    }
  });

  it('are the sets search (train; evaluated on search-eval) and search-eval, and found by id', () => {
    expect(tasksFor('search').map((t) => t.id)).toEqual(train.map((t) => t.id));
    expect(evalTasksFor('search').map((t) => t.id)).toEqual(held.map((t) => t.id));
    expect(TASK_SETS.get('search')!.evalSet).toBe('search-eval');
    expect(tasksFor('search-eval').every((t) => t.split === 'eval')).toBe(true);
    expect(TASKS_BY_ID.get('search/choose')?.expectedOutput).toBe('120');
  });
});

describe('search tasks and the docs index', () => {
  const specs: readonly SearchTaskSpec[] = [...SEARCH_TRAIN_SPECS, ...SEARCH_EVAL_SPECS];

  it("every task's function is documented in the index", () => {
    const names = new Set(DOC_ENTRIES.map((entry) => entry.name));
    expect(specs.map((s) => s.kind).filter((kind) => !names.has(kind))).toEqual([]);
  });

  /** A hit shows how to call `kind`: its own entry, or one of its methods (Counter.most_common). */
  const documents = (hit: { name: string }, kind: string) =>
    hit.name === kind || hit.name.startsWith(`${kind}.`);

  it("searching each task's query finds its function in the top 3 (what the agent sees)", () => {
    const misses = specs
      .filter((spec) => !searchDocs(spec.query).some((hit) => documents(hit, spec.kind)))
      .map((spec) => `${spec.name}: ${JSON.stringify(spec.query)}`);
    expect(misses).toEqual([]);
  });

  // The docs' examples must not hand out a task's answer: `math.gcd(84, 36) == 12` in the gcd entry
  // let the agent copy the call and the value without learning anything (it was there once).
  it("no doc example contains a task's own call", () => {
    const squash = (text: string) => text.replaceAll('"', "'").replaceAll(/\s+/g, '');
    const docs = DOC_ENTRIES.map((entry) => squash(entry.summary));
    const leaks = specs.flatMap((spec) =>
      [...spec.solution.matchAll(/(?<![\w.'])[\w'][\w.']*\([^()]*\)/g)]
        .map((match) => squash(match[0]))
        .filter((call) => /\d|'/.test(call) && docs.some((doc) => doc.includes(call)))
        .map((call) => `${spec.name}: ${call}`),
    );
    expect(leaks).toEqual([]);
  });

  it('searching with the prompt itself mostly finds the function too', () => {
    const found = specs.filter((spec) =>
      searchDocs(spec.prompt).some((hit) => documents(hit, spec.kind)),
    );
    expect(found.length / specs.length).toBeGreaterThanOrEqual(0.6);
  });
});

describe('search task solutions (real CPython)', () => {
  for (const task of SEARCH_TASKS) {
    it(`${task.id}: prints ${task.expectedOutput} and passes its hidden tests`, () => {
      const run = runPython(task.solution!);
      expect(run.ok, run.observation).toBe(true);
      expect(lastLine(run.observation)).toBe(task.expectedOutput);
      if (task.tests) {
        const report = parseTestsReport(
          runPython(testsProgram(task.solution!, task.tests, 'n0nce')).observation,
          'n0nce',
        );
        expect(report).toEqual({ passed: task.tests.length, total: task.tests.length });
      }
    });
  }

  // What a model that guesses instead of searching writes: a plausible name that does not exist,
  // or a float detour that is wrong for large numbers. Each must fail.
  const guesses: [string, string][] = [
    ['choose', 'import math\nprint(math.choose(10, 3))'],
    ['choose', 'import math\nprint(math.combinations(10, 3))'],
    ['average', 'import statistics\nprint(statistics.average([1, 2, 3, 4, 10]))'],
    ['most_frequent_value', 'import statistics\nprint(statistics.most_common([3, 1, 3, 2, 3, 1]))'],
    ['running_totals', 'import itertools\nprint(list(itertools.cumsum([3, 1, 4, 1, 5])))'],
    ['alphabet', 'import string\nprint(string.lowercase)'],
    [
      'int_root',
      'import math\ndef int_root(n):\n    return int(math.sqrt(n))\nprint(int_root(1000))',
    ],
  ];
  for (const [name, code] of guesses) {
    it(`a guess at ${name} fails`, () => {
      const task = TASKS_BY_ID.get(`search/${name}`)!;
      const run = runPython(code);
      const printsRight = run.ok && lastLine(run.observation) === task.expectedOutput;
      const report = task.tests
        ? parseTestsReport(runPython(testsProgram(code, task.tests, 'n0nce')).observation, 'n0nce')
        : { passed: 1, total: 1 };
      expect(printsRight && report?.passed === report?.total, run.observation).toBe(false);
    });
  }
});

describe('search task solutions (the sandbox: Pyodide in Node worker_threads)', () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = await createNodeSandboxPool({ size: 2, spares: 0 });
  }, 120_000);
  afterAll(async () => {
    await pool?.close();
  });

  it('every solution prints the expected output and passes its hidden tests there too', async () => {
    const results = await Promise.all(
      SEARCH_TASKS.map(async (task) => ({
        id: task.id,
        last: lastLine((await pool.execute(task.solution!)).observation),
        passed: task.tests
          ? (await pool.judge(task.solution!, hiddenTests(task.tests))).passed
          : null,
      })),
    );
    expect(results).toEqual(
      SEARCH_TASKS.map((task) => ({
        id: task.id,
        last: task.expectedOutput,
        passed: task.tests ? task.tests.length : null,
      })),
    );
  }, 120_000);
});
