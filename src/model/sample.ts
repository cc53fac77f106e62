// The sampling face: many sequences decode together with a KV cache. Prompts of different
// lengths are left-padded into one batch (pad keys masked out, RoPE positions counted from each
// prompt's own start); each sequence stops on its own (EOS, a caller's stop test, or the token
// budget) and leaves the batch, so it stops costing compute. Tokens are drawn in JavaScript from
// our seeded Rng, one independent stream per sequence, and come back with their log-probs under
// the sampling temperature (the trainer's old_logprobs).
//
// Shapes: B live sequences, P padded prompt length, T positions in one call, D width, V vocabulary.
import * as tf from '@tensorflow/tfjs';
import { decoderForward, outputLogits } from './decoder.ts';
import { KvCache, maskBias } from './kv_cache.ts';
import type { CausalLM } from './model.ts';
import { dispose as disposeEntry, type PrefixCache } from './prefix_cache.ts';
import { Rng } from './rng.ts';
import { SimdWeights } from '../kernels/simd/sample.ts';
import { switches } from '../kernels/switches.ts';

/**
 * Why a sequence stopped: an EOS id, the caller's stop test, or the token budget / context limit.
 */
export type FinishReason = 'eos' | 'stop' | 'length';

/** Options for generate(). */
export interface GenerateOptions {
  maxNewTokens: number;
  /** 0 means greedy (then log-probs are reported at temperature 1). */
  temperature: number;
  /** Seed for the per-sequence streams (default 0); ignored when `rng` is given. */
  seed?: number;
  /** A generator to draw the per-sequence streams from (advanced by one split per sequence). */
  rng?: Rng;
  /**
   * One generator per sequence, used as they are (advanced in place); overrides seed and rng. The
   * agent loop gives each episode its own stream so its tokens do not depend on its batch mates.
   */
  streams?: Rng[];
  /** Stop ids (default: the config's eos_token_id); the stop token is included in the output. */
  eosIds?: number[];
  /** Called after each new token; true stops that sequence (e.g. a stop string was produced). */
  shouldStop?: (index: number, generatedIds: number[]) => boolean;
  /** Prompt positions per prefill call, bounding the attention scores' memory (default 128). */
  prefillChunk?: number;
  /**
   * Prefill identical prompts once and copy their cache rows (default true). GRPO samples each
   * prompt G times, so a rollout's first turn would otherwise run the same prompt through the
   * model G times.
   */
  sharePrefill?: boolean;
  /**
   * Keep keys and values in a preallocated cache written in place (default: wherever the wasm SIMD
   * kernel runs); false concatenates every step (kv_cache.ts). For comparisons.
   */
  inPlaceCache?: boolean;
  /**
   * Keys and values of earlier calls' sequences (prefix_cache.ts): a prompt that extends one of
   * them prefills only its new tokens, and every sequence's cache goes back in when it finishes.
   */
  prefixCache?: PrefixCache;
}

/** New tokens per prompt, their log-probs, and why each stopped. */
export interface GenerateResult {
  ids: number[][];
  logprobs: number[][];
  finishReasons: FinishReason[];
}

