// Logit parity against an independent float64 PyTorch implementation
// (scripts/golden/tiny_models.py).
import { beforeAll, describe, expect, it } from 'vitest';
import { inverseFrequencies } from '../../src/model/rope.ts';
import { golden, loadFixture, useBackend } from '../helpers/models.ts';
import { maxAbsDiff } from '../helpers/numbers.ts';
import { tokenLogprobs } from '../../src/model/logprobs.ts';

describe.each(['wasm', 'cpu'] as const)('logit parity with PyTorch on %s', (backend) => {
  beforeAll(() => useBackend(backend));

  it.each([
    'tiny-llama',
    'tiny-llama-bf16',
    'tiny-qwen2',
    'tiny-qwen2-bf16',
    'tiny-qwen3',
    'tiny-qwen3-bf16',
  ])('%s logits match within 1e-4', async (name) => {
    const expected = golden(name);
    const model = await loadFixture(name);
    const rows = model.logits(expected.ids);
    expect(rows).toHaveLength(expected.ids.length);
    rows.forEach((row, t) => expect(maxAbsDiff(row, expected.logits[t]!)).toBeLessThan(1e-4));
    model.dispose();
  });

  it.each(['tiny-llama', 'tiny-qwen2', 'tiny-qwen3'])(
    '%s token log-probs at a temperature match',
    async (name) => {
      const expected = golden(name);
      const model = await loadFixture(name);
      const logprobs = tokenLogprobs(model, [expected.ids], { temperature: expected.temperature });
      expect(maxAbsDiff(await logprobs.data(), expected.next_token_logprobs)).toBeLessThan(1e-4);
      logprobs.dispose();
      model.dispose();
    },
  );
});

describe('rope scaling', () => {
  it('llama3 inverse frequencies match the reference formula', () => {
    const { llama3_rope: c } = golden('tiny-llama');
    const ours = inverseFrequencies(c.head_dim, c.rope_theta, {
      type: 'llama3',
      factor: c.factor,
      lowFreqFactor: c.low_freq_factor,
      highFreqFactor: c.high_freq_factor,
      originalMaxPositions: c.original_max_position_embeddings,
    });
    ours.forEach((value, i) => expect(Math.abs(value / c.inv_freq[i]! - 1)).toBeLessThan(1e-6)); // golden has 7 digits
    // the scaling really changes something: the lowest frequency is divided by the factor
    expect(ours.at(-1)! / (1 / c.rope_theta ** ((c.head_dim - 2) / c.head_dim))).toBeCloseTo(
      1 / c.factor,
      8,
    );
  });
});
