// KV-cached batched sampling against full forward passes, and per-sequence stopping.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decoderForward, outputLogits } from '../../src/model/decoder.ts';
import { KvCache, maskBias } from '../../src/model/kv_cache.ts';
import type { CausalLM } from '../../src/model/model.ts';
import { generate, sampleToken } from '../../src/model/sample.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadFixture, useBackend } from '../helpers/models.ts';
import { maxAbsDiff } from '../helpers/numbers.ts';

/** log-softmax of one logits row, in float64. */
function logSoftmax(row: Float32Array): number[] {
  const max = Math.max(...row);
  const logTotal = Math.log(row.reduce((sum, z) => sum + Math.exp(z - max), 0));
  return Array.from(row, (z) => z - max - logTotal);
}

describe('KV cache and batched sampling (wasm)', () => {
  let model: CausalLM;
  beforeAll(async () => {
    await useBackend('wasm');
    model = await loadFixture('tiny-qwen2');
  });
  afterAll(() => model.dispose());

  it('cached decoding gives the full forward logits at every position', () =>
    cachedMatchesFull(model));

  it('so does Qwen3 (q/k head norms before the cache, head width 16 != hidden / heads)', async () => {
    const qwen3 = await loadFixture('tiny-qwen3');
    cachedMatchesFull(qwen3);
    qwen3.dispose();
  });

  /**
   * Prefill 4 positions, then 3, then one token at a time: every position's logits as the full
   * forward's.
   */
  function cachedMatchesFull(model: CausalLM): void {
    const ids = [257, 72, 105, 33, 258, 10, 287, 0, 200, 45, 46];
    const full = model.logits(ids);
    const cache = new KvCache(model.config.numLayers);
    // prefill 4 positions at once, then 3, then one token at a time
    const pieces = [[0, 4], [4, 7], ...ids.slice(7).map((_, k) => [7 + k, 8 + k])] as [
      number,
      number,
    ][];
    for (const [start, end] of pieces) {
      const T = end - start;
      const rows = tf.tidy(() => {
        const hidden = decoderForward(
          model,
          {
            ids: Int32Array.from(ids.slice(start, end)),
            batch: 1,
            time: T,
            positions: Array.from({ length: T }, (_, t) => start + t),
            maskBias: maskBias(1, T, end, (_b, i, j) => j <= start + i),
            cache,
          },
          model.forwardMode(false),
        );
        return outputLogits(model.params, hidden);
      });
      const data = rows.dataSync() as Float32Array;
      rows.dispose();
      for (let t = 0; t < T; t++) {
        expect(
          maxAbsDiff(
            data.subarray(t * model.config.vocabSize, (t + 1) * model.config.vocabSize),
            full[start + t]!,
          ),
        ).toBeLessThan(1e-4);
      }
    }
    expect(cache.length).toBe(ids.length);
    cache.dispose();
  }

  it('the in-place cache (wasm) equals the concatenating one through regrowth and row selection', () => {
    const inPlace = new KvCache(model.config.numLayers);
    const concat = new KvCache(model.config.numLayers, { inPlace: false });
    expect(inPlace.inPlace).toBe(true); // wasm with the SIMD kernel: the default
    const before = tf.memory().numTensors;
    const run = (cache: KvCache, ids: number[], T: number, start: number, rowPad: number[]) => {
      const batch = ids.length / T;
      const rows = tf.tidy(() =>
        outputLogits(
          model.params,
          decoderForward(
            model,
            {
              ids: Int32Array.from(ids),
              batch,
              time: T,
              positions: ids.map((_, n) =>
                Math.max(0, start + (n % T) - rowPad[Math.floor(n / T)]!),
              ),
              maskBias: maskBias(
                batch,
                T,
                start + T,
                (b, i, j) => j <= start + i && j >= rowPad[b]!,
              ),
              cache,
            },
            model.forwardMode(false),
          ),
        ),
      );
      const data = rows.dataSync() as Float32Array;
      rows.dispose();
      for (const logit of data) scale = Math.max(scale, Math.abs(logit));
      return data;
    };
    let scale = 0; // the largest |logit| seen (~38 here)
    // three sequences (the first left-padded by 2), a 5-position prefill, then 75 single tokens:
    // past the first capacity (64) and one doubling; rows 2 and 0 are kept after step 30
    let rowPad = [2, 0, 0];
    const prompt = [0, 0, 257, 72, 105, 257, 10, 287, 46, 45, 1, 2, 3, 4, 5];
    let maxDiff = maxAbsDiff(run(inPlace, prompt, 5, 0, rowPad), run(concat, prompt, 5, 0, rowPad));
    for (let step = 0; step < 75; step++) {
      if (step === 30) {
        for (const cache of [inPlace, concat]) cache.select([2, 0]);
        rowPad = [0, 2];
      }
      const ids = rowPad.map((_, b) => (step * 37 + b * 11) % model.config.vocabSize);
      maxDiff = Math.max(
        maxDiff,
        maxAbsDiff(run(inPlace, ids, 1, 5 + step, rowPad), run(concat, ids, 1, 5 + step, rowPad)),
      );
    }
    // the two caches' attention products sum in different orders: a few float32 ulps of the logits
    // (the largest ~38, where an ulp is 3.8e-6)
    expect(maxDiff).toBeLessThan(5e-7 * scale);
    expect([inPlace.length, concat.length, inPlace.batch]).toEqual([80, 80, 2]);
    inPlace.dispose();
    concat.dispose();
    expect(tf.memory().numTensors).toBe(before);
    // misuse is refused rather than mis-run
    expect(() =>
      tf.tidy(() => {
        concat.write(0, tf.zeros([1, 1, 1, 1]), tf.zeros([1, 1, 1, 1]));
      }),
    ).toThrow(/concatenates/);
    expect(() =>
      tf.tidy(() => {
        inPlace.append(0, tf.zeros([1, 1, 1, 1]), tf.zeros([1, 1, 1, 1]));
      }),
    ).toThrow(/in place/);
  });

  it('greedy tokens and their log-probs equal a full forward pass at every step', async () => {
    const prompt = [257, 72, 105, 33];
    const { ids, logprobs } = await generate(model, [prompt], {
      maxNewTokens: 8,
      temperature: 0,
      eosIds: [],
    });
    expect(ids[0]).toHaveLength(8);
    ids[0]!.forEach((token, k) => {
      const row = model.logits([...prompt, ...ids[0]!.slice(0, k)]).at(-1)!;
      const reference = logSoftmax(row);
      expect(token).toBe(reference.indexOf(Math.max(...reference)));
      expect(Math.abs(logprobs[0]![k]! - reference[token]!)).toBeLessThan(1e-4);
    });
  });

  it('a batch of prompts of different lengths equals each prompt alone', async () => {
    const prompts = [
      [257, 10],
      [257, 72, 105, 33, 258, 10, 287],
      [1, 2, 3, 4, 5],
    ];
    const options = { maxNewTokens: 6, temperature: 0, eosIds: [] as number[], prefillChunk: 3 };
    const batched = await generate(model, prompts, options);
    for (let i = 0; i < prompts.length; i++) {
      const alone = await generate(model, [prompts[i]!], options);
      expect(batched.ids[i]).toEqual(alone.ids[0]);
      expect(maxAbsDiff(batched.logprobs[i]!, alone.logprobs[0]!)).toBeLessThan(1e-4);
    }
  });

  it('identical prompts prefilled once (a GRPO group) sample as if each had been prefilled alone', async () => {
    // rows 0, 2, 3 share a prompt and rows 1, 4 another, interleaved, with a prompt of another
    // length
    const a = [257, 72, 105, 33];
    const b = [257, 10];
    const prompts = [a, b, a, [...a], b, [1, 2, 3, 4, 5, 6]];
    const options = {
      maxNewTokens: 8,
      temperature: 1,
      seed: 4,
      eosIds: [] as number[],
      prefillChunk: 3,
    };
    const before = tf.memory().numTensors;
    const shared = await generate(model, prompts, options);
    expect(tf.memory().numTensors).toBe(before);
    const separate = await generate(model, prompts, { ...options, sharePrefill: false });
    expect(shared.ids).toEqual(separate.ids);
    shared.logprobs.forEach((row, i) =>
      expect(maxAbsDiff(row, separate.logprobs[i]!)).toBeLessThan(1e-5),
    );
    // each copy samples from its own stream, so a group's members differ
    expect(new Set([0, 2, 3].map((i) => shared.ids[i]!.join())).size).toBeGreaterThan(1);
  });

  it('sampled log-probs are those of the sampled tokens at the sampling temperature', async () => {
    const prompt = [257, 72, 105];
    const temperature = 0.7;
    const { ids, logprobs } = await generate(model, [prompt], {
      maxNewTokens: 5,
      temperature,
      seed: 3,
      eosIds: [],
    });
    ids[0]!.forEach((token, k) => {
      const row = model.logits([...prompt, ...ids[0]!.slice(0, k)]).at(-1)!;
      const reference = logSoftmax(row.map((z) => z / temperature));
      expect(Math.abs(logprobs[0]![k]! - reference[token]!)).toBeLessThan(1e-4);
    });
  });

  it('the same seed gives the same tokens, another seed other tokens', async () => {
    const prompts = [
      [257, 72],
      [257, 105, 33],
    ];
    const options = { maxNewTokens: 12, temperature: 1, eosIds: [] as number[] };
    const first = await generate(model, prompts, { ...options, seed: 11 });
    const again = await generate(model, prompts, { ...options, seed: 11 });
    const other = await generate(model, prompts, { ...options, seed: 12 });
    expect(again.ids).toEqual(first.ids);
    expect(other.ids).not.toEqual(first.ids);
    // a caller's Rng advances, so two calls with one Rng differ
    const rng = new Rng(5);
    expect((await generate(model, prompts, { ...options, rng })).ids).not.toEqual(
      (await generate(model, prompts, { ...options, rng })).ids,
    );
  });

  it('each sequence stops on its own: eos, stop test, or length', async () => {
    const prompts = [
      [257, 72],
      [257, 105, 33],
      [1, 2, 3],
    ];
    const greedy = await generate(model, prompts, { maxNewTokens: 6, temperature: 0, eosIds: [] });
    const eosToken = greedy.ids[0]![2]!; // sequence 0 produces this token third
    const stopped = await generate(model, prompts, {
      maxNewTokens: 6,
      temperature: 0,
      eosIds: [eosToken],
      shouldStop: (index, generated) => index === 1 && generated.length === 4,
    });
    expect(stopped.finishReasons[0]).toBe('eos');
    expect(stopped.ids[0]).toEqual(greedy.ids[0]!.slice(0, greedy.ids[0]!.indexOf(eosToken) + 1));
    const firstEos1 = greedy.ids[1]!.indexOf(eosToken);
    if (firstEos1 === -1 || firstEos1 >= 4) {
      expect(stopped.finishReasons[1]).toBe('stop');
      expect(stopped.ids[1]).toEqual(greedy.ids[1]!.slice(0, 4));
    }
    // sequences that never meet a stop keep decoding correctly after others left the batch
    const firstEos2 = greedy.ids[2]!.indexOf(eosToken);
    expect(stopped.ids[2]).toEqual(
      firstEos2 === -1 ? greedy.ids[2] : greedy.ids[2]!.slice(0, firstEos2 + 1),
    );
    expect(stopped.finishReasons[2]).toBe(firstEos2 === -1 ? 'length' : 'eos');
  });

  it('leaves no tensors behind', async () => {
    await generate(model, [[257, 72]], { maxNewTokens: 2, temperature: 1 });
    const before = tf.memory().numTensors;
    await generate(
      model,
      [
        [257, 72],
        [1, 2, 3, 4],
      ],
      { maxNewTokens: 5, temperature: 1, shouldStop: (i, g) => i === 0 && g.length === 2 },
    );
    expect(tf.memory().numTensors).toBe(before);
  });

  it('refuses ids outside the vocabulary with a clear message', async () => {
    await expect(generate(model, [[1, 999]], { maxNewTokens: 1, temperature: 1 })).rejects.toThrow(
      /token id 999 outside the vocabulary/,
    );
  });
});

