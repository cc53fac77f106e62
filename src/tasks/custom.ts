// Tasks a user writes: a prompt plus EITHER the line the program should print last (checked by
// output_match and final_answer) OR Python assert tests (checked by the tests reward). They travel
// in run links, so the input form is plain JSON and validation says how to fix each problem.
import type { Task } from './task.ts';
import { programIndependentTests } from './independent_tests.ts';
import { testCount } from './tests_harness.ts';

/** A custom task as the user writes it and as a run link carries it. */
export interface CustomTaskInput {
  prompt: string;
  expectedOutput?: string | null;
  /** Python statements, e.g. `assert add(2, 3) == 5`, one per line (indented lines continue a statement). */
  tests?: string | null;
}

/** Limits that keep run links short and prompts within a small model's context. */
export const CUSTOM_LIMITS = {
  tasks: 20,
  promptChars: 2000,
  expectedChars: 200,
  testsChars: 4000,
} as const;

const KEYS = new Set(['prompt', 'expectedOutput', 'tests']);

/** Lines at column 0 that continue the statement before them (try/except, if/else, for/else). */
const CONTINUATION = /^(except\b|else\s*:|elif\b|finally\s*:)/;

/**
 * How a line changes the bracket depth, and whether it ends inside a triple-quoted string or with
 * a backslash (a rough tokenizer: strings and comments are skipped, which is what matters here).
 */
function scanLine(line: string, state: { depth: number; quote: string | null }): boolean {
  let i = 0;
  while (i < line.length) {
    if (state.quote) {
      const end = line.indexOf(state.quote, i);
      if (end < 0) return false;
      i = end + state.quote.length;
      state.quote = null;
      continue;
    }
    const c = line[i]!;
    if (c === '#') break;
    if (c === '"' || c === "'") {
      const triple = line.startsWith(c.repeat(3), i) ? c.repeat(3) : null;
      if (triple) {
        state.quote = triple;
        i += 3;
        continue;
      }
      let j = i + 1;
      while (j < line.length && line[j] !== c) j += line[j] === '\\' ? 2 : 1;
      i = j + 1;
      continue;
    }
    if ('([{'.includes(c)) state.depth++;
    else if (')]}'.includes(c)) state.depth = Math.max(0, state.depth - 1);
    i++;
  }
  return line.endsWith('\\');
}

/**
 * Splits test source into statements, as Python reads them: a line at column 0 starts one, unless
 * it continues the one before it (an indented or blank line; `except`, `else`, `elif`, `finally`;
 * a line inside open brackets, a triple-quoted string or after a backslash; the definition after
 * a decorator).
 */
export function splitTests(source: string): string[] {
  const statements: string[] = [];
  const state = { depth: 0, quote: null as string | null };
  let joined = false; // the previous line leaves the statement open
  for (const line of source.replace(/\r\n?/g, '\n').split('\n')) {
    const open = joined || state.depth > 0 || state.quote !== null;
    if (!open && (line.trim() === '' || line.trimStart().startsWith('#'))) {
      if (statements.length > 0 && /^\s/.test(line))
        statements[statements.length - 1] += `\n${line}`;
      continue;
    }
    const continues =
      statements.length > 0 && (open || /^\s/.test(line) || CONTINUATION.test(line));
    if (continues) statements[statements.length - 1] += `\n${line}`;
    else statements.push(line);
    joined = scanLine(line, state) || (state.depth === 0 && !state.quote && line.startsWith('@'));
  }
  return statements.map((s) => s.trimEnd());
}

