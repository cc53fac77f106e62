// The task registry: exact seed tasks, a well-formed built-in suite with a fixed split, task sets.
import { describe, expect, it } from 'vitest';
import { BUILTIN_FAMILIES, BUILTIN_TASKS, builtinSplit } from '../../src/tasks/builtin/index.ts';
import { SEARCH_TASKS } from '../../src/tasks/builtin/search.ts';
import { SEED_TASKS } from '../../src/tasks/seed.ts';
import { TASK_SETS, TASKS_BY_ID, evalTasksFor, tasksFor } from '../../src/tasks/registry.ts';

describe('seed tasks', () => {
  it("are the reference design's three, with its exact prompts and expected outputs", () => {
    expect(SEED_TASKS.map((t) => [t.prompt, t.expectedOutput])).toEqual([
      ['Write Python code to compute F(10), with F(0)=0 and F(1)=1. Print only the result.', '55'],
      [
        "Write Python code to test whether 'racecar' is a palindrome. Print only True or False.",
        'True',
      ],
      [
        'Write Python code to sort [5, 1, 4, 2, 8] in ascending order. Print only the sorted list.',
        '[1, 2, 4, 5, 8]',
      ],
    ]);
    expect(SEED_TASKS.every((t) => t.tests === null && t.split === 'train')).toBe(true);
  });
});

describe('built-in suite', () => {
  it('has at least 40 tasks over four families and three difficulties, with unique ids', () => {
    expect(BUILTIN_TASKS.length).toBeGreaterThanOrEqual(40);
    expect(new Set(BUILTIN_TASKS.map((t) => t.id)).size).toBe(BUILTIN_TASKS.length);
    expect([...BUILTIN_FAMILIES.keys()]).toEqual(['numbers', 'strings', 'lists', 'dicts']);
    expect(new Set(BUILTIN_TASKS.map((t) => t.difficulty))).toEqual(new Set([1, 2, 3]));
  });

  it('every task names its function in the prompt, prints one line and hides tests that call it', () => {
    for (const task of BUILTIN_TASKS) {
      const name = task.id.slice('builtin/'.length);
      expect(task.prompt, task.id).toContain(`\`${name}(`);
      expect(task.prompt, task.id).toMatch(new RegExp(`print ${name}\\(`));
      expect(task.expectedOutput, task.id).toMatch(/^\S(.*\S)?$/);
      expect(task.tests!.length, task.id).toBeGreaterThanOrEqual(3);
      for (const test of task.tests!) expect(test, task.id).toMatch(new RegExp(`${name}\\(`));
      expect(task.solution, task.id).toMatch(new RegExp(`def ${name}\\(`));
    }
  });

  it('splits by the fixed rule: every third task of a family is eval (32 train, 12 eval)', () => {
    expect([0, 1, 2, 3, 4, 5, 8].map(builtinSplit)).toEqual([
      'train',
      'train',
      'eval',
      'train',
      'train',
      'eval',
      'eval',
    ]);
    expect(BUILTIN_TASKS.filter((t) => t.split === 'eval').map((t) => t.id)).toEqual([
      'builtin/is_prime',
      'builtin/count_multiples',
      'builtin/c_to_f',
      'builtin/is_clean_palindrome',
      'builtin/unique_chars',
      'builtin/is_anagram',
      'builtin/flatten',
      'builtin/rotate_left',
      'builtin/max_subarray',
      'builtin/group_by_length',
      'builtin/first_indexes',
      'builtin/nested_get',
    ]);
    expect(BUILTIN_TASKS.filter((t) => t.split === 'train')).toHaveLength(32);
  });
});

describe('task sets', () => {
  it('lists its sets and finds tasks by id', () => {
    expect([...TASK_SETS.keys()]).toEqual([
      'seed',
      'builtin',
      'builtin-eval',
      'seed+builtin',
      'search',
      'search-eval',
      'custom',
    ]);
    expect(TASKS_BY_ID.get('seed/fibonacci')?.expectedOutput).toBe('55');
    expect(TASKS_BY_ID.size).toBe(SEED_TASKS.length + BUILTIN_TASKS.length + SEARCH_TASKS.length);
  });

  it('trains on a split and evaluates on the held-out one; never mixes them', () => {
    const train = tasksFor('builtin');
    const held = evalTasksFor('builtin');
    expect(train.every((t) => t.split === 'train')).toBe(true);
    expect(held.every((t) => t.split === 'eval')).toBe(true);
    expect(tasksFor('seed+builtin')).toHaveLength(35);
    expect(evalTasksFor('seed').map((t) => t.id)).toEqual(SEED_TASKS.map((t) => t.id));
  });

  it('custom tasks join the chosen set; `custom` alone needs at least one', () => {
    const custom = [{ prompt: 'Print 2 + 3.', expectedOutput: '5' }];
    expect(tasksFor('seed', custom).map((t) => t.id)).toEqual([
      'seed/fibonacci',
      'seed/palindrome',
      'seed/sort',
      'custom/1',
    ]);
    expect(evalTasksFor('custom', custom).map((t) => t.id)).toEqual(['custom/1']);
    expect(() => tasksFor('custom')).toThrow(/no tasks. Fix/);
    expect(() => tasksFor('everything')).toThrow(
      /unknown task set "everything". Fix: use one of seed, builtin/,
    );
  });
});
