// The shape of a judge case and the helpers that build them, shared by
// test/env/judge_meaning_cases.ts and test/env/test_forms_cases.ts (issue 63).

/**
 * One program judged against one task's test source (a custom task's `tests`: Python statements
 * that `splitTests` splits). A case with score 1 must pass every test unflagged; one with score 0
 * must pass none.
 */
export interface JudgeCase {
  name: string;
  /** The group the case belongs to (e.g. 'exceptions', 'humaneval'). */
  kind: string;
  tests: string;
  code: string;
  score: 0 | 1;
  /**
   * How many tests the source holds by the counting rule: each top-level statement with an
   * `assert`; each top-level statement that calls a function the tests define whose body asserts
   * (directly or through other test-defined functions); each top-level `def test_*` the source
   * never calls; each `test_*` method of a `unittest.TestCase` subclass. A `def`/`class` is
   * otherwise never a test itself, and setup lines are not counted.
   */
  total?: number;
  /**
   * CPython itself is fooled (the attack passes when the code and tests run as one program), so
   * scripts/check-judge-cases.ts checks that it is and skips the usual check.
   */
  attack?: boolean;
  /**
   * A program that attacks the judge: it must score 0, flagged or not. Any other case with score
   * 0 is an honest wrong program, which must score 0 unflagged.
   */
  hostile?: boolean;
}

/**
 * Python source from an indented template literal: the first line break and the common
 * indentation are dropped, and backslashes are kept as written, as in a .py file (`'\n'` stays a
 * Python escape).
 */
export function py(strings: TemplateStringsArray, ...values: unknown[]): string {
  const raw = String.raw({ raw: strings.raw }, ...values);
  const lines = raw
    .replace(/^\n/, '')
    .replace(/\n[ \t]*$/, '')
    .split('\n');
  const indent = Math.min(
    ...lines.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)![0].length),
  );
  return lines.map((line) => line.slice(indent)).join('\n');
}

/** `source` with every non-blank line indented by `by` spaces. */
export function indent(source: string, by = 4): string {
  return source
    .split('\n')
    .map((line) => (line.trim() === '' ? '' : ' '.repeat(by) + line))
    .join('\n');
}

/** A group of cases on one test source. */
export interface CaseGroup {
  kind: string;
  name: string;
  tests: string;
  total: number;
  /** Correct programs: each scores 1. */
  right?: Record<string, string>;
  /** Honest wrong programs: each scores 0, unflagged. */
  wrong?: Record<string, string>;
  /** Attacks that CPython judges right (the code and tests as one program fail): each scores 0. */
  hostile?: Record<string, string>;
  /** Attacks that fool CPython itself: each scores 0 in the judge. */
  fooled?: Record<string, string>;
}

/** The cases of a group, named `kind: name (label)`. */
export function cases(group: CaseGroup): JudgeCase[] {
  const base = { kind: group.kind, tests: group.tests, total: group.total };
  const named = (label: string) => `${group.kind}: ${group.name} (${label})`;
  return [
    ...Object.entries(group.right ?? {}).map(([label, code]) => ({
      ...base,
      name: named(label),
      code,
      score: 1 as const,
    })),
    ...Object.entries(group.wrong ?? {}).map(([label, code]) => ({
      ...base,
      name: named(`wrong: ${label}`),
      code,
      score: 0 as const,
    })),
    ...Object.entries(group.hostile ?? {}).map(([label, code]) => ({
      ...base,
      name: named(`attack: ${label}`),
      code,
      score: 0 as const,
      hostile: true,
    })),
    ...Object.entries(group.fooled ?? {}).map(([label, code]) => ({
      ...base,
      name: named(`attack: ${label}`),
      code,
      score: 0 as const,
      hostile: true,
      attack: true,
    })),
  ];
}
