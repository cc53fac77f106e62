// The task sampler: 'shuffle' epochs, and the 'learnable' curriculum (one pass over every task,
// then draws in proportion to reward spread + floor), with hand-worked frequencies.
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/model/rng.ts';
import type { GroupStats } from '../../src/rl/advantage.ts';
import { SIGNAL_FLOOR, TaskSampler } from '../../src/rl/task_sampler.ts';

const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
const group = (taskId: string, std: number): GroupStats => ({
  groupIndex: 0,
  taskId,
  rewards: [],
  mean: 0,
  std,
  advantages: [],
  zeroStd: std === 0,
  included: true,
});

describe('TaskSampler', () => {
  it("'shuffle' visits every task once per epoch, distinct within a step", () => {
    const sampler = new TaskSampler(ids, 'shuffle');
    const rng = new Rng(3);
    const seen: number[] = [];
    for (let step = 0; step < 7; step++) {
      const chosen = sampler.next(3, rng);
      expect(new Set(chosen).size).toBe(3);
      seen.push(...chosen);
    }
    // 21 picks = 3 epochs of 7, except where a step straddles an epoch and skips a repeat
    const counts = ids.map((_, i) => seen.filter((x) => x === i).length);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(2);
    expect(seen.slice(0, 6).sort()).toEqual([...new Set(seen.slice(0, 6))].sort()); // the first epoch has no repeat
  });

  it("'learnable' first visits every task once, then draws by reward spread plus a floor", () => {
    const sampler = new TaskSampler(ids, 'learnable');
    const rng = new Rng(5);
    const first: number[] = [];
    for (let step = 0; step < 3; step++) {
      const chosen = sampler.next(3, rng);
      // each task's group is observed before the next step, as the trainer does
      sampler.observe(
        chosen.map((i) => group(ids[i]!, ids[i] === 'b' ? 0.5 : ids[i] === 'e' ? 0.25 : 0)),
      );
      first.push(...chosen);
    }
    // steps 1-3 picked 9 tasks: all 7 once (the first pass), then 2 drawn by signal
    expect(new Set(first.slice(0, 7)).size).toBe(7);
    expect(sampler.signals().size).toBe(7);
    // weights: b 0.5 + 0.05, e 0.25 + 0.05, five others 0.05 each: total 1.1 (before blending)
    const counts = new Map<string, number>();
    const draws = 6000;
    for (let i = 0; i < draws; i++) {
      const [pick] = sampler.next(1, rng);
      counts.set(ids[pick!]!, (counts.get(ids[pick!]!) ?? 0) + 1);
    }
    const signal = sampler.signals();
    const total = ids.reduce((sum, id) => sum + signal.get(id)! + SIGNAL_FLOOR, 0);
    for (const id of ids) {
      expect(counts.get(id)! / draws).toBeCloseTo((signal.get(id)! + SIGNAL_FLOOR) / total, 1);
    }
    expect(counts.get('b')! / draws).toBeGreaterThan(0.4); // 0.55 / 1.1 = 0.5 by hand
    expect(counts.get('a')! / draws).toBeLessThan(0.08); // 0.05 / 1.1 = 0.045
  });

  it('blends a new spread into the old one, and never draws one task twice in a step', () => {
    const sampler = new TaskSampler(['x', 'y', 'z'], 'learnable');
    sampler.observe([group('x', 0.4), group('y', 0), group('z', 0)]);
    sampler.observe([group('x', 0)]);
    expect(sampler.signals().get('x')).toBeCloseTo(0.2, 12);
    const rng = new Rng(1);
    for (let i = 0; i < 50; i++) expect(new Set(sampler.next(3, rng)).size).toBe(3);
  });

  it('save() and load() resume the same draws; unknown tasks in a saved state are dropped', () => {
    const a = new TaskSampler(ids, 'learnable');
    const rng = new Rng(9);
    a.next(3, rng);
    a.observe(ids.slice(0, 4).map((id, i) => group(id, i / 10)));
    const saved = a.save();
    const rngState = rng.state();
    const b = new TaskSampler(ids, 'learnable');
    b.load({ ...saved, signal: { ...saved.signal, gone: 0.9 } });
    expect([...b.signals().keys()].sort()).toEqual(['a', 'b', 'c', 'd']);
    const rngB = new Rng(rngState);
    for (let i = 0; i < 5; i++) expect(b.next(3, rngB)).toEqual(a.next(3, rng));
  });
});
