// Custom tests compiled by Python's own parser in the sandbox (src/tasks/tests_syntax.ts): the
// line and message of a test that cannot compile, nothing of the source run, and any text (quotes,
// backslashes, non-ASCII) carried into Python intact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import type { SandboxPool } from '../../src/env/pool.ts';
import { checkTestsSyntax, testsSyntaxMessage } from '../../src/tasks/tests_syntax.ts';

describe('checkTestsSyntax', () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = await createNodeSandboxPool({ size: 1 });
  }, 120_000);
  afterAll(() => pool?.close());

  it('says which line of which task does not compile, and why', async () => {
    const verdicts = await checkTestsSyntax(pool, [
      'r = double(2)\nassert r == 4',
      'assert double(2) == 4\nassert double(3) = 6',
      'assert f(1) == 1\n    assert f(2) == 2',
      `assert f("é\\\\") == 'a\\'b'`,
    ]);
    expect(verdicts[0]).toBeNull();
    expect(verdicts[1]).toMatchObject({ line: 2, text: 'assert double(3) = 6' });
    expect(verdicts[1]!.message).toMatch(/invalid syntax/);
    expect(verdicts[2]).toMatchObject({ line: 2, message: 'unexpected indent' });
    expect(verdicts[3]).toBeNull();
    expect(testsSyntaxMessage(1, verdicts[1]!)).toMatch(
      /^custom task 2's tests do not compile: line 2: invalid syntax.* \(assert double\(3\) = 6\)\. Fix: /,
    );
  });

  it('only compiles: a test that would print or loop does not run', async () => {
    const [verdict] = await checkTestsSyntax(pool, ['print("ran")\nwhile True: pass']);
    expect(verdict).toBeNull();
    const result = await pool.execute('print("still here")');
    expect(result.observation.trim()).toBe('still here');
  });
});
