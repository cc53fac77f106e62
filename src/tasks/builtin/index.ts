// The built-in suite: 44 tasks in four families, with a FIXED train/eval split by rule:
// within each family, in definition order, every third task (positions 2, 5, 8, ...) is eval.
// That gives 32 train and 12 eval tasks, 3 eval per family, across difficulties. Changing the
// order of a family file changes the split, so append new tasks at the end of a family.
// The search family (search.ts) is not part of this suite: its tasks need the search tool, so they
// form the sets `search` and `search-eval` of their own, with a split written out per task.
import type { Task, TaskSpec } from '../task.ts';
import { DICT_TASKS } from './dicts.ts';
import { LIST_TASKS } from './lists.ts';
import { NUMBER_TASKS } from './numbers.ts';
import { STRING_TASKS } from './strings.ts';

/** Families in a fixed order (it fixes task order everywhere: UI, eval reports). */
export const BUILTIN_FAMILIES: ReadonlyMap<string, readonly TaskSpec[]> = new Map([
  ['numbers', NUMBER_TASKS],
  ['strings', STRING_TASKS],
  ['lists', LIST_TASKS],
  ['dicts', DICT_TASKS],
]);

/** The split rule: the task at `position` (0-based, within its family) is eval when position % 3 === 2. */
export function builtinSplit(position: number): 'train' | 'eval' {
  return position % 3 === 2 ? 'eval' : 'train';
}

/** Every built-in task, both splits. */
export const BUILTIN_TASKS: readonly Task[] = [...BUILTIN_FAMILIES].flatMap(([family, specs]) =>
  specs.map(
    (spec, position): Task => ({
      id: `builtin/${spec.name}`,
      source: 'builtin',
      prompt: spec.prompt,
      expectedOutput: spec.expectedOutput,
      tests: [...spec.tests],
      family,
      kind: spec.kind,
      difficulty: spec.difficulty,
      split: builtinSplit(position),
      solution: spec.solution,
    }),
  ),
);
