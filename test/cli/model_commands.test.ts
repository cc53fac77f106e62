// The CLI contract (docs/architecture.md §8) through a real subprocess: JSON on stdout, errors as
// {"error"}.
import { describe, expect, it } from 'vitest';
import { fixture, golden } from '../helpers/models.ts';
import { maxAbsDiff } from '../helpers/numbers.ts';
import { cli } from './helpers.ts';

describe('model CLI commands', () => {
  it('logits prints one float32 row per position, matching the PyTorch golden values', async () => {
    const expected = golden('tiny-llama-bf16');
    const { code, json } = await cli(
      'logits',
      '--model',
      fixture('tiny-llama-bf16'),
      '--ids',
      expected.ids.join(','),
    );
    expect(code).toBe(0);
    const logits = json.logits as number[][];
    expect(logits).toHaveLength(expected.ids.length);
    logits.forEach((row, t) => expect(maxAbsDiff(row, expected.logits[t]!)).toBeLessThan(1e-4));
  });

  it('generate prints the new text and ids, reproducibly for a seed', async () => {
    const args = [
      'generate',
      '--model',
      fixture('tiny-llama'),
      '--prompt',
      'Hi there',
      '--max-new-tokens',
      '6',
      '--seed',
      '3',
    ];
    const first = await cli(...args);
    const again = await cli(...args);
    expect(first.code).toBe(0);
    expect(Object.keys(first.json).sort()).toEqual(['ids', 'text']);
    expect(first.json.ids).toHaveLength(6);
    expect(typeof first.json.text).toBe('string');
    expect(again.json).toEqual(first.json);
  });

  it('errors are JSON with a non-zero exit', async () => {
    const bad = await cli('logits', '--model', fixture('tiny-llama'), '--ids', '1,999');
    expect(bad.code).not.toBe(0);
    expect(bad.json.error).toMatch(/token id 999 outside the vocabulary \[0, 288\)/);
    const missing = await cli('logits', '--model', fixture('tiny-llama'));
    expect(missing.json.error).toMatch(/missing --ids/);
  });
});
