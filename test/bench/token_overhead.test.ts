// The per-token fixed overhead figure (src/bench/token_overhead.ts) on a tiny model: three figures
// that add up, the products' copies freed after, and none where there is no dot store to time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenOverhead } from '../../src/bench/token_overhead.ts';
import { dotStore } from '../../src/kernels/matmul/decode_products.ts';
import type { CausalLM } from '../../src/model/model.ts';
import { loadFixture, useBackend } from '../helpers/models.ts';

describe('bench: per-token overhead of cached decoding', () => {
  let model: CausalLM;
  beforeAll(async () => {
    await useBackend('wasm');
    model = await loadFixture('tiny-qwen2');
  });
  afterAll(() => model.dispose());

  it('gives a step, its products and their difference, and frees the copies it made', async () => {
    const store = dotStore();
    const figures = await tokenOverhead(model, 3);
    if (!store) {
      expect(figures).toEqual({}); // no relaxed SIMD: no dot kernel, nothing to subtract
      return;
    }
    const { decode_token_ms, decode_token_products_ms, decode_token_overhead_ms } = figures;
    expect(decode_token_ms).toBeGreaterThan(0);
    expect(decode_token_products_ms).toBeGreaterThan(0);
    expect(decode_token_overhead_ms).toBeCloseTo(decode_token_ms! - decode_token_products_ms!, 9);
    // the timed copies live under keys below every tensor id, and are released
    expect(store.ids().filter((id) => id < 0)).toEqual([]);
  });
});
