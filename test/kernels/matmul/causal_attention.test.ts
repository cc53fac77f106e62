// Attention's products under a causal mask skip what the mask makes zero (kernels/simd/matmul.ts
// matmulCausal, kernels/matmul/attention_products.ts): the kernel's visible numbers are the full
// product's bit for bit and the hidden ones 0 (mode 1), or the k loop stops at the last visible key
// (mode 2), for periods of grouped queries, key offsets and every tail; split over helper threads
// the same; and a whole model's log-probs and gradients are the same bits with the skipping on and
// off.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { causalMatMulActive, useMatmulThreads } from '../../../src/kernels/matmul/kernels.ts';
import { stridedMatMul } from '../../../src/kernels/matmul/tfjs_kernels.ts';
import { parseModelConfig } from '../../../src/model_files/hf_config.ts';
import { tokenLogprobs } from '../../../src/model/logprobs.ts';
import { CausalLM } from '../../../src/model/model.ts';
import { randomWeights } from '../../../src/model/random_weights.ts';
import { simdMatmulCausalModule } from '../../../src/kernels/simd/matmul_variants.ts';
import { bits, filled } from '../../helpers/numbers.ts';
import { kernelCounts, setSwitches } from '../../../src/kernels/switches.ts';

describe('causal attention products', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
    expect(causalMatMulActive()).toBe(true);
  });
  afterAll(async () => {
    setSwitches({ causalSkipping: true });
    await useMatmulThreads(0);
  });

  it('the causal kernel is a valid module under 4 KB', () => {
    expect(WebAssembly.validate(simdMatmulCausalModule())).toBe(true);
    expect(simdMatmulCausalModule().length).toBeLessThan(4096);
  });

  // [batch, g (query blocks per matrix), T, S, hd]: row blocks that wrap a period (T % 4 != 0; T =
  // 3, 1, 2: a block of 4 rows ending at its own first position), keys past the queries (S > T), 8-
  // and 4-column blocks and scalar columns, one row
  it.each([
    [2, 1, 7, 7, 5],
    [3, 2, 6, 9, 8],
    [1, 3, 13, 13, 16],
    [2, 1, 33, 40, 12],
    [1, 1, 1, 1, 1],
    [4, 2, 5, 5, 3],
    [2, 2, 3, 3, 8],
    [2, 4, 1, 1, 4],
    [1, 3, 2, 5, 8],
    [2, 4, 3, 6, 4],
  ])(
    'batch %i, %i x %i queries, %i keys, head %i: visible numbers as the full product, hidden ones 0 or skipped',
    (batch, g, T, S, hd) => {
      const M = g * T;
      const offset = S - T;
      const visible = (r: number, j: number) => j <= (r % T) + offset;
      tf.tidy(() => {
        // mode 1, scores: Q (M, hd) @ K^T (hd, S), the keys are C's columns
        const q = tf.tensor3d(filled(batch * M * hd, 1), [batch, M, hd]);
        const kT = tf.tensor3d(filled(batch * hd * S, 2), [batch, hd, S]);
        const attrs = { batch, m: M, k: hd, n: S, strideA: M * hd, strideB: hd * S };
        const full = stridedMatMul(q, kT, attrs).dataSync();
        const causal = stridedMatMul(q, kT, { ...attrs, causal: 1, period: T, offset }).dataSync();
        for (let b = 0; b < batch; b++)
          for (let r = 0; r < M; r++)
            for (let j = 0; j < S; j++) {
              const i = (b * M + r) * S + j;
              if (visible(r, j)) expect(causal[i]).toBe(full[i]);
              else expect(causal[i] === 0 || causal[i] === full[i]).toBe(true); // 0, or the real score of a block straddling the limit
            }
        // mode 2, context: P (M, S), 0 past each row's keys, @ V (S, hd), the keys are the k axis
        const p = filled(batch * M * S, 3).map((v, i) =>
          visible(Math.floor(i / S) % M, i % S) ? v : 0,
        );
        const weights = tf.tensor3d(p, [batch, M, S]);
        const v = tf.tensor3d(filled(batch * S * hd, 4), [batch, S, hd]);
        const contextAttrs = { batch, m: M, k: S, n: hd, strideA: M * S, strideB: S * hd };
        expect(
          bits(stridedMatMul(weights, v, { ...contextAttrs, causal: 2, period: T, offset })),
        ).toEqual(bits(stridedMatMul(weights, v, contextAttrs)));
      });
    },
  );

  it("mode 1 leaves the columns past a row block's last visible key at 0", () => {
    tf.tidy(() => {
      const [T, S, hd] = [16, 16, 8];
      const q = tf.tensor3d(filled(T * hd, 5), [1, T, hd]);
      const kT = tf.tensor3d(filled(hd * S, 6), [1, hd, S]);
      const out = stridedMatMul(q, kT, {
        batch: 1,
        m: T,
        k: hd,
        n: S,
        strideA: 0,
        strideB: 0,
        causal: 1,
        period: T,
        offset: 0,
      }).dataSync();
      // rows 0-3 see keys up to 3: their 8-column block 0-7 is computed, columns 8-15 are 0
      for (let r = 0; r < 4; r++) for (let j = 8; j < S; j++) expect(out[r * S + j]).toBe(0);
      expect(out[3 * S + 3]).not.toBe(0);
    });
  });

  it('split over a helper thread: the same bits, by whole matrices', async () => {
    const [batch, T, S, hd] = [6, 96, 96, 64];
    const q = tf.tensor3d(filled(batch * T * hd, 7), [batch, T, hd]);
    const kT = tf.tensor3d(filled(batch * hd * S, 8), [batch, hd, S]);
    const attrs = {
      batch,
      m: T,
      k: hd,
      n: S,
      strideA: T * hd,
      strideB: hd * S,
      causal: 1,
      period: T,
      offset: 0,
    };
    await useMatmulThreads(0);
    const one = tf.tidy(() => bits(stridedMatMul(q, kT, attrs)));
    await useMatmulThreads(1);
    const many = tf.tidy(() => bits(stridedMatMul(q, kT, attrs)));
    expect(kernelCounts.splitProducts).toBe(1);
    expect(many).toEqual(one);
    tf.dispose([q, kT]);
  });

  it.each([
    [4, 4, 0],
    [4, 4, 1],
    [4, 2, 1],
  ])(
    'a model (%i heads, %i key heads, %i helpers): log-probs and gradients the same bits with skipping on and off',
    async (heads, kvHeads, helpers) => {
      await useMatmulThreads(helpers);
      const config = parseModelConfig({
        model_type: 'llama',
        vocab_size: 300,
        hidden_size: 128,
        intermediate_size: 256,
        num_hidden_layers: 2,
        num_attention_heads: heads,
        num_key_value_heads: kvHeads,
        max_position_embeddings: 512,
      });
      const model = CausalLM.fromWeights(config, randomWeights(config, 3), { kind: 'full' });
      const list = [...model.trainableVariables().values()];
      // sequences of different lengths: padded rows and hidden padding keys too
      const ids = [
        Array.from({ length: 67 }, (_, t) => (t * 7) % 300),
        Array.from({ length: 30 }, (_, t) => (t * 11 + 3) % 300),
        Array.from({ length: 45 }, (_, t) => (t * 5 + 1) % 300),
      ];
      const run = (on: boolean) => {
        setSwitches({ causalSkipping: on });
        return tf.tidy(() => {
          const { value, grads } = tf.variableGrads(
            () => tf.sum(tokenLogprobs(model, ids, { temperature: 0.7 })) as tf.Scalar,
            list,
          );
          return [
            bits(value),
            ...list.map((v) => bits(grads[v.name]!)),
            bits(tokenLogprobs(model, ids, { temperature: 0.7 })),
          ];
        });
      };
      expect(run(true)).toEqual(run(false));
      setSwitches({ causalSkipping: true });
      model.dispose();
    },
  );
});
