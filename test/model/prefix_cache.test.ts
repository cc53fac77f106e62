// Keeping a sequence's keys and values for its next turn (prefix_cache.ts): the store's rules, and
// KvCache.extract and split, which make entries, and generate() from cached prefixes against
// generate() prefilling the whole prompts; and the memory of moving keys between the two: entries
// freed a layer at a time as a turn's cache takes them, rows a layer at a time as they leave it.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { CausalLM } from '../../src/model/model.ts';
import { KvCache } from '../../src/model/kv_cache.ts';
import { PrefixCache, type PrefixEntry } from '../../src/model/prefix_cache.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { Rng } from '../../src/model/rng.ts';
import { type GenerateResult, generate } from '../../src/model/sample.ts';
import { modelSampler } from '../../src/rl/policy.ts';
import { loadFixture, useBackend } from '../helpers/models.ts';
import { maxAbsDiff } from '../helpers/numbers.ts';

const entry = (ids: number[], width = 2): PrefixEntry => ({
  ids,
  keys: [tf.zeros([1, 1, ids.length, width])],
  values: [tf.zeros([1, 1, ids.length, width])],
});

describe('PrefixCache', () => {
  beforeAll(() => useBackend('wasm'));

  it('gives a prompt the longest entry that is a proper prefix of it, once', () => {
    const before = tf.memory().numTensors;
    const cache = new PrefixCache();
    for (const ids of [[1, 2], [1, 2, 3, 4], [1, 2, 3, 9], [5]]) cache.put(entry(ids));
    expect(cache.take([7, 1, 2, 3])).toBeNull(); // nothing starts it
    expect(cache.take([1, 2, 3, 4])).toEqual(expect.objectContaining({ ids: [1, 2] })); // [1, 2, 3, 4] would leave no token to run
    const taken = cache.take([1, 2, 3, 4, 5])!;
    expect(taken.ids).toEqual([1, 2, 3, 4]);
    expect(cache.take([1, 2, 3, 4, 5])).toBeNull(); // consumed (and [1, 2] went to the earlier prompt)
    expect(cache.size).toBe(2);
    expect(cache.reusedTokens).toBe(6);
    tf.dispose([...taken.keys, ...taken.values]);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(tf.memory().numTensors).toBe(before + 2); // the first entry taken, still the caller's
  });

  it('forgets the entries an ended sequence left, and only those, freeing their tensors', () => {
    const before = tf.memory().numTensors;
    const cache = new PrefixCache();
    for (const ids of [
      [1, 2, 3],
      [1, 2, 3, 4, 5],
      [1, 2, 9],
      [1, 2, 3, 4, 5, 6, 7],
    ])
      cache.put(entry(ids));
    cache.forget([1, 2, 3, 4, 5, 6]); // [1, 2, 3] and [1, 2, 3, 4, 5] are its; the others are not
    expect(cache.size).toBe(2);
    expect(cache.numbers).toBe(4 * 3 + 4 * 7);
    expect(tf.memory().numTensors).toBe(before + 4);
    const sibling = cache.take([1, 2, 9, 0])!; // a sibling's entry is still there
    expect(sibling.ids).toEqual([1, 2, 9]);
    cache.clear();
    expect(tf.memory().numTensors).toBe(before + 2); // the taken entry is the caller's
    tf.dispose([...sibling.keys, ...sibling.values]);
  });

  it('drops the oldest entries past its budget', () => {
    const before = tf.memory().numTensors;
    const cache = new PrefixCache(100); // numbers: an entry of n ids holds 4n
    cache.put(entry(Array.from({ length: 10 }, (_, i) => i)));
    cache.put(entry(Array.from({ length: 10 }, (_, i) => 100 + i)));
    cache.put(entry(Array.from({ length: 10 }, (_, i) => 200 + i)));
    expect(cache.numbers).toBe(80);
    expect(cache.size).toBe(2);
    expect(cache.take([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toBeNull(); // the oldest went
    const kept = cache.take([100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 0])!;
    expect(kept.ids[0]).toBe(100);
    tf.dispose([...kept.keys, ...kept.values]);
    cache.clear();
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('KvCache.extract', () => {
  beforeAll(() => useBackend('wasm'));

  it("gives a row's keys and values at the ranges asked, the same from an in-place cache as from a concatenating one", () => {
    const [B, Hkv, hd, layers] = [3, 2, 4, 2];
    const caches = [
      new KvCache(layers, { inPlace: true }),
      new KvCache(layers, { inPlace: false }),
    ];
    const before = tf.memory().numTensors;
    // two writes (50 slots, then 20): the in-place storage grows to 128 slots, 70 of them filled
    for (const [step, T] of [
      [0, 50],
      [1, 20],
    ] as const) {
      for (let layer = 0; layer < layers; layer++) {
        const key = tf.tidy(() =>
          tf.add(
            tf.range(0, B * Hkv * T * hd).reshape([B, Hkv, T, hd]),
            1000 * (10 * step + layer),
          ),
        );
        const value = tf.tidy(() => tf.neg(key));
        caches[0]!.write(layer, key, value);
        tf.tidy(() => {
          caches[1]!.append(layer, key.clone(), value.clone());
        }); // it keeps what it returns (the first time, its input)
        tf.dispose([key, value]);
      }
    }
    const ranges: [number, number][] = [
      [3, 9],
      [9, 9],
      [40, 61],
      [69, 70],
    ];
    const [inPlace, concat] = caches.map((cache) => cache.extract(1, ranges));
    for (const part of ['keys', 'values'] as const) {
      inPlace![part].forEach((tensor, layer) => {
        expect(tensor.shape).toEqual([1, Hkv, 6 + 21 + 1, hd]);
        expect(Array.from(tensor.dataSync())).toEqual(Array.from(concat![part][layer]!.dataSync()));
      });
    }
    // spot check against the numbers written: row 1, head 1, slot 40 (the second write's first rows
    // start at 50)
    const want = 1000 * 0 + ((1 * Hkv + 1) * 50 + 40) * hd;
    expect(inPlace!.keys[0]!.dataSync()[(1 * 28 + 6) * hd]).toBe(want);
    tf.dispose([...inPlace!.keys, ...inPlace!.values, ...concat!.keys, ...concat!.values]);
    caches.forEach((cache) => cache.dispose());
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('KvCache.split', () => {
  beforeAll(() => useBackend('wasm'));

  const [B, Hkv, hd, layers, S] = [4, 2, 4, 8, 40];
  /** A cache of `layers` layers, B rows, S slots of distinct numbers. */
  const filled = (inPlace: boolean) => {
    const cache = new KvCache(layers, { inPlace });
    for (let layer = 0; layer < layers; layer++) {
      tf.tidy(() => {
        const key = tf.add(tf.range(0, B * Hkv * S * hd).reshape([B, Hkv, S, hd]), 1e4 * layer);
        if (inPlace) cache.write(layer, key, tf.neg(key));
        else cache.append(layer, key, tf.neg(key));
      });
    }
    return cache;
  };
  const ranges: [number, number][] = [
    [2, 9],
    [20, 33],
  ];
  const numbers = (tensors: tf.Tensor[]) => tensors.map((t) => Array.from(t.dataSync()));

  for (const inPlace of [true, false]) {
    const mode = inPlace ? 'in-place' : 'concatenating';
    it(`takes rows as extract() does and keeps the others as select() does (${mode})`, () => {
      const before = tf.memory().numTensors;
      const [cache, twin] = [filled(inPlace), filled(inPlace)];
      const want = [1, 3].map((row) => twin.extract(row, ranges));
      twin.select([2, 0]);
      const parts = cache.split(
        [1, 3].map((row) => ({ row, ranges })),
        [2, 0],
      );
      expect(cache.batch).toBe(2);
      expect(cache.length).toBe(S);
      parts.forEach((part, i) => {
        expect(numbers(part.keys)).toEqual(numbers(want[i]!.keys));
        expect(numbers(part.values)).toEqual(numbers(want[i]!.values));
      });
      for (const row of [0, 1]) {
        const [mine, theirs] = [cache, twin].map((c) => c.extract(row, [[0, S]]));
        expect(numbers([...mine!.keys, ...mine!.values])).toEqual(
          numbers([...theirs!.keys, ...theirs!.values]),
        );
        tf.dispose([...mine!.keys, ...mine!.values, ...theirs!.keys, ...theirs!.values]);
      }
      tf.dispose([...parts, ...want].flatMap(({ keys, values }) => [...keys, ...values]));
      [cache, twin].forEach((c) => c.dispose());
      expect(tf.memory().numTensors).toBe(before);
    });

    it(`taking every row frees the batch a layer at a time: at most one layer more than the batch (${mode})`, async () => {
      const cache = filled(inPlace);
      const before = tf.memory().numBytes;
      let parts: { keys: tf.Tensor[]; values: tf.Tensor[] }[] = [];
      const profile = await tf.profile(() => {
        parts = cache.split(
          [...Array(B).keys()].map((row) => ({ row, ranges })),
          [],
        );
        return [];
      });
      const taken = parts.flatMap(({ keys, values }) => [...keys, ...values]);
      const takenBytes = taken.reduce((sum, t) => sum + 4 * t.size, 0);
      expect(takenBytes).toBe(B * 2 * layers * Hkv * (7 + 13) * hd * 4);
      // extracting every row before freeing the batch peaked at the batch + all it took
      expect(profile.peakBytes - before).toBeLessThanOrEqual(takenBytes / layers);
      expect(cache.length).toBe(0);
      expect(cache.batch).toBe(0);
      tf.dispose(taken);
    });
  }
});

describe('generate from cached prefixes: memory (wasm)', () => {
  // many thin layers, so that a layer is a small part of the keys and values
  const config = parseModelConfig({
    model_type: 'llama',
    vocab_size: 64,
    hidden_size: 32,
    intermediate_size: 64,
    num_hidden_layers: 16,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    max_position_embeddings: 1024,
  });
  let model: CausalLM;
  beforeAll(async () => {
    await useBackend('wasm');
    model = CausalLM.fromWeights(config, randomWeights(config, 3));
  });
  afterAll(() => model.dispose());

  for (const inPlaceCache of [true, false]) {
    it(`a second turn holds its entries and its cache together only a few layers at a time (${inPlaceCache ? 'in-place' : 'concatenating'} cache)`, async () => {
      const maxNewTokens = 4;
      const prompts = Array.from({ length: 6 }, (_, b) =>
        Array.from({ length: 150 + b }, (_, t) => (t * 7 + b) % 64),
      );
      const options = { maxNewTokens, temperature: 1, eosIds: [] as number[], inPlaceCache };
      const cache = new PrefixCache();
      const first = await generate(model, prompts, { ...options, seed: 1, prefixCache: cache });
      const next = prompts.map((p, b) => [...p, ...first.ids[b]!, 5]);
      const held = 4 * cache.numbers; // each prompt and all its output but the last token
      const before = tf.memory().numBytes;
      const tensors = tf.memory().numTensors;
      let cached: GenerateResult | null = null;
      const profile = await tf.profile(async () => {
        cached = await generate(model, next, { ...options, seed: 2, prefixCache: cache });
        return [];
      });
      // the turn's cache: every row at the longest entry's slots + 2 new tokens + the token budget
      const perSlot = 2 * config.numKvHeads * config.headDim * 4; // keys and values, one layer
      const slots = prompts.at(-1)!.length + maxNewTokens - 1 + 2 + maxNewTokens;
      const layer = next.length * slots * perSlot;
      const batch = config.numLayers * layer;
      // entries and cache were alive whole together, and the entries copied twice more (3.1 and
      // 2.0 times the entries here): now the cache's growth over them and a few layers' copies
      expect(profile.peakBytes - before).toBeLessThan(batch - held + 4 * layer);
      expect(4 * layer).toBeLessThan(held / 2);
      // the entries taken went, the turn's came: nothing else stays
      expect(tf.memory().numBytes - before).toBe(4 * cache.numbers - held);
      expect(tf.memory().numTensors).toBe(tensors);
      const whole = await generate(model, next, { ...options, seed: 2 });
      expect(cached!.ids).toEqual(whole.ids);
      cache.clear();
    });
  }
});

describe('generate from cached prefixes (wasm)', () => {
  let model: CausalLM;
  beforeAll(async () => {
    await useBackend('wasm');
    model = await loadFixture('tiny-qwen2');
    await generate(model, [[1, 2]], { maxNewTokens: 2, temperature: 0 }); // tensors the model makes once (RoPE's tables), before any count
  });
  afterAll(() => model.dispose());

  // a first turn, then second turns that extend it (two rows with cached prefixes of different
  // lengths, one new prompt), prefilled in chunks of 3 past the cached slots
  for (const inPlaceCache of [true, false]) {
    it(`a second turn from cached prefixes samples as from whole prompts (${inPlaceCache ? 'in-place' : 'concatenating'} cache)`, async () => {
      const before = tf.memory().numTensors;
      const cache = new PrefixCache();
      const first = [
        [257, 72, 105, 33],
        [257, 10],
      ];
      const options = {
        maxNewTokens: 5,
        temperature: 0,
        eosIds: [] as number[],
        prefillChunk: 3,
        inPlaceCache,
      };
      const turn1 = await generate(model, first, { ...options, prefixCache: cache });
      expect(cache.size).toBe(2);
      const second = [
        [...first[0]!, ...turn1.ids[0]!, 258, 10, 287, 45],
        [1, 2, 3],
        [...first[1]!, ...turn1.ids[1]!, 46],
      ];
      const cached = await generate(model, second, { ...options, prefixCache: cache });
      expect(cache.reusedTokens).toBe(first[0]!.length + 4 + first[1]!.length + 4); // each prompt and all its output but the last token
      const whole = await generate(model, second, options);
      expect(cached.ids).toEqual(whole.ids);
      cached.logprobs.forEach((row, i) =>
        expect(maxAbsDiff(row, whole.logprobs[i]!)).toBeLessThan(1e-4),
      );
      // sampled, with the same streams: the same draws
      const streams = () => second.map((_, i) => new Rng(50 + i));
      const again = await generate(model, second, {
        ...options,
        temperature: 1,
        prefixCache: cache,
        streams: streams(),
      });
      expect(cache.reusedTokens).toBeGreaterThan(0);
      const fresh = await generate(model, second, {
        ...options,
        temperature: 1,
        streams: streams(),
      });
      expect(again.ids).toEqual(fresh.ids);
      cache.clear();
      expect(tf.memory().numTensors).toBe(before);
    });
  }

  it('keeps nothing past the rollout: the sampler releases its cache', async () => {
    const before = tf.memory().numTensors;
    const sampler = modelSampler(model);
    const options = { maxNewTokens: 4, temperature: 1, eosIds: [] as number[] };
    await sampler.sample(
      [
        [257, 72],
        [257, 10, 11],
      ],
      [new Rng(1), new Rng(2)],
      options,
    );
    expect(sampler.prefixCache.size).toBe(2);
    expect(tf.memory().numTensors).toBeGreaterThan(before);
    sampler.release!();
    expect(tf.memory().numTensors).toBe(before);
  });
});
