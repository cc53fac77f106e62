// Attention's masked softmax as one SIMD pass each way (kernels/simd/softmax.ts,
// kernels/tfjs/masked_softmax.ts): the forward against float64 and the tfjs ops (hidden keys
// exactly 0, a causal limit that reads nothing past it), the gradient against a float64 formula and
// the ops' gradient, for rows with and without a tail of 1-3 numbers, a mask per sequence or
// shared; no tensors leak.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { maskedSoftmax, simdSoftmaxActive } from '../../../src/kernels/tfjs/masked_softmax.ts';
import { simdSoftmaxForwardModule, simdSoftmaxModule } from '../../../src/kernels/simd/softmax.ts';
import { filledTensor } from '../../helpers/tensors.ts';
import { setSwitches, withSwitches } from '../../../src/kernels/switches.ts';

/**
 * A (maskBatch, 1, 1, T, S) mask of -1e9 (kv_cache.ts maskBias): causal, and the first key hidden
 * in sequence 1.
 */
function causalMask(maskBatch: number, T: number, S: number): tf.Tensor {
  const values = new Float32Array(maskBatch * T * S);
  for (let b = 0; b < maskBatch; b++)
    for (let i = 0; i < T; i++)
      for (let j = 0; j < S; j++) {
        if (j > i + S - T || (b === 1 && j === 0 && i > 0)) values[(b * T + i) * S + j] = -1e9;
      }
  return tf.tensor(values, [maskBatch, 1, 1, T, S]);
}

