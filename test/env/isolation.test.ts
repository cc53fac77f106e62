// Every run in a clean interpreter (memory_image.ts, issue 45 item 2): on one worker (a pool of
// size 1, no recycling), each saboteur in cross_episode.ts is followed by an honest correct program
// that must score 1 and an honest wrong one that must score 0, unflagged. Without the image the
// same saboteurs are seen to change later verdicts, so the cases test something.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import type { SandboxPool } from '../../src/env/pool.ts';
import { hiddenTests } from '../../src/tasks/tests_harness.ts';
import { CROSS_EPISODE_CASES, CROSS_TESTS } from './cross_episode.ts';

const tests = hiddenTests(CROSS_TESTS);

/** Judges each saboteur, then its correct and wrong programs; returns the two judgements. */
async function sequence(pool: SandboxPool, saboteur: string, correct: string, wrong: string) {
  await pool.execute(saboteur);
  await pool.judge(saboteur, tests);
  const right = await pool.judge(correct, tests);
  const off = await pool.judge(wrong, tests);
  return { right, off };
}

describe('every run in a clean interpreter (one worker)', () => {
  let pool: SandboxPool;

  beforeAll(async () => {
    pool = await createNodeSandboxPool({ size: 1, spares: 0, recycleEvery: 0 });
  }, 120_000);

  afterAll(async () => {
    await pool?.close();
  });

  for (const c of CROSS_EPISODE_CASES) {
    it(`${c.name}: the next correct program scores 1, a wrong one 0`, async () => {
      const respawns = pool.metrics().respawns;
      const recycles = pool.metrics().recycles;
      const clean = await pool.judge(c.correct, tests);
      expect(clean).toMatchObject({ passed: 4, total: 4, tampered: [] });
      const { right, off } = await sequence(pool, c.saboteur, c.correct, c.wrong);
      expect(right).toMatchObject({ passed: 4, total: 4, tampered: [] });
      expect(off.passed).toBe(0);
      expect(off.tampered).toEqual([]);
      // The same worker ran all of it: no replacement hid the saboteur's effects.
      expect(pool.metrics().respawns).toBe(respawns);
      expect(pool.metrics().recycles).toBe(recycles);
    }, 60_000);
  }

  it('ordinary programs still run after many restores: warm imports, output, exceptions', async () => {
    for (let i = 0; i < 50; i++) await pool.execute(`import json, re, collections\nprint(${i})`);
    const result = await pool.execute(
      'import json, decimal, fractions\nprint(json.dumps({"a": [1, 2]}))\nraise ValueError("boom")',
    );
    expect(result.observation).toContain('{"a": [1, 2]}');
    expect(result.observation).toContain('ValueError: boom');
    const judged = await pool.judge('def add(a, b):\n    return a + b', tests);
    expect(judged).toMatchObject({ passed: 4, total: 4, tampered: [] });
  }, 60_000);

  it('a run that times out leaves a clean interpreter for the next', async () => {
    const runaway = await pool.execute(
      'import fractions\nfractions.Fraction.__add__ = None\nwhile True:\n    pass',
      { timeoutMs: 500 },
    );
    expect(runaway.timedOut).toBe(true);
    const judged = await pool.judge(CROSS_EPISODE_CASES[0]!.correct, tests);
    expect(judged).toMatchObject({ passed: 4, total: 4, tampered: [] });
  }, 30_000);

  it('a heap grown too far past the image to zero on every run gets the worker replaced', async () => {
    const recycles = pool.metrics().recycles + pool.metrics().respawns;
    const big = await pool.execute('x = bytearray(300 * 2**20)\nprint(len(x))');
    expect(big.observation.trim()).toBe(String(300 * 2 ** 20));
    const next = await pool.judge(CROSS_EPISODE_CASES[0]!.correct, tests);
    expect(next).toMatchObject({ passed: 4, total: 4, tampered: [] });
    expect(pool.metrics().recycles + pool.metrics().respawns).toBeGreaterThan(recycles);
  }, 60_000);

  it('a heap grown by one program is zeroed and reused by the next', async () => {
    const big = await pool.execute('x = bytearray(100 * 2**20)\nprint(len(x))');
    expect(big.observation.trim()).toBe(String(100 * 2 ** 20));
    const next = await pool.execute('y = bytearray(50 * 2**20)\nprint(sum(y[::4096]))');
    expect(next.observation.trim()).toBe('0');
  }, 30_000);
});

describe('without the memory image (isolate: false), the saboteurs reach the next episode', () => {
  let pool: SandboxPool;

  beforeAll(async () => {
    pool = await createNodeSandboxPool({ size: 1, spares: 0, recycleEvery: 0, isolate: false });
  }, 120_000);

  afterAll(async () => {
    await pool?.close();
  });

  for (const c of CROSS_EPISODE_CASES.filter((k) => k.leaksWithoutImage !== false)) {
    it(`${c.name}: changes a later verdict`, async () => {
      const { right, off } = await sequence(pool, c.saboteur, c.correct, c.wrong);
      expect(right.passed < 4 || off.passed > 0 || right.tampered.length > 0).toBe(true);
    }, 60_000);
  }
});
