// Frozen 16-bit weights (kernels/matmul/weights16.ts, kernels/simd/dot16.ts,
// kernels/simd/panel16.ts): every function against float32 tfjs ops on the exact float32 widening
// of the same bits. Products at odd sizes on both kernels (dot16 up to DOT_MAX_ROWS rows, panel16
// past it, K past a panel), within summation-order differences; BF16 and F16 edge values (all
// mantissa bits set, -0, subnormals, the largest normal, inf and NaN) widened exactly by the
// kernels and in JavaScript; the same bits on one thread and on two, and from dot16 alone however
// W's rows are split; clear errors; the store's accounting; no tensor leaked.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DotStore, dotStore } from '../../../src/kernels/matmul/decode_products.ts';
import { holdMatmulHelpers, useMatmulThreads } from '../../../src/kernels/matmul/kernels.ts';
import { dot16Unit, instantiateDot16 } from '../../../src/kernels/simd/dot16.ts';
import { halfToFloatBits } from '../../../src/kernels/simd/half.ts';
import { kernelCounts } from '../../../src/kernels/switches.ts';
import {
  DOT_MAX_ROWS,
  type HalfKind,
  product16,
  productT16,
  releaseResident16,
  type Resident16,
  resident16Active,
  resident16Bytes,
  rows16,
  storeResident16,
  widen16,
} from '../../../src/kernels/matmul/weights16.ts';
import { bits, filled } from '../../helpers/numbers.ts';
import { filledTensor } from '../../helpers/tensors.ts';

/**
 * The float32 value of a 16-bit pattern, decoded from its fields (independently of the kernels'
 * shifts).
 */
function decode(kind: HalfKind, h: number): number {
  if (kind === 'bf16') return new Float32Array(new Uint32Array([h << 16]).buffer)[0]!;
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 31;
  const mantissa = h & 1023;
  if (exponent === 31) return mantissa ? Number.NaN : sign * Infinity;
  return (
    sign * (exponent === 0 ? mantissa * 2 ** -24 : 2 ** (exponent - 15) * (1 + mantissa / 1024))
  );
}

/** `count` 16-bit patterns of finite numbers of about unit size, deterministic. */
function patterns(kind: HalfKind, count: number, seed: number): Uint16Array {
  return Uint16Array.from({ length: count }, (_, i) => {
    const u = Math.abs(Math.sin(i * 12.9898 + seed * 78.233) * 43758.5453) % 1;
    const sign = (i * 7 + seed) % 3 === 0 ? 0x8000 : 0;
    if (kind === 'bf16') return sign | (0x3c00 + Math.floor(u * 0x0600)); // ~2^-7 .. 2^5
    return sign | (0x2400 + Math.floor(u * 0x2000)); // ~2^-6 .. 2^2
  });
}

const made: Resident16[] = [];
/** A resident weight and its widening as a float32 tensor (rows, cols). */
function weight(
  kind: HalfKind,
  rows: number,
  cols: number,
  values: Uint16Array = patterns(kind, rows * cols, rows + cols),
): { w: Resident16; wide: tf.Tensor2D } {
  const w = storeResident16(values, rows, cols, kind);
  made.push(w);
  return {
    w,
    wide: tf.tensor2d(
      Float32Array.from(values, (h) => decode(kind, h)),
      [rows, cols],
    ),
  };
}

/** Expects got within 1e-5 of want, relative to the sum of the terms' magnitudes. */
function expectSum(got: tf.Tensor, want: tf.Tensor, magnitude: tf.Tensor): void {
  expect(got.shape).toEqual(want.shape);
  const [g, w, s] = [got.dataSync(), want.dataSync(), magnitude.dataSync()];
  for (let i = 0; i < g.length; i++)
    if (!(Math.abs(g[i]! - w[i]!) <= 1e-5 * s[i]! + 1e-30))
      throw new Error(`element ${i}: ${g[i]} vs ${w[i]} (terms' magnitude ${s[i]})`);
}

