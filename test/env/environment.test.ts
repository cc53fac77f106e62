// Environment and the tool registry over a fake executor: the reference design's step/reset
// contract, the registry, and argument checking (no Pyodide needed).
import { describe, expect, it } from 'vitest';
import { Environment } from '../../src/env/environment.ts';
import { defaultTools, ToolRegistry } from '../../src/env/tools.ts';
import type { CodeExecutor, ExecResult } from '../../src/env/types.ts';

function execResult(overrides: Partial<ExecResult>): ExecResult {
  return {
    observation: '',
    stdout: '',
    stderr: '',
    ok: true,
    error: null,
    timedOut: false,
    terminated: false,
    durationMs: 1,
    truncated: false,
    ...overrides,
  };
}

/** Records what it was asked to run and answers from a script. */
class FakeExecutor implements CodeExecutor {
  readonly calls: Array<{ code: string; timeoutMs: number | undefined }> = [];
  constructor(private readonly answer: (code: string) => ExecResult) {}
  async execute(code: string, options: { timeoutMs?: number } = {}): Promise<ExecResult> {
    this.calls.push({ code, timeoutMs: options.timeoutMs });
    return this.answer(code);
  }
}

describe('Environment', () => {
  it('execute_code returns the observation and keeps the episode going', async () => {
    const executor = new FakeExecutor(() => execResult({ observation: '55\n' }));
    const environment = new Environment(executor);
    const step = await environment.step('execute_code', { code: 'print(55)' });
    expect(step).toMatchObject({ observation: '55\n', done: false });
    expect(step.exec?.ok).toBe(true);
    expect(executor.calls).toEqual([{ code: 'print(55)', timeoutMs: undefined }]);
    expect(environment.done).toBe(false);
  });

  it('a timeout is TIMEOUT and ends the episode; step after it is an error until reset', async () => {
    const environment = new Environment(
      new FakeExecutor(() => execResult({ observation: 'TIMEOUT', timedOut: true, ok: false })),
      { timeoutMs: 250 },
    );
    expect(await environment.step('execute_code', { code: 'while True: pass' })).toMatchObject({
      observation: 'TIMEOUT',
      done: true,
    });
    expect(environment.done).toBe(true);
    await expect(environment.step('execute_code', { code: 'print(1)' })).rejects.toThrow(
      /call reset\(\) first/,
    );
    await environment.reset();
    expect(environment.done).toBe(false);
    expect(environment.steps).toBe(0);
  });

  it('passes its deadline to the executor', async () => {
    const executor = new FakeExecutor(() => execResult({}));
    await new Environment(executor, { timeoutMs: 1234 }).step('execute_code', { code: '' });
    expect(executor.calls[0]?.timeoutMs).toBe(1234);
  });

  it('finish ends the episode with an empty observation and runs nothing', async () => {
    const executor = new FakeExecutor(() => execResult({}));
    const environment = new Environment(executor);
    expect(await environment.step('finish', { answer: '55' })).toEqual({
      observation: '',
      done: true,
    });
    expect(executor.calls).toHaveLength(0);
  });

  it('an unknown action is an observation that names the available ones, not the end', async () => {
    const environment = new Environment(new FakeExecutor(() => execResult({})));
    expect(await environment.step('search', { query: 'x' })).toEqual({
      observation: 'Unknown action: search. Available actions: execute_code, finish.',
      done: false,
    });
    expect(environment.done).toBe(false);
  });

  it('execute_code without string code says what it needs', async () => {
    const environment = new Environment(new FakeExecutor(() => execResult({})));
    expect(await environment.step('execute_code', {})).toEqual({
      observation: 'execute_code needs a string argument "code", got nothing.',
      done: false,
    });
    expect((await environment.step('execute_code', { code: 3 })).observation).toMatch(/got number/);
  });

  it('runs tools registered beyond the defaults', async () => {
    const tools = defaultTools().register('search', {
      description: 'A mock search.',
      usage: '',
      run: async (args) => ({ observation: `results for ${String(args.query)}`, done: false }),
    });
    const environment = new Environment(new FakeExecutor(() => execResult({})), { tools });
    expect(environment.actions()).toEqual(['execute_code', 'finish', 'search']);
    expect((await environment.step('search', { query: 'gcd' })).observation).toBe(
      'results for gcd',
    );
  });
});

describe('ToolRegistry', () => {
  it('refuses duplicate and malformed names', () => {
    const registry = new ToolRegistry().register('a_tool', {
      description: '',
      usage: '',
      run: async () => ({ observation: '', done: false }),
    });
    expect(() =>
      registry.register('a_tool', {
        description: '',
        usage: '',
        run: async () => ({ observation: '', done: false }),
      }),
    ).toThrow(/already registered/);
    expect(() =>
      registry.register('Bad Name', {
        description: '',
        usage: '',
        run: async () => ({ observation: '', done: false }),
      }),
    ).toThrow(/snake_case/);
  });
});