/** Samples continuations of every prompt (token ids) at once. */
export async function generate(
  model: CausalLM,
  prompts: number[][],
  options: GenerateOptions,
): Promise<GenerateResult> {
  const { temperature, maxNewTokens } = options;
  if (!(temperature >= 0)) throw new Error(`temperature must be >= 0, got ${temperature}`);
  if (!Number.isInteger(maxNewTokens) || maxNewTokens < 0)
    throw new Error(`maxNewTokens must be a non-negative integer, got ${maxNewTokens}`);
  model.checkIds(prompts);
  const count = prompts.length;
  const result: GenerateResult = {
    ids: prompts.map(() => []),
    logprobs: prompts.map(() => []),
    finishReasons: prompts.map(() => 'length'),
  };
  if (count === 0 || maxNewTokens === 0) return result;
  const source = options.rng ?? new Rng(options.seed ?? 0);
  if (options.streams && options.streams.length !== count) {
    throw new Error(`streams has ${options.streams.length} generators for ${count} prompts`);
  }
  const streams = options.streams ?? prompts.map(() => source.split());
  const eos = new Set(options.eosIds ?? model.config.eosTokenIds);
  const V = model.config.vocabSize;
  const maxPositions = model.config.maxPositions;

  // Cache slots: [0, base) hold the cached prefixes some prompts take from options.prefixCache,
  // each right-aligned (L[b] of them), then [base, base + P) the prompts' remaining tokens, each
  // right-aligned (pad[b] slots of padding first), then one slot per generated token. A row's
  // padding and the slots before its prefix are hidden by its mask.
  const entries = prompts.map((prompt) => options.prefixCache?.take(prompt) ?? null);
  const L = entries.map((entry) => entry?.ids.length ?? 0);
  const base = Math.max(...L);
  const P = Math.max(...prompts.map((p, b) => p.length - L[b]!));
  const pad = prompts.map((p, b) => P - (p.length - L[b]!)); // left padding of each sequence's new tokens
  const hidden = (b: number, j: number) => j < base - L[b]! || (j >= base && j < base + pad[b]!);
  let live = prompts.map((_, i) => i); // original index of each batch row
  const cache = new KvCache(model.config.numLayers, {
    ...(options.inPlaceCache === undefined ? {} : { inPlace: options.inPlaceCache }),
    capacity: base + P + maxNewTokens, // every slot this generation can fill
  });
  /**
   * Drops the batch rows `finished` and keeps `kept`, in that order; with a prefix cache, each
   * finished sequence's cache (all it generated but the last token) goes into it, taken out layer
   * by layer as the batch's layers are freed (KvCache.split).
   */
  const retire = (finished: number[], kept: number[]) => {
    if (!options.prefixCache) {
      if (kept.length > 0) cache.select(kept);
      else cache.dispose();
      return;
    }
    const done = (row: number) => result.ids[live[row]!]!.length - 1;
    const parts = cache.split(
      finished.map((row) => {
        const index = live[row]!;
        const ranges: [number, number][] = [
          [base - L[index]!, base],
          [base + pad[index]!, base + P + done(row)],
        ];
        return { row, ranges };
      }),
      kept,
    );
    finished.forEach((row, i) => {
      const index = live[row]!;
      const ids = [...prompts[index]!, ...result.ids[index]!.slice(0, done(row))];
      options.prefixCache!.put({ ids, ...parts[i]! });
    });
  };
  try {
    if (base > 0) {
      // the cached prefixes, right-aligned into the first `base` slots, a layer at a time: each
      // layer's entry tensors are freed as soon as the cache holds them, so the entries and the
      // new cache never coexist whole (at the SmolLM2-135M shape, that was the rollout's peak)
      const [Hkv, hd] = [model.config.numKvHeads, model.config.headDim];
      // row b's base slots: zeros (hidden), then its own prefix, if any
      const slots = (own: tf.Tensor | undefined, b: number) => {
        const gap = tf.zeros([1, Hkv, base - L[b]!, hd]);
        return own ? tf.concat([gap, own], 2) : gap;
      };
      for (let layer = 0; layer < model.config.numLayers; layer++) {
        tf.tidy(() => {
          const keys = tf.concat(
            entries.map((entry, b) => slots(entry?.keys[layer], b)),
            0,
          );
          const values = tf.concat(
            entries.map((entry, b) => slots(entry?.values[layer], b)),
            0,
          );
          if (cache.inPlace) cache.write(layer, keys, values);
          else cache.append(layer, keys, values);
        });
        tf.dispose(
          entries.flatMap((entry) => (entry ? [entry.keys[layer]!, entry.values[layer]!] : [])),
        );
      }
    }
    // Distinct prompts are prefilled once; row b of the batch copies distinct prompt rowOf[b]
    // (not with cached prefixes: each row then starts from its own).
    const rowByKey = new Map<string, number>();
    const distinct: number[] = []; // the first prompt index of each distinct prompt
    const rowOf = prompts.map((prompt, b) => {
      const key = options.sharePrefill === false || base > 0 ? String(b) : prompt.join(',');
      if (!rowByKey.has(key)) {
        rowByKey.set(key, distinct.length);
        distinct.push(b);
      }
      return rowByKey.get(key)!;
    });
    const U = distinct.length;
    // Prefill in chunks of prompt positions; only the last chunk's final row feeds sampling.
    const chunk = Math.max(1, options.prefillChunk ?? 128);
    let logits: Float32Array = new Float32Array(0);
    for (let start = 0; start < P; start += chunk) {
      const T = Math.min(chunk, P - start);
      const ids = new Int32Array(U * T);
      const positions = new Int32Array(U * T);
      distinct.forEach((index, u) => {
        const prompt = prompts[index]!;
        for (let t = 0; t < T; t++) {
          const slot = start + t;
          ids[u * T + t] = slot >= pad[index]! ? prompt[L[index]! + slot - pad[index]!]! : 0;
          positions[u * T + t] = L[index]! + Math.max(0, slot - pad[index]!);
        }
      });
      const mask = (u: number, i: number, j: number) =>
        j <= base + start + i && !hidden(distinct[u]!, j);
      logits = await stepLogits(model, cache, ids, positions, U, T, mask, start + T === P);
    }
    if (U < count) {
      cache.select(rowOf); // (U, ...) -> (count, ...): each sequence gets its prompt's keys and values
      const expanded = new Float32Array(count * V);
      rowOf.forEach((u, b) => expanded.set(logits.subarray(u * V, (u + 1) * V), b * V));
      logits = expanded;
    }
    let steps = 0;
    for (;;) {
      const B = live.length;
      const finished = new Set<number>();
      for (let row = 0; row < B; row++) {
        const index = live[row]!;
        const { id, logprob } = sampleToken(logits, row * V, V, temperature, streams[index]!);
        const generated = result.ids[index]!;
        generated.push(id);
        result.logprobs[index]!.push(logprob);
        let reason: FinishReason | null = null;
        if (eos.has(id)) reason = 'eos';
        else if (options.shouldStop?.(index, generated)) reason = 'stop';
        else if (
          generated.length >= maxNewTokens ||
          prompts[index]!.length + generated.length >= maxPositions
        )
          reason = 'length';
        if (reason) {
          result.finishReasons[index] = reason;
          finished.add(row);
        }
      }
      steps++;
      if (finished.size > 0) {
        const kept = [...Array(B).keys()].filter((row) => !finished.has(row));
        retire([...finished], kept);
        live = kept.map((row) => live[row]!);
      }
      if (live.length === 0) break;
      const ids = Int32Array.from(live, (index) => result.ids[index]!.at(-1)!);
      const positions = Int32Array.from(
        live,
        (index) => prompts[index]!.length + result.ids[index]!.length - 1,
      );
      const S = base + P + steps; // cached slots after this token
      const rows = [...live];
      logits = await stepLogits(
        model,
        cache,
        ids,
        positions,
        live.length,
        1,
        (b, _i, j) => j < S && !hidden(rows[b]!, j),
        true,
      );
    }
  } finally {
    cache.dispose();
    entries.forEach((entry) => entry && disposeEntry(entry)); // (again, if the preload did not finish: disposing twice is a no-op)
  }
  return result;
}

