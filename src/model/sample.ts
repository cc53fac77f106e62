// The sampling face: many sequences decode together with a KV cache. Prompts of different
// lengths are left-padded into one batch (pad keys masked out, RoPE positions counted from each
// prompt's own start); each sequence stops on its own (EOS, a caller's stop test, or the token
// budget) and leaves the batch, so it stops costing compute. Each token is drawn with one uniform
// from our seeded Rng, one independent stream per sequence, and comes back with its log-prob under
// the sampling temperature (the trainer's old_logprobs). The model's steps run on a Decoder
// (decoding.ts): the reference's tfjs forward, or the WebGPU engine where it serves.
//
// Shapes: B live sequences, P padded prompt length, T positions in one call, D width, V vocabulary.
import { type Decoder, ReferenceDecoder, type RowPlace } from './decoding.ts';
import { fastPaths } from './fast_paths.ts';
import { gpuDecoder } from './gpu_decoding.ts';
import type { CausalLM } from './model.ts';
import { dispose as disposeEntry, type PrefixCache } from './prefix_cache.ts';
import { Rng } from './rng.ts';

export { sampleToken } from './sample_token.ts';

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
  const maxPositions = model.config.maxPositions;

  // Cache slots: [0, base) hold the cached prefixes some prompts take from options.prefixCache,
  // each right-aligned (L[b] of them), then [base, base + P) the prompts' remaining tokens, each
  // right-aligned (pad[b] slots of padding first), then one slot per generated token. A row's
  // padding and the slots before its prefix are hidden (its places say so).
  const entries = prompts.map((prompt) => options.prefixCache?.take(prompt) ?? null);
  const L = entries.map((entry) => entry?.ids.length ?? 0);
  const base = Math.max(...L);
  const P = Math.max(...prompts.map((p, b) => p.length - L[b]!));
  const pad = prompts.map((p, b) => P - (p.length - L[b]!)); // left padding of each sequence's new tokens
  // Distinct prompts are prefilled once; sequence b copies distinct prompt rowOf[b] (not with
  // cached prefixes: each sequence then starts from its own).
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
  const chunk = Math.max(1, options.prefillChunk ?? 128);
  const decoder = decoderFor(model, {
    sequences: count,
    prompts: U,
    positions: U * Math.min(chunk, P),
    capacity: base + P + maxNewTokens, // every slot this generation can fill
    ...(options.inPlaceCache === undefined ? {} : { inPlace: options.inPlaceCache }),
  });
  /** Sequence b's query at `slot` (its own row in the cache). */
  const place = (b: number, slot: number, cacheRow = b): RowPlace => ({
    cacheRow,
    slot,
    hide0: base - L[b]!,
    hide1: base,
    hide2: base + pad[b]!,
  });
  let live = prompts.map((_, i) => i); // original index of each batch row
  /**
   * Drops the batch rows `finished` and keeps `kept`, in that order; with a prefix cache, each
   * finished sequence's cache (all it generated but the last token) goes into it.
   */
  const retire = (finished: number[], kept: number[]) => {
    if (!options.prefixCache) {
      decoder.retire([], kept);
      return;
    }
    const done = (row: number) => result.ids[live[row]!]!.length - 1;
    const parts = decoder.retire(
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
    if (base > 0) decoder.preload(entries, base);
    // Prefill in chunks of prompt positions; only the last chunk's final rows feed sampling.
    for (let start = 0; start < P; start += chunk) {
      const T = Math.min(chunk, P - start);
      const ids = new Int32Array(U * T);
      const positions = new Int32Array(U * T);
      const places: RowPlace[] = [];
      distinct.forEach((index, u) => {
        const prompt = prompts[index]!;
        for (let t = 0; t < T; t++) {
          const slot = start + t;
          ids[u * T + t] = slot >= pad[index]! ? prompt[L[index]! + slot - pad[index]!]! : 0;
          positions[u * T + t] = L[index]! + Math.max(0, slot - pad[index]!);
          places.push(place(index, base + slot, u));
        }
      });
      await decoder.prefill({ ids, positions, batch: U, time: T, places }, start + T === P);
    }
    if (U < count) decoder.expand(rowOf, base + P);
    let steps = 0;
    for (;;) {
      const B = live.length;
      const finished = new Set<number>();
      const drawn = await decoder.sample(live, temperature, streams);
      for (let row = 0; row < B; row++) {
        const index = live[row]!;
        const { id, logprob } = drawn[row]!;
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
      const slot = base + P + steps - 1; // this token's slot
      const places = live.map((index) => place(index, slot));
      await decoder.decode({ ids, positions, batch: live.length, time: 1, places });
    }
  } finally {
    decoder.dispose();
    entries.forEach((entry) => entry && disposeEntry(entry)); // (again, if the preload did not finish: disposing twice is a no-op)
  }
  return result;
}

/**
 * The decoder for this model and backend: the WebGPU engine where the seam names it and the engine
 * serves the model (its frozen weights 16-bit on the GPU), else the reference.
 */
function decoderFor(
  model: CausalLM,
  shape: {
    sequences: number;
    prompts: number;
    positions: number;
    capacity: number;
    inPlace?: boolean;
  },
): Decoder {
  const fast = fastPaths.decoding() === 'webgpu' ? gpuDecoder(model, shape) : null;
  return fast ?? new ReferenceDecoder(model, shape);
}
