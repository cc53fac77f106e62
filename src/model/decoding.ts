// What generate() (sample.ts) asks of a model to decode: run prompt positions, copy a shared
// prompt's cache to the sequences that share it, draw a token for each live sequence, run one new
// token a sequence, and take finished sequences' caches out. Two implementations: the reference
// here (the decoder's tfjs forward, a KvCache, logits read back and sampled in JavaScript), and the
// WebGPU engine's (gpu_decoding.ts: fused kernels, the cache and sampling on the GPU, 8 bytes read
// back a sequence). generate() keeps the bookkeeping (slots, padding, prefixes, stop tests, the
// per-sequence random streams), so both decode the same way by construction.
//
// Places: every query row says which cache row it reads and writes, its slot, and the slots its
// sequence hides ([0, hide0): before a cached prefix; [hide1, hide2): its padding); slots past its
// own are hidden too (causal).
import * as tf from '@tensorflow/tfjs';
import type { RowPlace } from '../kernels/webgpu/decoding_engine.ts';
import { decoderForward, outputLogits } from './decoder.ts';
import { KvCache, maskBias } from './kv_cache.ts';
import type { CausalLM } from './model.ts';
import type { PrefixEntry } from './prefix_cache.ts';
import type { Rng } from './rng.ts';
import { sampleToken } from './sample_token.ts';

export type { RowPlace } from '../kernels/webgpu/decoding_engine.ts';

/** One forward call's query rows: `batch` sequences of `time` positions each, row-major. */
export interface QueryRows {
  ids: Int32Array;
  positions: Int32Array;
  batch: number;
  time: number;
  /** One a query row, batch * time. */
  places: RowPlace[];
}

/** A token drawn for a sequence and its log-prob under the sampling temperature. */
export interface Drawn {
  id: number;
  logprob: number;
}

/** The decoding steps of one generate() call. */
export interface Decoder {
  /** Writes cached prefixes (one entry or null a sequence) so they end at slot `base`. */
  preload(entries: (PrefixEntry | null)[], base: number): void;
  /** Runs prompt positions; with `last`, keeps each row's last position for sample(). */
  prefill(rows: QueryRows, last: boolean): Promise<void>;
  /** Sequence b takes prompt row rowOf[b]'s cache and logits (prompts shared by several). */
  expand(rowOf: number[], slots: number): void;
  /** One token for each batch row, from sequence live[row]'s stream. */
  sample(live: number[], temperature: number, streams: Rng[]): Promise<Drawn[]>;
  /** Runs one new token for each live sequence (one query row each). */
  decode(rows: QueryRows): Promise<void>;
  /**
   * Takes rows out of the batch: each of `taken`'s rows' keys and values at its ranges (as
   * KvCache.extract gives them, the caller's), then keeps the rows `kept`, in that order (none:
   * frees the cache).
   */
  retire(
    taken: { row: number; ranges: [number, number][] }[],
    kept: number[],
  ): { keys: tf.Tensor[]; values: tf.Tensor[] }[];
  dispose(): void;
}

/** Whether query row i of batch row b may see slot j, from the rows' places. */
function visibleFrom(rows: QueryRows): (b: number, i: number, j: number) => boolean {
  return (b, i, j) => {
    const place = rows.places[b * rows.time + i]!;
    return j <= place.slot && j >= place.hide0 && !(j >= place.hide1 && j < place.hide2);
  };
}

/** The reference decoder: the tfjs forward (decoder.ts) over a KvCache, sampling in JavaScript. */
export class ReferenceDecoder implements Decoder {
  private readonly cache: KvCache;
  private logits: Float32Array = new Float32Array(0);

  constructor(
    private readonly model: CausalLM,
    options: { capacity: number; inPlace?: boolean },
  ) {
    this.cache = new KvCache(model.config.numLayers, {
      ...(options.inPlace === undefined ? {} : { inPlace: options.inPlace }),
      capacity: options.capacity,
    });
  }

  preload(entries: (PrefixEntry | null)[], base: number): void {
    // right-aligned into the first `base` slots, a layer at a time: each layer's entry tensors are
    // freed as soon as the cache holds them, so the entries and the new cache never coexist whole
    // (at the SmolLM2-135M shape, that was the rollout's peak)
    const [Hkv, hd] = [this.model.config.numKvHeads, this.model.config.headDim];
    const slots = (own: tf.Tensor | undefined) => {
      const gap = tf.zeros([1, Hkv, base - (own?.shape[2] ?? 0), hd]);
      return own ? tf.concat([gap, own], 2) : gap;
    };
    for (let layer = 0; layer < this.model.config.numLayers; layer++) {
      tf.tidy(() => {
        const keys = tf.concat(
          entries.map((entry) => slots(entry?.keys[layer])),
          0,
        );
        const values = tf.concat(
          entries.map((entry) => slots(entry?.values[layer])),
          0,
        );
        if (this.cache.inPlace) this.cache.write(layer, keys, values);
        else this.cache.append(layer, keys, values);
      });
      tf.dispose(
        entries.flatMap((entry) => (entry ? [entry.keys[layer]!, entry.values[layer]!] : [])),
      );
    }
  }

  async prefill(rows: QueryRows, last: boolean): Promise<void> {
    this.logits = await this.forward(rows, last);
  }

  expand(rowOf: number[]): void {
    const V = this.model.config.vocabSize;
    this.cache.select(rowOf); // (U, ...) -> (count, ...): each sequence its prompt's keys and values
    const expanded = new Float32Array(rowOf.length * V);
    rowOf.forEach((u, b) => expanded.set(this.logits.subarray(u * V, (u + 1) * V), b * V));
    this.logits = expanded;
  }

  async sample(live: number[], temperature: number, streams: Rng[]): Promise<Drawn[]> {
    const V = this.model.config.vocabSize;
    return live.map((index, row) =>
      sampleToken(this.logits, row * V, V, temperature, streams[index]!),
    );
  }

  async decode(rows: QueryRows): Promise<void> {
    this.logits = await this.forward(rows, true);
  }

  retire(
    taken: { row: number; ranges: [number, number][] }[],
    kept: number[],
  ): { keys: tf.Tensor[]; values: tf.Tensor[] }[] {
    if (taken.length === 0 && kept.length === 0) {
      this.cache.dispose();
      return [];
    }
    return this.cache.split(taken, kept);
  }

  dispose(): void {
    this.cache.dispose();
  }

  /** Runs one cached forward call and returns the last position's logits (B, V) when asked. */
  private async forward(rows: QueryRows, wantLogits: boolean): Promise<Float32Array> {
    const { batch, time } = rows;
    const keys = this.cache.length + time;
    const model = this.model;
    const logits = tf.tidy((): tf.Tensor2D => {
      const hidden = decoderForward(
        model,
        // every row's place hides the keys past its own slot: causal
        {
          ids: rows.ids,
          batch,
          time,
          positions: rows.positions,
          maskBias: maskBias(batch, time, keys, visibleFrom(rows)),
          cache: this.cache,
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
}
