// Whether a custom task's tests compile, asked of Python's own parser in the sandbox the run
// already has: a task whose tests do not compile would score every sample 0 with nothing to say
// why, so the form refuses it with the line and the message, and a link carrying one says which.
import type { CodeExecutor } from '../env/types.ts';

/** Where a task's tests fail to compile. */
export interface TestsSyntaxError {
  /** 1-based line of the tests' source. */
  line: number;
  message: string;
  /** The offending line's text. */
  text: string;
}

/**
 * The program that compiles `source` and prints one JSON value: null where it compiles, the error
 * where not (its line's text cut to 80 characters, so the answer fits the observation's tail). It
 * only compiles: nothing of the source runs.
 */
export function testsSyntaxProgram(source: string): string {
  // a JSON string is a valid Python string literal (the same escapes)
  return [
    'import json',
    'try:',
    `    compile(${JSON.stringify(source)}, '<tests>', 'exec')`,
    '    print(json.dumps(None))',
    'except SyntaxError as _error:',
    "    print(json.dumps({'line': _error.lineno or 0, 'message': str(_error.msg)[:120], 'text': (_error.text or '').strip()[:80]}))",
  ].join('\n');
}

/** Compiles each source in `executor`, side by side; null where it compiles. Throws when the sandbox cannot say. */
export function checkTestsSyntax(
  executor: CodeExecutor,
  sources: readonly string[],
): Promise<(TestsSyntaxError | null)[]> {
  return Promise.all(
    sources.map(async (source) => {
      const result = await executor.execute(testsSyntaxProgram(source));
      const lines = result.observation.trim().split('\n');
      try {
        const parsed = JSON.parse(lines[lines.length - 1] ?? '') as TestsSyntaxError | null;
        if (parsed !== null && typeof parsed.line !== 'number') throw new Error('shape');
        return parsed;
      } catch {
        throw new Error(`the sandbox could not check the tests: ${result.observation.slice(-200)}`);
      }
    }),
  );
}

/** The form's and the link's message for task `index` (0-based). */
export function testsSyntaxMessage(index: number, error: TestsSyntaxError): string {
  return `custom task ${index + 1}'s tests do not compile: line ${error.line}: ${error.message}${error.text ? ` (${error.text})` : ''}. Fix: write Python statements, e.g. assert double(2) == 4.`;
}