describe('frozen 16-bit weights', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
    expect(resident16Active()).toBe(true);
  });
  afterAll(async () => {
    for (const w of made.splice(0)) releaseResident16(w);
    await useMatmulThreads(0);
  });

  const shapes: [number, number][] = [
    [1, 1],
    [7, 13],
    [9, 17],
    [33, 70],
    [21, 8],
    [130, 21],
  ];
  for (const kind of ['bf16', 'f16'] as const)
    it(`${kind}: productT16 and product16 equal tf.matMul on the widened weight, at odd sizes`, () => {
      for (const [rows, cols] of shapes)
        for (const m of [1, 3, 5, 17, 130]) {
          const { w, wide } = weight(kind, rows, cols);
          tf.tidy(() => {
            const x = filledTensor([m, cols], m + rows);
            expectSum(
              productT16(x, w),
              tf.matMul(x, wide, false, true),
              tf.matMul(tf.abs(x), tf.abs(wide), false, true),
            );
            const g = filledTensor([m, rows], m + cols);
            expectSum(product16(g, w), tf.matMul(g, wide), tf.matMul(tf.abs(g), tf.abs(wide)));
          });
          wide.dispose();
        }
    });

  it('runs long rows through several panels (K past 512) and small m on either kernel', () => {
    for (const [rows, cols, m] of [
      [40, 1100, 20],
      [1100, 40, 20],
      [600, 520, DOT_MAX_ROWS],
      [600, 520, DOT_MAX_ROWS + 1],
      [3, 1031, 2],
    ] as const) {
      const { w, wide } = weight('bf16', rows, cols);
      tf.tidy(() => {
        const x = filledTensor([m, cols], rows);
        expectSum(
          productT16(x, w),
          tf.matMul(x, wide, false, true),
          tf.matMul(tf.abs(x), tf.abs(wide), false, true),
        );
        const g = filledTensor([m, rows], cols);
        expectSum(product16(g, w), tf.matMul(g, wide), tf.matMul(tf.abs(g), tf.abs(wide)));
      });
      wide.dispose();
    }
  });

  const edges: Record<HalfKind, Record<string, number>> = {
    bf16: {
      'all mantissa bits set': 0x3fff,
      'negative, all mantissa bits set': 0xbfff,
      'negative zero': 0x8000,
      'smallest subnormal': 0x0001,
      'smallest normal': 0x0080,
      'largest finite': 0x7f7f,
      'a large value': 0x5f7f,
      'a tiny value': 0x1f80,
    },
    f16: {
      'smallest subnormal': 0x0001,
      'largest subnormal': 0x03ff,
      'negative subnormal': 0x8155,
      'smallest normal': 0x0400,
      'largest normal': 0x7bff,
      'negative largest normal': 0xfbff,
      'negative zero': 0x8000,
      'all mantissa bits set': 0x3bff,
    },
  };
  const specials = { infinity: 0x7c00, 'negative infinity': 0xfc00, NaN: 0x7e01 };

  for (const kind of ['bf16', 'f16'] as const)
    it(`${kind}: edge values widen exactly in the kernels (both, vector and scalar paths), rows16 and widen16`, () => {
      const named = Object.entries(edges[kind]);
      const values = Uint16Array.from(named, ([, h]) => h);
      const exact = Float32Array.from(values, (h) => decode(kind, h));
      for (const cols of [8, 11]) {
        // W (n, cols): edge value i at column i % cols of row i, zeros elsewhere
        const n = values.length;
        const grid = new Uint16Array(n * cols);
        values.forEach((h, i) => {
          grid[i * cols + (i % cols)] = h;
        });
        const { w, wide } = weight(kind, n, cols, grid);
        for (const m of [1, DOT_MAX_ROWS + 4]) {
          // x = e_j rows: x W^T picks W's column j exactly
          const got = tf.tidy(() => {
            const picks = tf.oneHot(
              tf.tensor1d(
                Array.from({ length: m }, (_, r) => r % cols),
                'int32',
              ),
              cols,
            );
            return productT16(tf.cast(picks, 'float32') as tf.Tensor2D, w).arraySync();
          });
          for (let r = 0; r < m; r++)
            for (let i = 0; i < n; i++)
              expect(got[r]![i]).toBe(i % cols === r % cols ? exact[i]! + 0 : 0);
        }
        const rows = rows16(tf.tensor1d([...Array(n).keys()].reverse(), 'int32'), w);
        expect(bits(rows)).toEqual(bits(tf.reverse(wide, 0)));
        expect(bits(widen16(w, false))).toEqual(bits(wide));
        expect(bits(widen16(w, true))).toEqual(bits(tf.transpose(wide)));
        tf.dispose([rows, wide]);
      }
    });

  it('f16: inf and NaN widen to inf and NaN (kernels, rows16, widen16)', () => {
    const named = Object.values(specials);
    for (const cols of [1, 8]) {
      const grid = new Uint16Array(named.length * cols);
      named.forEach((h, i) => {
        grid[i * cols] = h;
      });
      const { w, wide } = weight('f16', named.length, cols, grid);
      for (const m of [1, DOT_MAX_ROWS + 1]) {
        const x = tf.tidy(() =>
          cols === 1 ? tf.ones([m, 1]) : tf.concat([tf.ones([m, 1]), tf.zeros([m, cols - 1])], 1),
        );
        const got = productT16(x as tf.Tensor2D, w);
        expect(Array.from(got.dataSync().slice(0, 3))).toEqual([Infinity, -Infinity, Number.NaN]);
        tf.dispose([x, got]);
      }
      const widened = widen16(w, false).dataSync();
      expect([widened[0], widened[cols], widened[2 * cols]]).toEqual([
        Infinity,
        -Infinity,
        Number.NaN,
      ]);
      wide.dispose();
    }
  });

  it('gives the same bits on one thread and on two (both kernels), splitting large products', async () => {
    const { w, wide } = weight('bf16', 300, 136);
    const { w: wf, wide: widef } = weight('f16', 96, 520);
    const run = () =>
      tf.tidy(() =>
        [
          productT16(filledTensor([3, 136], 1), w),
          productT16(filledTensor([DOT_MAX_ROWS, 136], 2), w),
          productT16(filledTensor([130, 136], 3), w),
          product16(filledTensor([130, 300], 4), w),
          productT16(filledTensor([5, 520], 5), wf),
          productT16(filledTensor([77, 520], 6), wf),
          product16(filledTensor([77, 96], 7), wf),
        ].map(bits),
      );
    await useMatmulThreads(0);
    const one = run();
    expect(await useMatmulThreads(1)).toBe(2);
    const before = kernelCounts.splitProducts;
    const two = run();
    expect(kernelCounts.splitProducts - before).toBe(7);
    expect(two).toEqual(one);
    holdMatmulHelpers(true); // late helpers: the caller runs every queued block itself
    const takenOver = kernelCounts.takenOver;
    expect(run()).toEqual(one);
    expect(kernelCounts.takenOver).toBeGreaterThan(takenOver);
    holdMatmulHelpers(false);
    await useMatmulThreads(0);
    tf.dispose([wide, widef]);
  });

  for (const kind of ['bf16', 'f16'] as const)
    it(`${kind}: dot16 is right at any K, N and M <= ${DOT_MAX_ROWS}, the same bits however W's rows are split`, () => {
      const memory = new WebAssembly.Memory({ initial: 4 });
      const dot = instantiateDot16(memory, kind, false)!;
      const [a, w, c] = [0, 2 << 16, 3 << 16]; // A, W and C apart (A: up to 2 pages)
      const wide = new Float32Array(
        new Uint32Array(65536).map((_, h) => halfToFloatBits(kind, h)).buffer,
      );
      for (const k of [1, 7, 8, 9, 16, 23, 40, 137])
        for (const m of [1, 2, 3, 4, 5, DOT_MAX_ROWS])
          for (const n of [1, 2, 3, 4, 5, 8, 9, 13, 37]) {
            const x = filled(m * k, k + m, { step: 0.61 });
            const h = patterns(kind, n * k, k + n);
            new Float32Array(memory.buffer, a, m * k).set(x);
            new Uint16Array(memory.buffer, w, n * k).set(h);
            const out = new Float32Array(memory.buffer, c, m * n);
            out.fill(Number.NaN);
            dot(a, w, c, m, k, n, n);
            const whole = bits(out);
            for (let i = 0; i < m; i++)
              for (let j = 0; j < n; j++) {
                let [sum, size] = [0, 0];
                for (let t = 0; t < k; t++) {
                  const term = x[i * k + t]! * wide[h[j * k + t]!]!;
                  [sum, size] = [sum + term, size + Math.abs(term)];
                }
                expect(Math.abs(out[i * n + j]! - sum)).toBeLessThanOrEqual(1e-6 * size);
              }
            for (let s = dot16Unit(m); s < n; s += dot16Unit(m)) {
              out.fill(Number.NaN);
              dot(a, w, c, m, k, s, n);
              dot(a, w + s * k * 2, c + s * 4, m, k, n - s, n);
              expect(bits(out)).toEqual(whole);
            }
          }
    });

  it('errors clearly: an id out of range, a shape that does not multiply, a released weight, bad bits', () => {
    const { w, wide } = weight('bf16', 10, 4);
    wide.dispose();
    for (const id of [10, -1])
      expect(() => rows16(tf.tensor1d([0, id], 'int32'), w)).toThrow(
        `rows16: token id ${id} is not in [0, 9]`,
      );
    expect(() => productT16(tf.zeros([2, 10]) as tf.Tensor2D, w)).toThrow(/productT16.*\(m, 4\)/);
    expect(() => product16(tf.zeros([2, 4]) as tf.Tensor2D, w)).toThrow(/product16.*\(m, 10\)/);
    expect(() => storeResident16(new Uint16Array(5), 2, 3, 'bf16')).toThrow(/5 values for a 2 x 3/);
    const gone = storeResident16(new Uint16Array(6), 2, 3, 'f16');
    releaseResident16(gone);
    expect(() => productT16(tf.zeros([1, 3]) as tf.Tensor2D, gone)).toThrow(/has been released/);
    releaseResident16(gone); // a second release does nothing
    const again = storeResident16(new Uint16Array(6), 2, 3, 'f16');
    expect(again.offset).toBe(gone.offset); // its space, another weight: the old handle stays dead
    expect(() => rows16(tf.tensor1d([0], 'int32'), gone)).toThrow(/has been released/);
    releaseResident16(gone);
    expect(() => widen16(again, false).dispose()).not.toThrow();
    releaseResident16(again);
  });

  it('accounts its bytes, reuses released space, and leaks no tensor', () => {
    const start = resident16Bytes();
    const a = storeResident16(patterns('bf16', 64 * 48, 1), 64, 48, 'bf16');
    const b = storeResident16(patterns('f16', 10 * 7, 2), 10, 7, 'f16');
    expect(resident16Bytes() - start).toBe(64 * 48 * 2 + 10 * 7 * 2);
    releaseResident16(a);
    expect(resident16Bytes() - start).toBe(10 * 7 * 2);
    const c = storeResident16(patterns('bf16', 32 * 48, 3), 32, 48, 'bf16');
    expect(c.offset).toBe(a.offset); // first fit in a's space
    const tensors = tf.memory().numTensors;
    for (let round = 0; round < 3; round++)
      tf.tidy(() => {
        const x = tf.ones([40, 48]) as tf.Tensor2D;
        productT16(x.slice(0, 2), c);
        productT16(x, c);
        product16(x.slice([0, 0], [40, 32]), c);
        rows16(tf.tensor1d([1, 2], 'int32'), b);
        widen16(b, true);
      });
    expect(tf.memory().numTensors).toBe(tensors);
    releaseResident16(b);
    releaseResident16(c);
    expect(resident16Bytes()).toBe(start);
  });

  it("grows the store's memory to 4 GB at most, refusing past it, and merges released blocks", () => {
    const store = dotStore()!;
    expect(store.maxPages).toBe(65536); // Node reserves it (a shared memory's maximum is address space)
    expect(store.shared).toBe(true);
    const fresh = DotStore.create(0)!;
    expect(fresh.claim(fresh.maxPages * 65536)).toBeNull();
    const [a, b] = [fresh.claim(1000)!, fresh.claim(3000)!];
    fresh.unclaim(a, 1000);
    fresh.unclaim(b, 3000);
    expect(fresh.claim(4000)).toBe(a); // the two blocks as one
    expect(fresh.claimed).toBe(4000);
  });

  it('is off on a backend other than wasm', async () => {
    await tf.setBackend('cpu');
    expect(resident16Active()).toBe(false);
    expect(() => storeResident16(new Uint16Array(1), 1, 1, 'bf16')).toThrow(/resident16Active/);
    await tf.setBackend('wasm');
    expect(resident16Active()).toBe(true);
  });
});
