// Runs a task's hidden tests against the agent's final code in ONE sandbox execution: the code,
// then each test statement in its own try block, then a report line tagged with a fresh nonce.
// Requiring the tagged line (not just "no exception") means code that exits early, or prints a
// fake report, cannot pass. KeyboardInterrupt and SystemExit are not caught, so a sandbox
// timeout still interrupts and an exit() still ends the run (and scores 0).

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

/** The Python program: `code`, then every test, then `<nonce> <passed> <total>`. */
export function testsProgram(code: string, tests: readonly string[], nonce: string): string {
  // JSON string literals are valid Python string literals, so the list needs no other escaping.
  return [
    code,
    '',
    `__agentic_tests = ${JSON.stringify(tests)}`,
    '__agentic_passed = 0',
    'for __agentic_source in __agentic_tests:',
    '    try:',
    '        exec(__agentic_source, globals())',
    '        __agentic_passed += 1',
    '    except Exception:',
    '        pass',
    `print(${JSON.stringify(nonce)}, __agentic_passed, len(__agentic_tests))`,
    '',
  ].join('\n');
}

/** Reads the report from an execution's observation (the last line tagged with `nonce`). */
export function parseTestsReport(observation: string, nonce: string): TestsReport | null {
  const lines = observation.split(/\r?\n/).filter((line) => line.startsWith(`${nonce} `));
  const match = /^\S+ (\d+) (\d+)\s*$/.exec(lines.at(-1) ?? '');
  if (!match) return null;
  return { passed: Number(match[1]), total: Number(match[2]) };
}