describe('sampleToken', () => {
  it('draws by inverse CDF and reports the tempered log-prob', () => {
    const logits = Float32Array.from([0, Math.log(3)]); // probabilities 1/4, 3/4 at temperature 1
    const counts = [0, 0];
    const rng = new Rng(1);
    for (let i = 0; i < 4000; i++) counts[sampleToken(logits, 0, 2, 1, rng).id]!++;
    expect(counts[1]! / 4000).toBeGreaterThan(0.72);
    expect(counts[1]! / 4000).toBeLessThan(0.78);
    expect(sampleToken(logits, 0, 2, 1, new Rng(1)).logprob).toBeOneOf(
      [Math.log(0.25), Math.log(0.75)].map((x) => expect.closeTo(x, 6)),
    );
    // temperature 0.5 squares the odds: 1/10 and 9/10
    const greedy = sampleToken(logits, 0, 2, 0, rng);
    expect(greedy.id).toBe(1);
    expect(greedy.logprob).toBeCloseTo(Math.log(0.75), 6);
    let seen = 0;
    for (let i = 0; i < 200; i++) {
      const draw = sampleToken(logits, 0, 2, 0.5, rng);
      expect(draw.logprob).toBeCloseTo(Math.log(draw.id === 1 ? 0.9 : 0.1), 6);
      seen += draw.id;
    }
    expect(seen).toBeGreaterThan(150);
  });
});
