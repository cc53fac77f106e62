// Keys and values of past positions, per layer, so each decoding step only runs the new token.
// tfjs tensors are immutable, so a step concatenates; finished sequences are dropped from the
// batch (select) so they stop costing compute.
import * as tf from '@tensorflow/tfjs';

/** Per-layer keys and values, each (B, Hkv, S, hd). */
export class KvCache {
  private readonly keys: (tf.Tensor | null)[];
  private readonly values: (tf.Tensor | null)[];

  constructor(numLayers: number) {
    this.keys = new Array<tf.Tensor | null>(numLayers).fill(null);
    this.values = new Array<tf.Tensor | null>(numLayers).fill(null);
  }

  /** Cached positions S (0 when empty). */
  get length(): number {
    return this.keys[0]?.shape[2] ?? 0;
  }

  /** Sequences B in the cache (0 when empty). */
  get batch(): number {
    return this.keys[0]?.shape[0] ?? 0;
  }

  /**
   * Appends one layer's new keys and values (B, Hkv, T, hd) and returns the whole history
   * (B, Hkv, S + T, hd). Safe inside tf.tidy: the cache keeps its own references.
   */
  append(layer: number, key: tf.Tensor, value: tf.Tensor): [tf.Tensor, tf.Tensor] {
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

  /** Keeps only the given batch rows, in that order. */
  select(rows: number[]): void {
    const index = tf.tensor1d(rows, 'int32');
    for (const store of [this.keys, this.values]) {
      store.forEach((tensor, layer) => {
        if (!tensor) return;
        store[layer] = tf.keep(tf.gather(tensor, index, 0));
        tensor.dispose();
      });
    }
    index.dispose();
  }

  /** Frees every cached tensor. */
  dispose(): void {
    for (const store of [this.keys, this.values]) {
      store.forEach((tensor, layer) => {
        tensor?.dispose();
        store[layer] = null;
      });
    }
  }
}

/**
 * An additive attention mask (B, 1, 1, T, S): 0 where query i of sequence b may see key j,
 * a large negative number elsewhere (not -Infinity, so a fully masked padding row stays finite).
 */
export function maskBias(batch: number, queries: number, keys: number, visible: (b: number, i: number, j: number) => boolean): tf.Tensor {
  const bias = new Float32Array(batch * queries * keys);
  for (let b = 0; b < batch; b++) {
    for (let i = 0; i < queries; i++) {
      const row = (b * queries + i) * keys;
      for (let j = 0; j < keys; j++) if (!visible(b, i, j)) bias[row + j] = -1e9;
    }
  }
  return tf.tensor(bias, [batch, 1, 1, queries, keys]);
}
