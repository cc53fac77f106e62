// Task sets by name (docs/architecture.md §9.6): the same map gives the config its allowed values, the UI its
// choices, and the CLI's `--tasks`. Custom tasks join whatever set is chosen; `custom` alone trains
// on them only. Each set names the set its held-out evaluation uses.
import { BUILTIN_TASKS } from './builtin/index.ts';
import { SEARCH_TASKS } from './builtin/search.ts';
import { customTask, type CustomTaskInput } from './custom.ts';
import { SEED_TASKS } from './seed.ts';
import type { Task } from './task.ts';

/** A named set of tasks. */
export interface TaskSet {
  description: string;
  /** The set's own tasks (custom tasks are added by `tasksFor`). */
  tasks: readonly Task[];
  /** The set evaluated every `evalEvery` steps of a run on this set. */
  evalSet: TaskSetName;
  /** Tools the set is made for, when more than the default two (`eval` uses them unless told). */
  tools?: readonly string[];
}

const builtinTrain = BUILTIN_TASKS.filter((task) => task.split === 'train');
const builtinEval = BUILTIN_TASKS.filter((task) => task.split === 'eval');
const SEARCH_TOOLS = ['execute_code', 'search', 'finish'] as const;
const searchTrain = SEARCH_TASKS.filter((task) => task.split === 'train');
const searchEval = SEARCH_TASKS.filter((task) => task.split === 'eval');

const taskSetTable = {
  seed: {
    description: "The reference design's three tasks (F(10), palindrome, sort)",
    tasks: SEED_TASKS,
    evalSet: 'seed',
  },
  builtin: {
    description: `Built-in suite, train split (${builtinTrain.length} tasks)`,
    tasks: builtinTrain,
    evalSet: 'builtin-eval',
  },
  'builtin-eval': {
    description: `Built-in suite, held-out eval split (${builtinEval.length} tasks)`,
    tasks: builtinEval,
    evalSet: 'builtin-eval',
  },
  'seed+builtin': {
    description: `Seed tasks and the built-in train split (${SEED_TASKS.length + builtinTrain.length} tasks)`,
    tasks: [...SEED_TASKS, ...builtinTrain],
    evalSet: 'builtin-eval',
  },
  search: {
    description: `Stdlib functions named by what they do, where searching the docs pays; train split (${searchTrain.length} tasks)`,
    tasks: searchTrain,
    evalSet: 'search-eval',
    tools: SEARCH_TOOLS,
  },
  'search-eval': {
    description: `Search tasks, held-out eval split (${searchEval.length} tasks)`,
    tasks: searchEval,
    evalSet: 'search-eval',
    tools: SEARCH_TOOLS,
  },
  custom: { description: 'Only your custom tasks', tasks: [], evalSet: 'custom' },
} as const satisfies Record<
  string,
  { description: string; tasks: readonly Task[]; evalSet: string; tools?: readonly string[] }
>;

/** A task set's name. */
export type TaskSetName = keyof typeof taskSetTable;
/** Task sets by name. */
export const TASK_SETS: ReadonlyMap<TaskSetName, TaskSet> = new Map(
  Object.entries(taskSetTable) as [TaskSetName, TaskSet][],
);

/** Every seed, built-in and search task by id. */
export const TASKS_BY_ID: ReadonlyMap<string, Task> = new Map(
  [...SEED_TASKS, ...BUILTIN_TASKS, ...SEARCH_TASKS].map((task) => [task.id, task]),
);

function taskSet(name: string): TaskSet {
  const set = TASK_SETS.get(name as TaskSetName);
  if (!set)
    throw new Error(
      `unknown task set ${JSON.stringify(name)}. Fix: use one of ${[...TASK_SETS.keys()].join(', ')}.`,
    );
  return set;
}

/** The training tasks of a run: the set's tasks, then the custom tasks. */
export function tasksFor(setName: string, customTasks: readonly CustomTaskInput[] = []): Task[] {
  const tasks = [...taskSet(setName).tasks, ...customTasks.map(customTask)];
  if (tasks.length === 0)
    throw new Error(
      `task set ${JSON.stringify(setName)} has no tasks. Fix: add a custom task, or choose the set seed.`,
    );
  return tasks;
}

/** The held-out tasks evaluated during a run on `setName` (custom tasks evaluate themselves). */
export function evalTasksFor(
  setName: string,
  customTasks: readonly CustomTaskInput[] = [],
): Task[] {
  return tasksFor(
    taskSet(setName).evalSet,
    taskSet(setName).evalSet === 'custom' ? customTasks : [],
  );
}
