// Decoding's fused attention kernel (kernels/simd/decode_attention.ts) against attention in float64
// over the same cache slots, and generate() with it against generate() on the tfjs route.
import * as tf from '@tensorflow/tfjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CausalLM } from '../../../src/model/model.ts';
import { generate } from '../../../src/model/sample.ts';
import {
  decodeAttention,
  decodeAttentionActive,
} from '../../../src/kernels/tfjs/decode_attention.ts';
import { simdDecodeAttentionModule } from '../../../src/kernels/simd/decode_attention.ts';
import { loadFixture, useBackend } from '../../helpers/models.ts';
import { filled } from '../../helpers/numbers.ts';
import { setSwitches } from '../../../src/kernels/switches.ts';

/** Test data whose amplitude varies along the row (1 to 1.8, period 5). */
const rippled = (length: number, seed: number) =>
  filled(length, seed * 1.3, { scale: (i) => 1 + (i % 5) * 0.2 });

describe('decode attention kernel (wasm)', () => {
  beforeAll(() => useBackend('wasm'));
  afterEach(() => {
    setSwitches({ decodeAttention: true });
  });

  it('is a valid module under 4 KB, active for head widths that are multiples of 4', () => {
    const bytes = simdDecodeAttentionModule();
    expect(WebAssembly.validate(bytes)).toBe(true);
    expect(bytes.length).toBeLessThan(4096);
    expect(decodeAttentionActive(64)).toBe(true);
    expect(decodeAttentionActive(30)).toBe(false);
    setSwitches({ decodeAttention: false });
    expect(decodeAttentionActive(64)).toBe(false);
  });

  // hd: single-vector blocks only (12), 8-vector blocks and single ones (48), 8-vector blocks (64);
  // S: key rows in fours and one at a time; R: grouped query heads sharing a key head
  it.each([
    [12, 7, 2],
    [48, 13, 1],
    [64, 4, 3],
    [64, 1, 1],
  ])(
    'hd %i, %i positions, %i query rows a key head: softmax(q K^T / sqrt(hd) + bias) V within 2e-6 of float64',
    (hd, S, R) => {
      const [B, Hkv, capacity] = [3, 2, 16];
      const scale = 1 / Math.sqrt(hd);
      const q = rippled(B * Hkv * R * hd, 1);
      const k = rippled(B * Hkv * capacity * hd, 2);
      const v = rippled(B * Hkv * capacity * hd, 3);
      for (let slice = 0; slice < B * Hkv; slice++) {
        // slots past S hold NaN: read one, and the output shows it
        k.fill(Number.NaN, (slice * capacity + S) * hd, (slice + 1) * capacity * hd);
        v.fill(Number.NaN, (slice * capacity + S) * hd, (slice + 1) * capacity * hd);
      }
      const bias = Float32Array.from({ length: B * S }, (_, i) =>
        i % S === 0 && S > 1 && i > 0 ? -1e9 : 0,
      ); // sequences 1, 2 hide key 0
      const out = tf.tidy(() =>
        decodeAttention(
          tf.tensor4d(q, [B, Hkv, R, hd]),
          tf.tensor4d(k, [B, Hkv, capacity, hd]),
          tf.tensor4d(v, [B, Hkv, capacity, hd]),
          tf.tensor(bias, [B, 1, 1, 1, S]),
          S,
          scale,
        ),
      );
      expect(out.shape).toEqual([B, Hkv, R, hd]);
      const got = out.dataSync();
      out.dispose();
      for (let b = 0; b < B; b++) {
        for (let h = 0; h < Hkv; h++) {
          const slice = b * Hkv + h;
          for (let r = 0; r < R; r++) {
            const row = (slice * R + r) * hd;
            const scores = Array.from({ length: S }, (_, j) => {
              let dot = 0;
              for (let d = 0; d < hd; d++)
                dot += Math.fround(q[row + d]! * scale) * k[(slice * capacity + j) * hd + d]!;
              return dot + bias[b * S + j]!;
            });
            const max = Math.max(...scores);
            const weights = scores.map((x) => Math.exp(x - max));
            const total = weights.reduce((a, x) => a + x, 0);
            for (let d = 0; d < hd; d++) {
              let want = 0;
              for (let j = 0; j < S; j++)
                want += (weights[j]! / total) * v[(slice * capacity + j) * hd + d]!;
              expect(Math.abs(got[row + d]! - want)).toBeLessThan(2e-6 * (1 + Math.abs(want)));
            }
          }
        }
      }
    },
  );

  it('refuses shapes that do not fit with a clear error', () => {
    const query = tf.zeros([1, 1, 1, 8]);
    const cache = tf.zeros([1, 1, 4, 8]);
    const bias = tf.zeros([1, 1, 1, 1, 5]);
    expect(() => decodeAttention(query, cache, cache, bias, 5, 1)).toThrow(
      /decodeAttention: .* for 5 positions do not fit/,
    );
    tf.dispose([query, cache, bias]);
  });
});

describe('generate with the decode attention kernel (wasm)', () => {
  let model: CausalLM;
  beforeAll(async () => {
    await useBackend('wasm');
    model = await loadFixture('tiny-qwen2'); // grouped-query attention
  });
  afterAll(() => {
    setSwitches({ decodeAttention: true, decodeBlock: true });
    model.dispose();
  });

  it('draws the same tokens as the tfjs route, log-probs within 1e-5, prompts of different lengths', async () => {
    const prompts = [
      [257, 72, 105],
      [10, 11],
      [257, 5, 6, 7, 8, 9],
    ];
    const run = async (on: boolean, temperature: number) => {
      // the kernel on its own (the decode block runs it inside:
      // test/kernels/tfjs/decode_block.test.ts)
      setSwitches({ decodeAttention: on, decodeBlock: false });
      return generate(model, prompts, { maxNewTokens: 12, temperature, seed: 3, eosIds: [] });
    };
    const kernelsOf = async (on: boolean) =>
      (
        await tf.profile(async () => {
          await run(on, 0);
        })
      ).kernels.map((k) => k.name);
    expect(await kernelsOf(true)).toContain('AgenticRlDecodeAttention');
    expect(await kernelsOf(false)).not.toContain('AgenticRlDecodeAttention');
    for (const temperature of [0, 1]) {
      const [fused, tfjs] = [await run(true, temperature), await run(false, temperature)];
      expect(fused.ids).toEqual(tfjs.ids);
      fused.logprobs
        .flat()
        .forEach((x, i) => expect(Math.abs(x - tfjs.logprobs.flat()[i]!)).toBeLessThan(1e-5));
    }
  });
});
