// Keys and values of past positions, per layer, so each decoding step only runs the new token.
// Two ways to keep them:
// - concat (any backend): tfjs tensors are immutable, so each step concatenates the new keys onto
//   the old ones, copying the whole cache once per layer per token;
// - in place (wasm with our SIMD kernel): per layer one preallocated (B, Hkv, capacity, hd) tensor,
//   owned by the cache and never handed out, into which each step writes only its new rows;
//   attention reads the first S rows of every (b, head) slice where they lie
//   (kernels/matmul/tfjs_kernels.ts stridedMatMul). Capacity doubles when full, so the copies of
//   growing are amortized.
// Finished sequences are dropped from the batch (select) so they stop costing compute.
import * as tf from '@tensorflow/tfjs';
import { fastPaths } from './fast_paths.ts';
import { copySlices, unfilled } from '../kernels/heap_copies.ts';

/**
 * One layer of an in-place cache: storage (B, Hkv, capacity, hd) whose first `length` slots are
 * filled.
 */
export interface CacheSlots {
  keys: tf.Tensor;
  values: tf.Tensor;
  length: number;
  capacity: number;
}

/** Slots an in-place cache starts with (it doubles from there). */
const FIRST_CAPACITY = 64;

/**
 * Per-layer keys and values, each (B, Hkv, S, hd) (in place: S filled slots of a larger tensor).
 */
export class KvCache {
  private readonly keys: (tf.Tensor | null)[];
  private readonly values: (tf.Tensor | null)[];
  /** Filled slots per layer (in place). */
  private readonly filled: number[];
  /** Whether new keys are written into preallocated storage rather than concatenated. */
  readonly inPlace: boolean;
  private readonly firstCapacity: number;

  /** `inPlace` defaults to the seam's layout (fast_paths.ts kvCache(): wasm with its SIMD kernel). */
  /**
   * `capacity` (in place): the slots the caller knows it will fill (a generation's prompt plus its
   * token limit), allocated at the first write instead of doubling up to it, so a long rollout
   * neither overshoots by up to 2x nor holds the old and new storage while it grows.
   */
  constructor(numLayers: number, options: { inPlace?: boolean; capacity?: number } = {}) {
    this.firstCapacity = Math.max(FIRST_CAPACITY, options.capacity ?? 0);
    this.keys = new Array<tf.Tensor | null>(numLayers).fill(null);
    this.values = new Array<tf.Tensor | null>(numLayers).fill(null);
    this.filled = new Array<number>(numLayers).fill(0);
    const layout = fastPaths.kvCache();
    this.inPlace = options.inPlace ?? layout === 'in-place';
    if (this.inPlace && layout !== 'in-place')
      throw new Error('an in-place KV cache needs the wasm backend with the SIMD kernel');
  }

  /** Cached positions S (0 when empty). */
  get length(): number {
    return this.inPlace ? this.filled[0]! : (this.keys[0]?.shape[2] ?? 0);
  }

  /** Sequences B in the cache (0 when empty). */
  get batch(): number {
    return this.keys[0]?.shape[0] ?? 0;
  }

  /**
   * Concat mode: appends one layer's new keys and values (B, Hkv, T, hd) and returns the whole
   * history (B, Hkv, S + T, hd). Safe inside tf.tidy: the cache keeps its own references.
   */
  append(layer: number, key: tf.Tensor, value: tf.Tensor): [tf.Tensor, tf.Tensor] {
    if (this.inPlace) throw new Error('KvCache.append: this cache is in place; use write()');
    const oldKey = this.keys[layer] ?? null;
    const oldValue = this.values[layer] ?? null;
    const newKey = tf.keep(oldKey ? tf.concat([oldKey, key], 2) : key);
    const newValue = tf.keep(oldValue ? tf.concat([oldValue, value], 2) : value);
    oldKey?.dispose();
    oldValue?.dispose();
    this.keys[layer] = newKey;
    this.values[layer] = newValue;
    return [newKey, newValue];
  }

  /**
   * In-place mode: writes one layer's new keys and values (B, Hkv, T, hd) after its filled slots
   * and returns the storage. The tensors returned stay the cache's: read them, do not keep them.
   */
  write(layer: number, key: tf.Tensor, value: tf.Tensor): CacheSlots {
    const [B, Hkv, T, hd] = key.shape as [number, number, number, number];
    const slots = this.claim(layer, [B, Hkv, T, hd]);
    const S = slots.length - T;
    for (const [store, fresh] of [
      [slots.keys, key],
      [slots.values, value],
    ] as const) {
      // slice i of `fresh` (T rows) goes after the S filled rows of storage slice i (capacity rows)
      copySlices(fresh, 0, T * hd, store, S * hd, slots.capacity * hd, B * Hkv, T * hd);
    }
    return slots;
  }

  /**
   * In-place mode: makes room for T more slots of one layer's keys and values (B, Hkv, T, hd) and
   * counts them filled, for a caller that writes them itself (kernels/tfjs/decode_block.ts); the
   * new slots are `length - T` to `length - 1` of each (b, head) slice.
   */
  claim(layer: number, [B, Hkv, T, hd]: [number, number, number, number]): CacheSlots {
    if (!this.inPlace) throw new Error('KvCache.write: this cache concatenates; use append()');
    const S = this.filled[layer]!;
    const current = this.keys[layer]?.shape[2] ?? 0;
    if (this.keys[layer] && this.keys[layer]!.shape[0] !== B)
      throw new Error(`KvCache.write: batch ${B}, cache holds ${this.keys[layer]!.shape[0]}`);
    if (S + T > current) {
      let capacity = Math.max(current, this.firstCapacity);
      while (capacity < S + T) capacity *= 2;
      for (const store of [this.keys, this.values])
        store[layer] = this.regrown(store[layer] ?? null, [B, Hkv, capacity, hd], S);
    }
    this.filled[layer] = S + T;
    const capacity = this.keys[layer]!.shape[2]!;
    return { keys: this.keys[layer]!, values: this.values[layer]!, length: S + T, capacity };
  }

