// What a task is: a prompt the agent sees, and what the rewards check it against (an expected
// printed line and/or hidden Python tests). Shared by the seed, built-in and custom sets.

/** Where a task comes from. */
export type TaskSource = 'seed' | 'builtin' | 'custom';

/** Train tasks are trained on; eval tasks are only ever evaluated (and never in the demo corpus). */
export type Split = 'train' | 'eval';

/** One task. */
export interface Task {
  /** Stable id, `<source>/<name>`, e.g. `builtin/count_vowels`. */
  id: string;
  source: TaskSource;
  prompt: string;
  /** The line the program must print last (output_match) and the answer to give (final_answer). */
  expectedOutput: string | null;
  /** Hidden Python statements (asserts), each run after the agent's final code; null = none. */
  tests: string[] | null;
  /** Broad area: numbers, strings, lists, dicts (seed, custom for those sets). */
  family: string;
  /** Finer pattern shared by similar tasks, for the demo-model generator (e.g. `count_chars`). */
  kind: string;
  /** 1 easy, 2 medium (a first attempt is easy to get wrong), 3 harder. */
  difficulty: 1 | 2 | 3;
  split: Split;
  /** A reference solution that prints the expected output and passes the tests; null for custom. */
  solution: string | null;
}

/** A built-in task as written in the family files; the registry derives id, family and split. */
export interface TaskSpec {
  name: string;
  kind: string;
  difficulty: 1 | 2 | 3;
  prompt: string;
  expectedOutput: string;
  tests: string[];
  solution: string;
}

/** Template tag for Python source in TS files: drops the first newline and the common indentation. */
export function py(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = String.raw({ raw: strings }, ...values)
    .replace(/^\n/, '')
    .replace(/[ \t]+$/, '');
  const indents = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => /^ */.exec(line)![0].length);
  const common = Math.min(...indents);
  return text
    .split('\n')
    .map((line) => line.slice(common))
    .join('\n');
}