/** Runs one cached forward call and returns the last position's logits (B, V) when asked. */
async function stepLogits(
  model: CausalLM,
  cache: KvCache,
  ids: Int32Array,
  positions: Int32Array,
  batch: number,
  time: number,
  visible: (b: number, i: number, j: number) => boolean,
  wantLogits: boolean,
): Promise<Float32Array> {
  const keys = cache.length + time;
  const logits = tf.tidy((): tf.Tensor2D => {
    const hidden = decoderForward(
      model,
      // every caller's mask hides the keys past each query's position (j > i + keys - time): causal
      {
        ids,
        batch,
        time,
        positions,
        maskBias: maskBias(batch, time, keys, visible),
        cache,
        causal: true,
      },
      model.forwardMode(false),
    ); // (B*T, D)
    if (!wantLogits) return tf.zeros([0, 0]);
    const D = model.config.hiddenSize;
    const last =
      time === 1
        ? hidden
        : tf.reshape(
            tf.slice(tf.reshape(hidden, [batch, time, D]), [0, time - 1, 0], [batch, 1, D]),
            [batch, D],
          );
    return outputLogits(model.params, last as tf.Tensor2D); // (B, V)
  });
  const data = (await logits.data()) as Float32Array;
  logits.dispose();
  return data;
}

let weightsScratch = new Float64Array(0);
let simdWeights: SimdWeights | null | undefined;

/**
 * Draws one token from softmax(logits / temperature) by inverse CDF with one uniform, and returns
 * its log-prob under that distribution. Temperature 0 takes the argmax, log-prob at temperature 1.
 * The unnormalized probabilities come from kernels/simd/sample.ts where the engine has WebAssembly
 * SIMD (float32 weights, float64 total), else from Math.exp in float64.
 */
export function sampleToken(
  logits: Float32Array,
  offset: number,
  vocab: number,
  temperature: number,
  rng: Rng,
): { id: number; logprob: number } {
  const scale = temperature > 0 ? 1 / temperature : 1;
  // unnormalized probabilities, computed once (exp dominates for a 150k vocabulary)
  if (simdWeights === undefined) simdWeights = SimdWeights.create();
  let max = -Infinity;
  let argmax = -1; // the first position of the max, found when needed
  let weights: ArrayLike<number> | null = null;
  let total = 0;
  if (simdWeights && switches.simdSampling)
    ({ max, weights, total } = simdWeights.weights(logits, offset, vocab, scale));
  if (!weights) {
    max = -Infinity;
    argmax = 0;
    for (let v = 0; v < vocab; v++) {
      const z = logits[offset + v]!;
      if (z > max) {
        max = z;
        argmax = v;
      }
    }
    if (weightsScratch.length < vocab) weightsScratch = new Float64Array(vocab);
    for (let v = 0; v < vocab; v++) {
      const weight = Math.exp((logits[offset + v]! - max) * scale);
      weightsScratch[v] = weight;
      total += weight;
    }
    weights = weightsScratch;
  }
  const first = (): number => {
    if (argmax < 0) for (argmax = 0; argmax < vocab && logits[offset + argmax] !== max; argmax++);
    return argmax;
  };
  const logTotal = Math.log(total);
  if (temperature === 0) return { id: first(), logprob: -logTotal };
  const threshold = rng.uniform() * total;
  let cumulative = 0;
  let id = -1;
  for (let v = 0; v < vocab; v++) {
    cumulative += weights[v]!;
    if (cumulative > threshold) {
      id = v;
      break;
    }
  }
  if (id < 0) id = first(); // rounding left the threshold just past the sum
  return { id, logprob: (logits[offset + id]! - max) * scale - logTotal };
}