/** Problems with one custom task (empty when valid); `label` names it in messages, e.g. "custom task 2". */
export function customTaskProblems(input: unknown, label: string): string[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return [
      `${label} is ${JSON.stringify(input)}. Fix: write it as {"prompt": …, "expectedOutput": …} or {"prompt": …, "tests": …}.`,
    ];
  }
  const record = input as Record<string, unknown>;
  const problems = Object.keys(record)
    .filter((key) => !KEYS.has(key))
    .map(
      (key) =>
        `${label} has an unknown field "${key}". Fix: use only prompt, expectedOutput and tests.`,
    );
  const { prompt, expectedOutput, tests } = record;
  for (const [name, value] of [
    ['prompt', prompt],
    ['expectedOutput', expectedOutput],
    ['tests', tests],
  ] as const) {
    if (value !== undefined && value !== null && typeof value !== 'string')
      problems.push(
        `${label}: ${name} must be text, got ${typeof value}. Fix: write it as a string.`,
      );
  }
  if (problems.length > 0) return problems;
  if (typeof prompt !== 'string' || prompt.trim() === '') {
    problems.push(
      `${label}: the prompt is empty. Fix: say what the program should do, e.g. "Print the sum of the numbers from 1 to 10."`,
    );
  } else if (prompt.length > CUSTOM_LIMITS.promptChars) {
    problems.push(
      `${label}: the prompt has ${prompt.length} characters, over the limit of ${CUSTOM_LIMITS.promptChars}. Fix: shorten it.`,
    );
  }
  const hasExpected = typeof expectedOutput === 'string' && expectedOutput.trim() !== '';
  const hasTests = typeof tests === 'string' && tests.trim() !== '';
  if (hasExpected && hasTests) {
    problems.push(
      `${label} has both an expected output and tests. Fix: keep one: the line the program prints last, or assert tests.`,
    );
  } else if (!hasExpected && !hasTests) {
    problems.push(
      `${label} has neither an expected output nor tests. Fix: add the line the program should print last, or Python assert tests.`,
    );
  }
  if (hasExpected) {
    const expected = (expectedOutput as string).trim();
    if (expected.includes('\n'))
      problems.push(
        `${label}: the expected output has several lines, but only the last printed line is compared. Fix: give just that last line.`,
      );
    if (expected.length > CUSTOM_LIMITS.expectedChars)
      problems.push(
        `${label}: the expected output has ${expected.length} characters, over the limit of ${CUSTOM_LIMITS.expectedChars}. Fix: shorten it.`,
      );
  }
  if (hasTests) {
    const source = tests as string;
    if (source.length > CUSTOM_LIMITS.testsChars)
      problems.push(
        `${label}: the tests have ${source.length} characters, over the limit of ${CUSTOM_LIMITS.testsChars}. Fix: keep fewer tests.`,
      );
    if (testCount(splitTests(source)) === 0) {
      problems.push(
        `${label}: the tests contain no assert statement that runs (at top level, in a helper they call, in a test_ function or a unittest.TestCase), so they could never fail. Fix: write tests like "assert add(2, 3) == 5".`,
      );
    }
    const independent = programIndependentTests(splitTests(source));
    if (independent.length > 0)
      problems.push(
        `${label}: ${independent.length === 1 ? 'a test names' : `${independent.length} tests name`} nothing the program defines, so ${independent.length === 1 ? 'it scores' : 'they score'} every program the same: ${independent.map((t) => JSON.stringify(t.length > 60 ? `${t.slice(0, 57)}...` : t)).join(', ')}. Fix: call the program's function in each test, e.g. "assert add(2, 3) == 5".`,
      );
  }
  return problems;
}

/** Problems with a list of custom tasks (empty when all are valid). */
export function customTasksProblems(inputs: unknown): string[] {
  if (!Array.isArray(inputs))
    return [
      `customTasks must be a list, got ${JSON.stringify(inputs)}. Fix: write [] or a list of {"prompt": …, "expectedOutput": …}.`,
    ];
  const problems =
    inputs.length > CUSTOM_LIMITS.tasks
      ? [
          `there are ${inputs.length} custom tasks, over the limit of ${CUSTOM_LIMITS.tasks}. Fix: remove some.`,
        ]
      : [];
  return [
    ...problems,
    ...inputs.flatMap((input, i) => customTaskProblems(input, `custom task ${i + 1}`)),
  ];
}

/**
 * The tasks of a JSON file's text (a list of custom tasks, as the page's editor and run links hold
 * them), validated with the same messages; `file` names it in errors. Throws with every problem.
 */
export function customTasksFromJson(text: string, file: string): Task[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${file} is not JSON: ${(error as Error).message}. Fix: write a list like [{"prompt": …, "tests": "assert …"}].`,
    );
  }
  const problems = customTasksProblems(json);
  if (problems.length > 0) throw new Error(`${file}: ${problems.join('\n')}`);
  const inputs = json as CustomTaskInput[];
  if (inputs.length === 0)
    throw new Error(`${file} has no tasks. Fix: write at least one {"prompt": …, "tests": …}.`);
  return inputs.map(customTask);
}

/** The Task for a valid input at position `index` (0-based); throws with the fix if invalid. */
export function customTask(input: CustomTaskInput, index: number): Task {
  const problems = customTaskProblems(input, `custom task ${index + 1}`);
  if (problems.length > 0) throw new Error(problems.join('\n'));
  const hasExpected =
    typeof input.expectedOutput === 'string' && input.expectedOutput.trim() !== '';
  return {
    id: `custom/${index + 1}`,
    source: 'custom',
    prompt: input.prompt.trim(),
    expectedOutput: hasExpected ? input.expectedOutput!.trim() : null,
    tests: hasExpected ? null : splitTests(input.tests!),
    family: 'custom',
    kind: 'custom',
    difficulty: 2,
    split: 'train',
    solution: null,
  };
}

/** The input form of a custom task (inverse of customTask), for run links and the editor. */
export function customTaskInput(task: Task): CustomTaskInput {
  return task.expectedOutput !== null
    ? { prompt: task.prompt, expectedOutput: task.expectedOutput }
    : { prompt: task.prompt, tests: (task.tests ?? []).join('\n') };
}