  /**
   * New storage of `shape` holding the first `filled` slots of `old` (disposed). The slots past
   * them are left as the allocator gives them: nothing reads a slot before it is written (the
   * products read the first `length` rows of each slice, select() copies), and zeroing would cost a
   * JavaScript array of the whole storage and its upload at every growth.
   */
  private regrown(
    old: tf.Tensor | null,
    shape: [number, number, number, number],
    filled: number,
  ): tf.Tensor {
    const fresh = tf.keep(unfilled(shape));
    if (old) {
      const [B, Hkv, capacity, hd] = shape;
      copySlices(old, 0, old.shape[2]! * hd, fresh, 0, capacity * hd, B * Hkv, filled * hd);
      old.dispose();
    }
    return fresh;
  }

  /** Keeps only the given batch rows, in that order (none: frees the cache). */
  select(rows: number[]): void {
    this.split([], rows);
  }

  /**
   * Row `row`'s keys and values at the slots of `ranges` ([start, end) pairs, in order), per layer,
   * as new (1, Hkv, n, hd) tensors the caller owns: a finished sequence's cache without its padding
   * (prefix_cache.ts keeps them for the sequence's next turn).
   */
  extract(row: number, ranges: [number, number][]): { keys: tf.Tensor[]; values: tf.Tensor[] } {
    const pick = (store: (tf.Tensor | null)[]) =>
      store.map((tensor) => this.rowSlots(tensor!, row, ranges));
    return { keys: pick(this.keys), values: pick(this.values) };
  }

  /**
   * Takes rows out of the batch: each of `taken`'s rows' keys and values at its ranges (as
   * extract() gives them, the caller's), then keeps only the rows `kept`, in that order (as
   * select(); none: the cache is freed). Layer by layer, so that the rows taken and the batch never
   * coexist whole: a generation's last step took every row's keys while the whole batch stayed.
   */
  split(
    taken: { row: number; ranges: [number, number][] }[],
    kept: number[],
  ): { keys: tf.Tensor[]; values: tf.Tensor[] }[] {
    const parts = taken.map(() => ({ keys: [] as tf.Tensor[], values: [] as tf.Tensor[] }));
    const index = kept.length > 0 ? tf.tensor1d(kept, 'int32') : null;
    try {
      for (let layer = 0; layer < this.keys.length; layer++) {
        for (const part of ['keys', 'values'] as const) {
          const store = this[part];
          const tensor = store[layer];
          if (!tensor) continue;
          taken.forEach(({ row, ranges }, i) =>
            parts[i]![part].push(this.rowSlots(tensor, row, ranges)),
          );
          store[layer] = index ? tf.keep(tf.gather(tensor, index, 0)) : null;
          tensor.dispose();
        }
        if (!index) this.filled[layer] = 0;
      }
    } catch (error) {
      tf.dispose(parts.flatMap(({ keys, values }) => [...keys, ...values]));
      throw error;
    } finally {
      index?.dispose();
    }
    return parts;
  }

  /** One layer's row `row` at the slots of `ranges`, as a new (1, Hkv, n, hd) tensor. */
  private rowSlots(tensor: tf.Tensor, row: number, ranges: [number, number][]): tf.Tensor {
    const [, Hkv, capacity, hd] = tensor.shape as [number, number, number, number];
    const runs = ranges.filter(([start, end]) => end > start);
    if (this.inPlace) {
      // one copy per head and range inside the heap (tf.slice of the 4-D storage took a JavaScript
      // loop over every number: 17% of a default-run rollout's generation)
      const length = runs.reduce((sum, [start, end]) => sum + end - start, 0);
      const out = unfilled([1, Hkv, length, hd]);
      let at = 0;
      for (const [start, end] of runs) {
        copySlices(
          tensor,
          (row * Hkv * capacity + start) * hd,
          capacity * hd,
          out,
          at * hd,
          length * hd,
          Hkv,
          (end - start) * hd,
        );
        at += end - start;
      }
      return out;
    }
    return tf.tidy(() => {
      const parts = runs.map(([start, end]) =>
        tf.slice(tensor, [row, 0, start, 0], [1, Hkv, end - start, hd]),
      );
      return parts.length === 0
        ? tf.zeros([1, Hkv, 0, hd])
        : parts.length === 1
          ? parts[0]!
          : tf.concat(parts, 2);
    });
  }

  /** Frees every cached tensor. */
  dispose(): void {
    for (const store of [this.keys, this.values]) {
      store.forEach((tensor, layer) => {
        tensor?.dispose();
        store[layer] = null;
      });
    }
    this.filled.fill(0);
  }
}

/**
 * An additive attention mask (B, 1, 1, T, S): 0 where query i of sequence b may see key j,
 * a large negative number elsewhere (not -Infinity, so a fully masked padding row stays finite).
 */
export function maskBias(
  batch: number,
  queries: number,
  keys: number,
  visible: (b: number, i: number, j: number) => boolean,
): tf.Tensor {
  const bias = new Float32Array(batch * queries * keys);
  for (let b = 0; b < batch; b++) {
    for (let i = 0; i < queries; i++) {
      const row = (b * queries + i) * keys;
      for (let j = 0; j < keys; j++) if (!visible(b, i, j)) bias[row + j] = -1e9;
    }
  }
  return tf.tensor(bias, [batch, 1, 1, queries, keys]);
}
