// TailBuffer and the latency quantile: hand-worked values.
import { describe, expect, it } from 'vitest';
import { quantile } from '../../src/env/metrics.ts';
import { TailBuffer } from '../../src/env/tail.ts';

describe('TailBuffer', () => {
  it('keeps the last cap characters across many small writes, in order', () => {
    const tail = new TailBuffer(5);
    for (const piece of ['ab', 'cd', 'ef', 'gh']) tail.add(piece);
    expect(tail.text()).toBe('defgh');
    expect(tail.truncated()).toBe(true);
  });

  it('handles one write longer than the cap and reports no truncation when all fits', () => {
    const tail = new TailBuffer(3);
    tail.add('abcdefg');
    expect(tail.text()).toBe('efg');
    const small = new TailBuffer(10);
    small.add('hi');
    expect([small.text(), small.truncated()]).toEqual(['hi', false]);
  });

  it('stays bounded under a flood', () => {
    const tail = new TailBuffer(100);
    for (let i = 0; i < 100_000; i++) tail.add('x'.repeat(7));
    expect(tail.text()).toHaveLength(100);
  });
});

describe('quantile', () => {
  it('uses the nearest rank', () => {
    expect(quantile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(
      quantile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        0.95,
      ),
    ).toBe(95);
    expect(quantile([], 0.5)).toBeNull();
  });
});
