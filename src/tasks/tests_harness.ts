// Hidden tests for the `tests` reward (docs/sandbox.md "The judge"). A test of the form
// `assert EXPR == VALUE` (one top-level `==`, VALUE a Python literal) is split here: the sandbox
// evaluates only EXPR, returns it as plain data, and the comparison with VALUE, parsed in
// JavaScript (python_literal.ts), happens outside the interpreter the program controls. Any other
// test runs as statements (it passes when it raises nothing). The sandbox pool's `judge` runs them
// (src/env/pool.ts).
//
// The old single-program harness (`testsProgram` + `parseTestsReport`: the code, then the tests,
// then a report line tagged with a nonce) is kept for executors that cannot judge (a CPython
// subprocess, the demo scripts): a program can forge its report there, so the trainer's sandbox
// never uses it.
import type { HiddenTest } from '../env/types.ts';
import { parsePythonLiteral } from './python_literal.ts';

/**
 * Words that bind more loosely than `==` or chain with it: a top-level one means the split would
 * change the meaning.
 */
const LOOSE_WORDS = new Set([
  'and',
  'or',
  'not',
  'in',
  'is',
  'if',
  'else',
  'lambda',
  'for',
  'await',
  'yield',
  'async',
]);

/**
 * The index of the one top-level `==` of an assert's condition and where the condition ends (a
 * trailing comment cut off), or null when the test must run as a statement.
 */
function topLevelEquals(condition: string): { equals: number; end: number } | null {
  let depth = 0;
  let equals: number | null = null;
  let i = 0;
  const text = condition;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\' && text[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))![0];
      const quote = text[i + word.length];
      if ((quote === "'" || quote === '"') && /^[rRbBuUfFtT]{1,2}$/.test(word)) {
        if (/[fFtTbB]/.test(word)) return null; // f-strings, t-strings and bytes: not split
        i += word.length;
        continue; // the string itself is scanned next
      }
      if (depth === 0 && LOOSE_WORDS.has(word)) return null;
      i += word.length;
      continue;
    }
    if (c === "'" || c === '"') {
      const triple = text.startsWith(c.repeat(3), i);
      const end = triple ? c.repeat(3) : c;
      i += end.length;
      for (;;) {
        if (i >= text.length) return null;
        if (text[i] === '\\') {
          i += 2;
          continue;
        }
        if (!triple && text[i] === '\n') return null;
        if (text.startsWith(end, i)) {
          i += end.length;
          break;
        }
        i++;
      }
      continue;
    }
    if ('([{'.includes(c)) {
      depth++;
      i++;
      continue;
    }
    if (')]}'.includes(c)) {
      depth--;
      if (depth < 0) return null;
      i++;
      continue;
    }
    if (depth === 0) {
      if (c === '#')
        return text.slice(i).includes('\n') || equals === null ? null : { equals, end: i };
      if (c === '=' && text[i + 1] === '=') {
        if (equals !== null || text[i + 2] === '=') return null;
        equals = i;
        i += 2;
        continue;
      }
      if (';,:\n<>=!'.includes(c)) return null;
    }
    i++;
  }
  return depth === 0 && equals !== null ? { equals, end: text.length } : null;
}

/**
 * Whether a statement has an `assert` at the start of a line or after a `;` (`assert f(1) == 2`,
 * `xs = [1]; f(xs); assert xs == [1]`, a `for` loop whose body asserts).
 */
export function isAssertTest(source: string): boolean {
  return /(^|[;\n])[ \t]*assert\b/.test(source);
}

/** A definition (a function, a class, decorated or not) or an import: never a test itself. */
function isDefinition(source: string): boolean {
  return /^(@|(async[ \t]+)?def\b|class\b|import\b|from\b)/.test(source.trimStart());
}

/** The name a top-level `def` statement defines, if it is one. */
function definedFunction(source: string): string | null {
  const match = /^(?:@[^\n]*\n\s*)*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)/.exec(
    source.trimStart(),
  );
  return match ? match[1]! : null;
}

const calls = (source: string, name: string): boolean =>
  new RegExp(`(^|[^\\w.])${name}[ \\t]*\\(`).test(source);

/**
 * The functions a test source defines that assert, directly or through another such function
 * (`def check(candidate): assert candidate(1) == 2`): a statement that calls one is a test.
 */
function assertingHelpers(sources: readonly string[]): Set<string> {
  const defined = new Map<string, string>();
  for (const source of sources) {
    const name = definedFunction(source);
    if (name) defined.set(name, source);
  }
  const helpers = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const [name, source] of defined) {
      if (helpers.has(name)) continue;
      const body = source.slice(source.indexOf(':'));
      if (isAssertTest(body) || [...helpers].some((helper) => calls(body, helper))) {
        helpers.add(name);
        grew = true;
      }
    }
  }
  return helpers;
}

/** Whether one top-level statement of a test source is a test, given the asserting helpers. */
function isTest(source: string, helpers: ReadonlySet<string>): boolean {
  if (isDefinition(source)) return false;
  return isAssertTest(source) || [...helpers].some((helper) => calls(source, helper));
}

