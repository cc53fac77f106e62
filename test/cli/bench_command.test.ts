// `bench [--only …]` through a subprocess: the figures `npm run bench` prints, as
// docs/architecture.md §8's CLI contract has them, and a clear error for a section that does not
// exist.
import { describe, expect, it } from 'vitest';
import { cli, cliLines } from './helpers.ts';

describe('bench CLI command', () => {
  it("prints the sandbox section's figures as one JSON line, and no other section's", async () => {
    const { code, lines } = await cliLines('bench', '--only', 'sandbox');
    expect(code).toBe(0);
    expect(lines).toHaveLength(1);
    const figures = lines[0]!;
    expect(figures.cpus).toBeGreaterThan(0);
    const warm = figures.sandbox_exec_warm_ms as number;
    const cold = figures.sandbox_cold_start_ms as number;
    expect(warm).toBeGreaterThan(0);
    expect(cold).toBeGreaterThan(warm); // a fresh Pyodide costs more than a program on a warm one
    expect(
      Object.keys(figures).some((key) => key.startsWith('decode_') || key.startsWith('grpo_')),
    ).toBe(false);
  }, 180_000);

  it('refuses an unknown section before running any, naming the sections there are', async () => {
    const { code, json } = await cli('bench', '--only', 'model,decoding');
    expect(code).toBe(1);
    expect(json.error).toBe(
      'unknown bench section "decoding"; choose from model, update, sandbox, scale, async, estimate (comma-separated)',
    );
  });

  it('says what --only needs when it is given no list', async () => {
    const { code, json } = await cli('bench', '--only');
    expect(code).toBe(1);
    expect(json.error).toMatch(/--only needs a list of sections/);
  });
});
