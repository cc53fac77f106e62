// The dot store (kernels/matmul/decode_products.ts): decoding's transposed weight copies, kept in a
// memory of our own. A copy is made once and remade in place when its weight (or any weight it was
// made from) is assigned, released space is reused, the budget is kept, and products through the
// store match a float64 loop, also after its scratch block regrows.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DotStore } from '../../../src/kernels/matmul/decode_products.ts';
import { filled } from '../../helpers/numbers.ts';

/** W^T for a (k, n) weight, as the store's fill callback writes it: (n, k). */
const transposeInto = (w: tf.Tensor2D) => (into: Float32Array) =>
  into.set(tf.tidy(() => tf.transpose(w).dataSync()));

describe('DotStore', () => {
  const made: tf.Tensor[] = [];
  const variable = (k: number, n: number, seed: number) => {
    const v = tf.tidy(() => tf.variable(tf.tensor2d(filled(k * n, seed), [k, n])));
    made.push(v);
    return v;
  };
  beforeAll(async () => {
    await tf.setBackend('wasm');
  });
  afterEach(() => {
    tf.dispose(made.splice(0));
  });

  it('makes a copy once, remakes it in place after an assign, and reuses released space', () => {
    const store = DotStore.create(1 << 20)!;
    expect(store).not.toBeNull();
    const w = variable(64, 32, 1);
    let fills = 0;
    const fill = (into: Float32Array) => {
      fills++;
      transposeInto(w)(into);
    };
    const at = store.weight(w.id, [w], w.size, fill)!;
    expect(store.weight(w.id, [w], w.size, fill)).toBe(at);
    expect(fills).toBe(1);
    expect(store.stats()).toEqual({ copies: 1, numbers: 64 * 32 });
    tf.tidy(() => w.assign(tf.tensor2d(filled(64 * 32, 2), [64, 32])));
    expect(store.weight(w.id, [w], w.size, fill)).toBe(at); // same size: same place
    expect(fills).toBe(2);
    expect(Array.from(new Float32Array(store.memory.buffer, at, 3))).toEqual(
      Array.from(tf.tidy(() => tf.transpose(w).dataSync().slice(0, 3))),
    );
    store.release(w.id);
    expect(store.stats()).toEqual({ copies: 0, numbers: 0 });
    const other = variable(32, 64, 3); // same size, another weight: the released block
    expect(store.weight(other.id, [other], other.size, transposeInto(other))).toBe(at);
  });

  it('refuses copies past its budget (the caller then keeps XNNPACK), and drops copies of disposed weights', () => {
    const store = DotStore.create(1000)!;
    const a = variable(20, 40, 4); // 800 numbers
    const b = variable(20, 20, 5); // 400 more: over 1000
    expect(store.weight(a.id, [a], a.size, transposeInto(a))).not.toBeNull();
    expect(store.weight(b.id, [b], b.size, transposeInto(b))).toBeNull();
    a.dispose();
    expect(store.weight(b.id, [b], b.size, transposeInto(b))).not.toBeNull(); // a's copy went first
    expect(store.stats()).toEqual({ copies: 1, numbers: 400 });
  });

  it('keeps a copy made from several weights under one key: remade when any of them is assigned, dropped when any is disposed', () => {
    const store = DotStore.create(1 << 20)!;
    const [w, a, b] = [variable(16, 8, 1), variable(16, 2, 2), variable(2, 8, 3)];
    let fills = 0;
    const fill = (into: Float32Array) => {
      fills++;
      into.fill(fills);
    };
    const at = store.weight(b.id, [w, a, b], w.size, fill)!;
    expect(store.weight(b.id, [w, a, b], w.size, fill)).toBe(at);
    expect(fills).toBe(1);
    for (const [i, source] of [w, a, b].entries()) {
      tf.tidy(() => source.assign(tf.zerosLike(source)));
      expect(store.weight(b.id, [w, a, b], w.size, fill)).toBe(at); // remade in place
      expect(fills).toBe(2 + i);
      expect(new Float32Array(store.memory.buffer, at, 1)[0]).toBe(2 + i);
    }
    a.dispose();
    const other = variable(4, 4, 4);
    store.weight(other.id, [other], other.size, transposeInto(other)); // a new copy first drops those of disposed weights
    expect(store.stats()).toEqual({ copies: 1, numbers: 16 });
  });

  it('computes A W^T like a float64 loop, for products of growing size (the scratch block regrows)', () => {
    const store = DotStore.create(1 << 20)!;
    for (const [m, k, n] of [
      [1, 8, 8],
      [3, 33, 17],
      [8, 256, 96],
      [63, 128, 200],
    ] as const) {
      const w = variable(k, n, m);
      const at = store.weight(w.id, [w], w.size, transposeInto(w))!;
      const a = filled(m * k, 7 + m);
      const source = new Float32Array(5 + m * k);
      source.set(a, 5);
      const out = new Float32Array(3 + m * n).fill(Number.NaN);
      store.product(
        () => source,
        5,
        m,
        k,
        at,
        n,
        () => out,
        3,
      );
      const weights = w.dataSync(); // (k, n)
      for (let i = 0; i < m; i++)
        for (let j = 0; j < n; j++) {
          let want = 0;
          for (let x = 0; x < k; x++) want += a[i * k + x]! * weights[x * n + j]!;
          expect(Math.abs(out[3 + i * n + j]! - want)).toBeLessThan(1e-4 * (1 + Math.abs(want)));
        }
      expect(out.slice(0, 3).every(Number.isNaN)).toBe(true);
    }
  });
});