/**
 * The tests a source defines but never runs, run after it as pytest and unittest would: each
 * top-level `def test_*()` that takes no argument and that no statement calls, and each `test_*`
 * method of a `unittest.TestCase` subclass (between its class's setUpClass and tearDownClass).
 */
function collectedTests(sources: readonly string[]): HiddenTest[] {
  const collected: HiddenTest[] = [];
  for (const source of sources) {
    const name = definedFunction(source);
    if (
      name?.startsWith('test') &&
      new RegExp(`def[ \\t]+${name}[ \\t]*\\([ \\t]*\\)`).test(source) &&
      !sources.some((other) => other !== source && calls(other, name))
    ) {
      collected.push({ kind: 'statement', source: `${name}()` });
    }
    const testCase = /^class[ \t]+([A-Za-z_]\w*)[ \t]*\(([^)]*TestCase[^)]*)\)/.exec(source);
    if (testCase) {
      const klass = testCase[1]!;
      const methods = [...source.matchAll(/\n[ \t]+def[ \t]+(test\w*)[ \t]*\([ \t]*self\b/g)].map(
        (m) => m[1]!,
      );
      if (methods.length === 0) continue;
      collected.push({ kind: 'setup', source: `${klass}.setUpClass()` });
      for (const method of methods)
        collected.push({
          kind: 'statement',
          source: `${klass}(${JSON.stringify(method)}).debug()`,
        });
      collected.push({ kind: 'setup', source: `${klass}.tearDownClass()` });
    }
  }
  return collected;
}

/**
 * One statement of a task's test source as the judge runs it: a test split into an expression and
 * its expected value where it can be, another test as a statement, or a setup line.
 */
export function splitTest(source: string, helpers: ReadonlySet<string> = new Set()): HiddenTest {
  if (!isTest(source, helpers)) return { kind: 'setup', source };
  const statement: HiddenTest = { kind: 'statement', source };
  const match = /^\s*assert\s+([\s\S]*)$/.exec(source);
  if (!match) return statement;
  const condition = match[1]!;
  const found = topLevelEquals(condition);
  if (found === null) return statement;
  const expr = condition.slice(0, found.equals).trim();
  const literal = condition.slice(found.equals + 2, found.end).trim();
  const expected = parsePythonLiteral(literal);
  if (expr === '' || expected === null) return statement;
  return { kind: 'value', expr, expected, literal, source };
}

/**
 * A task's test source, statement by statement, split for the judge: each statement that asserts
 * or calls a helper that asserts is a test (definitions never are), the rest are setup lines; then
 * the tests it defines but never calls (pytest's `test_*` functions, unittest's methods).
 */
export function hiddenTests(sources: readonly string[]): HiddenTest[] {
  const helpers = assertingHelpers(sources);
  const hasMain = (source: string) => /^if[ \t]+__name__[ \t]*==/.test(source);
  return [
    ...sources.map((source) =>
      hasMain(source) ? { kind: 'setup' as const, source } : splitTest(source, helpers),
    ),
    ...collectedTests(sources),
  ];
}

/** How many of a task's statements are tests (setup lines are not counted). */
export function testCount(sources: readonly string[]): number {
  return hiddenTests(sources).filter((test) => test.kind !== 'setup').length;
}

/** How many hidden tests passed, or null when the report line never appeared. */
export interface TestsReport {
  passed: number;
  total: number;
}

/** A nonce for one harness run (hex, 16 characters). */
export function newNonce(): string {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The legacy single program (forgeable; see above): `code`, then every statement of the tests in
 * order (setup lines run but are not counted), then `<nonce> <passed> <total>`.
 */
export function testsProgram(code: string, tests: readonly string[], nonce: string): string {
  // JSON string literals and numbers are valid Python literals, so no other escaping.
  const statements = hiddenTests(tests).map((test) => [test.source, test.kind === 'setup' ? 0 : 1]);
  return [
    code,
    '',
    `__agentic_tests = ${JSON.stringify(statements)}`,
    '__agentic_passed = 0',
    'for __agentic_source, __agentic_counted in __agentic_tests:',
    '    try:',
    '        exec(__agentic_source, globals())',
    '        __agentic_passed += __agentic_counted',
    '    except Exception:',
    '        pass',
    `print(${JSON.stringify(nonce)}, __agentic_passed, sum(c for _, c in __agentic_tests))`,
    '',
  ].join('\n');
}

/**
 * Reads the legacy report from an execution's observation (the last line tagged with `nonce`);
 * null when there is none, or when `expectedTotal` is given and the report counts another number
 * of tests.
 */
export function parseTestsReport(
  observation: string,
  nonce: string,
  expectedTotal?: number,
): TestsReport | null {
  const lines = observation.split(/\r?\n/).filter((line) => line.startsWith(`${nonce} `));
  const match = /^\S+ (\d+) (\d+)\s*$/.exec(lines.at(-1) ?? '');
  if (!match) return null;
  const report = { passed: Number(match[1]), total: Number(match[2]) };
  if (expectedTotal !== undefined && report.total !== expectedTotal) return null;
  if (report.passed > report.total) return null;
  return report;
}
