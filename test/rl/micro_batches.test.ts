// Micro-batches bounded by tokens (src/rl/micro_batches.ts): hand-worked cuts where the token
// budget binds, an over-long sequence alone, groups still sharing their prompt, microBatchSize
// still a cap; the rows counted are those tokenLogprobs runs; and the switch to recomputed layers.
import { describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { savedActivationBytes } from '../../src/model_files/activation_budget.ts';
import {
  forwardRows,
  lengthSortedBatches,
  microBatches,
  needsRecompute,
} from '../../src/rl/micro_batches.ts';
import type { CausalLM } from '../../src/model/model.ts';

const p = [1, 2, 3, 4]; // a prompt; its sequences' first generated token is the 5th (index 4)
const withPrompt = (n: number) => [...p, ...Array.from({ length: n }, () => 1)];

describe('micro-batches bounded by tokens', () => {
  it('counts the rows tokenLogprobs runs: the shared tokens once, each rest padded', () => {
    expect(forwardRows(13, 3, 3)).toBe(3 + 3 * (12 - 3)); // (s + B (T - s)), T = 12 positions
    expect(forwardRows(13, 1, 3)).toBe(12); // alone: nothing shared
    expect(forwardRows(13, 3, 0)).toBe(36);
  });

  it('cuts a group where its rows stay within the budget, still sharing the prompt', () => {
    // lengths 13, 8, 11, 9, 12, 10; longest first: 0, 4, 2, 5, 3, 1
    const six = [9, 4, 7, 5, 8, 6].map(withPrompt);
    const first = six.map(() => 4);
    // unbounded: [0, 4, 2] (30 rows) and [5, 3, 1] (21)
    expect(microBatches(six, 4, first)).toEqual([
      { indexes: [0, 4, 2], shared: 3 },
      { indexes: [5, 3, 1], shared: 3 },
    ]);
    // at 25 rows no three of the longest fit (30); the cheapest cut in rows plus 100 a pass:
    // [0, 4] (cost 23) [2, 5] (19) [3, 1] (15) = 357, against [0] [4, 2] [5, 3, 1] = 358
    const bounded = microBatches(six, 4, first, 25);
    expect(bounded).toEqual([
      { indexes: [0, 4], shared: 3 },
      { indexes: [2, 5], shared: 3 },
      { indexes: [3, 1], shared: 3 },
    ]);
    for (const { indexes, shared } of bounded) {
      const longest = Math.max(...indexes.map((i) => six[i]!.length));
      expect(forwardRows(longest, indexes.length, shared)).toBeLessThanOrEqual(25);
    }
    // microBatchSize still caps: at most 2 a micro-batch under a generous budget
    expect(microBatches(six, 2, first, 1000).every((b) => b.indexes.length <= 2)).toBe(true);
  });

  it('runs a sequence longer than the budget alone, and the rest of its group together', () => {
    const group = [36, 5, 6].map(withPrompt); // 40, 9 and 10 tokens
    const first = group.map(() => 4);
    // unbounded, all three together (3 + 3 * 37 + 100 = 214) beats the long one alone (257)
    expect(microBatches(group, 4, first)).toEqual([{ indexes: [0, 2, 1], shared: 3 }]);
    expect(microBatches(group, 4, first, 25)).toEqual([
      { indexes: [0], shared: 0 },
      { indexes: [2, 1], shared: 3 },
    ]);
  });

  it('bounds length-sorted micro-batches (nothing shared) by padded rows', () => {
    // longest first: 1 (9), 3 (9), 4 (7), 0 (5), 2 (2); rows = count x (longest - 1)
    expect(lengthSortedBatches([5, 9, 2, 9, 7], 4, 20)).toEqual([
      [1, 3],
      [4, 0, 2],
    ]);
    expect(lengthSortedBatches([5, 9, 2, 9, 7], 4, 5)).toEqual([[1], [3], [4], [0], [2]]);
    expect(lengthSortedBatches([5, 9, 2, 9, 7], 2)).toEqual([[1, 3], [4, 0], [2]]);
    expect(
      microBatches(
        [
          [1, 2, 3],
          [4, 5, 6, 7],
          [8, 9],
        ],
        4,
        undefined,
        4,
      ),
    ).toEqual([
      { indexes: [1], shared: 0 },
      { indexes: [0, 2], shared: 0 },
    ]);
  });
});

describe('recompute by budget', () => {
  const qwen05b = parseModelConfig({
    model_type: 'qwen2',
    vocab_size: 151936,
    hidden_size: 896,
    intermediate_size: 4864,
    num_hidden_layers: 24,
    num_attention_heads: 14,
    num_key_value_heads: 2,
    max_position_embeddings: 32768,
    tie_word_embeddings: true,
  });
  const demo = parseModelConfig({
    model_type: 'llama',
    vocab_size: 1536,
    hidden_size: 192,
    intermediate_size: 576,
    num_hidden_layers: 4,
    num_attention_heads: 4,
    num_key_value_heads: 4,
    max_position_embeddings: 1024,
    tie_word_embeddings: true,
  });
  const lora = (config: typeof demo) =>
    ({
      config,
      training: {
        kind: 'lora',
        lora: { rank: 8, alpha: 16, dropout: 0, targetModules: ['q_proj', 'v_proj'], seed: 0 },
      },
      params: { layers: [] },
    }) as unknown as CausalLM;
  // a default-run micro-batch: 4 samples of a ~155-token prompt, ~500 tokens each
  const group = [350, 300, 340, 320].map((n) =>
    Array.from({ length: 155 + n }, (_, t) => (t < 155 ? t : 1)),
  );

  it('recomputes Qwen2.5-0.5B at the default run shape, and not the demo model', () => {
    expect(needsRecompute(lora(qwen05b), group, 154)).toBe(true);
    expect(needsRecompute(lora(demo), group, 154)).toBe(false);
    expect(needsRecompute(lora(demo), group, 154, 1)).toBe(true); // a 1 MB budget
    // the 0.5B shape's saved activations: several GB plain, a few hundred MB recomputed
    const rows = forwardRows(505, 4, 154);
    const batch = { sequences: 4, shared: 154 };
    const [plain, recomputed] = [false, true].map(
      (recompute) => savedActivationBytes(qwen05b, rows, 504, recompute, { batch }) / 2 ** 20,
    );
    expect(plain).toBeGreaterThan(2000);
    expect(recomputed).toBeLessThan(450); // 404 MB: 24 inputs of 5.3 MB, one layer's 235 MB, the head
  });
});
