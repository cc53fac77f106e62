// The SIMD weights for sampling (kernels/simd/sample.ts) against exp in float64, and sampleToken
// with them against sampleToken on Math.exp: the same draws from the same uniforms, log-probs
// within 1e-5.
import { afterEach, describe, expect, it } from 'vitest';
import { sampleToken } from '../../../src/model/sample.ts';
import { Rng } from '../../../src/model/rng.ts';
import { SimdWeights, simdSampleModule } from '../../../src/kernels/simd/sample.ts';
import { filled } from '../../helpers/numbers.ts';
import { setSwitches } from '../../../src/kernels/switches.ts';

describe('SIMD sampling weights', () => {
  afterEach(() => {
    setSwitches({ simdSampling: true });
  });

  it('is a valid module under 4 KB', () => {
    const bytes = simdSampleModule();
    expect(WebAssembly.validate(bytes)).toBe(true);
    expect(bytes.length).toBeLessThan(4096);
  });

  // lengths: under one vector, a vector's tail, whole vectors, a vocabulary; spreads: t within
  // [-87, 0] and far past it (the clamp); scales: temperatures 1, 0.7, 0.3
  it.each([
    [1, 5],
    [3, 5],
    [4, 5],
    [5, 40],
    [2000, 40],
    [2003, 150],
    [151936, 20],
  ])(
    '%i logits spread +-%i: each weight within |t| * 2e-7 of exp(t), the total within 1e-7',
    (length, spread) => {
      const kernel = SimdWeights.create()!;
      for (const [seed, scale] of [
        [1, 1],
        [2, 1 / 0.7],
        [3, 1 / 0.3],
      ] as const) {
        const logits = filled(length + 7, seed, { step: 1.7, scale: spread });
        const offset = 7; // a row inside a batch
        let max = -Infinity;
        for (let v = 0; v < length; v++) max = Math.max(max, logits[offset + v]!);
        const { weights, total, max: found } = kernel.weights(logits, offset, length, scale);
        expect(found).toBe(max);
        expect(weights!.length).toBe(length);
        let want = 0;
        for (let v = 0; v < length; v++) {
          const t = (logits[offset + v]! - max) * scale;
          const e = Math.exp(t);
          want += e;
          if (t < -87) expect(weights![v]!).toBeLessThan(2e-38);
          else expect(Math.abs(weights![v]! - e)).toBeLessThanOrEqual(e * 2e-7 * Math.max(1, -t));
        }
        expect(Math.abs(total - want)).toBeLessThanOrEqual(want * 1e-7);
      }
    },
  );

  it('finds the max as `z > max` does (NaN ignored) and gives no weights when it is not finite', () => {
    const kernel = SimdWeights.create()!;
    const nan = Float32Array.from({ length: 37 }, (_, i) => (i % 5 === 0 ? Number.NaN : -i));
    expect(kernel.weights(nan, 0, 37, 1).max).toBe(-1);
    const lastMax = Float32Array.from({ length: 37 }, (_, i) => (i === 36 ? 5 : 0));
    expect(kernel.weights(lastMax, 0, 37, 1).max).toBe(5); // in the last, partial vector
    for (const [fill, want] of [
      [-Infinity, -Infinity],
      [Number.NaN, -Infinity],
    ] as const) {
      const { max, weights } = kernel.weights(new Float32Array(21).fill(fill), 0, 21, 1);
      expect(max).toBe(want);
      expect(weights).toBeNull();
    }
    const inf = new Float32Array(21).fill(1);
    inf[3] = Infinity;
    expect(kernel.weights(inf, 0, 21, 1)).toEqual({ max: Infinity, weights: null, total: 0 });
  });

  it('leaves sampleToken the Math.exp path where the max is not finite: a +Infinity logit is drawn', () => {
    const logits = Float32Array.from({ length: 40 }, (_, i) => (i === 17 ? Infinity : 0));
    expect(sampleToken(logits, 0, 40, 0, new Rng(1)).id).toBe(17);
  });

  it('gives sampleToken the same draws as Math.exp from the same uniforms, and log-probs within 1e-5', () => {
    const vocab = 2000;
    for (const temperature of [1, 0.7, 0]) {
      let differ = 0;
      for (let i = 0; i < 300; i++) {
        const logits = filled(vocab, i, { step: 1.7, scale: 3 + (i % 7) });
        setSwitches({ simdSampling: true });
        const fast = sampleToken(logits, 0, vocab, temperature, new Rng(i));
        setSwitches({ simdSampling: false });
        const exact = sampleToken(logits, 0, vocab, temperature, new Rng(i));
        if (fast.id !== exact.id) {
          differ++;
          continue;
        }
        expect(Math.abs(fast.logprob - exact.logprob)).toBeLessThan(1e-5);
      }
      expect(differ).toBeLessThanOrEqual(1); // a uniform within ~1e-7 of a boundary can fall either side
    }
  });
});