describe("the masked softmax's fused forward and gradient", () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
    expect(simdSoftmaxActive()).toBe(true);
  });

  it('is two valid modules under 4 KB', () => {
    for (const bytes of [simdSoftmaxModule(), simdSoftmaxForwardModule()]) {
      expect(WebAssembly.validate(bytes)).toBe(true);
      expect(bytes.length).toBeLessThan(4096);
    }
  });

  // S: whole vectors, tails of 1-3, shorter than a vector; masks per sequence and shared S: whole
  // vectors, tails of 1-3, shorter than a vector, past 16 (four vectors a turn); masks per sequence
  // and shared
  it.each([
    [2, 3, 5, 7, 2],
    [1, 2, 4, 8, 1],
    [3, 2, 6, 9, 3],
    [2, 1, 3, 3, 1],
    [2, 4, 33, 37, 2],
  ])(
    'B %i, H %i, T %i, S %i (mask batch %i): forward of float64 and within 1e-6 of the ops, gradient of the float64 formula',
    async (B, H, T, S, maskBatch) => {
      const scores = filledTensor([B, H, 1, T, S], T + S, { step: 0.71 });
      const mask = causalMask(maskBatch, T, S);
      const weights = filledTensor([B, H, 1, T, S], 5, { step: 0.71 }); // dp: a loss that weighs every output differently
      const gradient = () =>
        tf.grad((x: tf.Tensor) => tf.sum(tf.mul(maskedSoftmax(x, mask), weights)))(scores);
      const { kernels } = await tf.profile(() => tf.tidy(gradient));
      const names = kernels.map((k) => k.name);
      expect(names).toContain('AgenticRlMaskedSoftmax');
      expect(names).toContain('AgenticRlSoftmaxGrad');
      expect(names).not.toContain('Softmax');
      const got = gradient();
      const forward = maskedSoftmax(scores, mask);
      setSwitches({ simdSoftmax: false });
      const ops = gradient();
      const opsForward = tf.softmax(tf.add(scores, mask));
      setSwitches({ simdSoftmax: true });
      const [p, pOps, x, m] = [
        forward.dataSync(),
        opsForward.dataSync(),
        scores.dataSync(),
        mask.dataSync(),
      ];
      for (let row = 0; row < p.length / S; row++) {
        const maskRow = ((maskBatch > 1 ? Math.floor(row / (H * T)) : 0) * T + (row % T)) * S;
        const z = Array.from({ length: S }, (_, j) => x[row * S + j]! + m[maskRow + j]!);
        const max = Math.max(...z);
        const total = z.reduce((a, v) => a + Math.exp(v - max), 0);
        for (let j = 0; j < S; j++) {
          const want = Math.exp(z[j]! - max) / total;
          if (m[maskRow + j]! < 0) expect(p[row * S + j]).toBe(0); // hidden: exactly 0, as from tf.softmax
          expect(Math.abs(p[row * S + j]! - want)).toBeLessThan(1e-6 * want + 1e-12);
          expect(Math.abs(p[row * S + j]! - pOps[row * S + j]!)).toBeLessThan(1e-6 * want + 1e-12);
        }
      }
      // float64: ds = p (dp - Σ p dp) per row, from the float32 p the forward gave
      const dp = weights.dataSync();
      const [g, o] = [got.dataSync(), ops.dataSync()];
      for (let row = 0; row < p.length / S; row++) {
        let dot = 0;
        for (let j = 0; j < S; j++) dot += p[row * S + j]! * dp[row * S + j]!;
        for (let j = 0; j < S; j++) {
          const i = row * S + j;
          const want = p[i]! * (dp[i]! - dot);
          expect(Math.abs(g[i]! - want)).toBeLessThan(2e-7 * (1 + Math.abs(want)));
          expect(Math.abs(g[i]! - o[i]!)).toBeLessThan(2e-6 * (1 + Math.abs(want)));
        }
      }
      tf.dispose([scores, mask, weights, got, forward, ops, opsForward]);
    },
  );

  it("under a causal limit reads no hidden key: NaN scores past t + offset still give 0 there, the rest within 3e-7 of the whole row's", () => {
    const [B, H, T, S] = [2, 3, 6, 21]; // offset 15: rows see 16 .. 21 keys
    const mask = causalMask(2, T, S);
    const values = filledTensor([B, H, 1, T, S], 3, { step: 0.71 }).dataSync().slice();
    for (let row = 0; row < B * H * T; row++)
      values.fill(Number.NaN, row * S + (row % T) + S - T + 1, (row + 1) * S);
    const scores = tf.tensor(values, [B, H, 1, T, S]);
    const limited = maskedSoftmax(scores, mask, S - T).dataSync();
    for (let row = 0; row < B * H * T; row++) {
      const visible = (row % T) + S - T + 1;
      for (let j = visible; j < S; j++) expect(limited[row * S + j]).toBe(0);
      let sum = 0;
      for (let j = 0; j < visible; j++) sum += limited[row * S + j]!;
      expect(Math.abs(sum - 1)).toBeLessThan(1e-6);
    }
    const whole = filledTensor([B, H, 1, T, S], 3, { step: 0.71 });
    const [withLimit, without] = [
      maskedSoftmax(whole, mask, S - T).dataSync(),
      maskedSoftmax(whole, mask).dataSync(),
    ];
    without.forEach((want, i) =>
      expect(Math.abs(withLimit[i]! - want)).toBeLessThanOrEqual(3e-7 * want),
    ); // the sum's grouping differs with the row's length
    // the ops read every key: NaN comes through
    expect(
      withSwitches({ simdSoftmaxForward: false }, () =>
        Array.from(maskedSoftmax(scores, mask, S - T).dataSync()).some(Number.isNaN),
      ),
    ).toBe(true);
    tf.dispose([scores, mask, whole]);
  });

  it('refuses a mask that does not fit the scores, with the shapes in the message', () => {
    expect(() =>
      tf
        .engine()
        .runKernel(
          'AgenticRlMaskedSoftmax',
          { scores: tf.zeros([2, 1, 4, 6]), mask: tf.zeros([3, 1, 1, 4, 6]) },
          { offset: -1 },
        ),
    ).toThrow(/maskedSoftmax: scores \[2,1,4,6\] and mask \[3,1,1,4,6\]/);
  });

  it('leaves no tensors behind', () => {
    const scores = filledTensor([2, 2, 1, 4, 6], 1, { step: 0.71 });
    const mask = causalMask(2, 4, 6);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++)
      tf.tidy(() => {
        tf.grad((x: tf.Tensor) => tf.sum(maskedSoftmax(x, mask)))(scores);
      });
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([scores, mask]);
  });
});
