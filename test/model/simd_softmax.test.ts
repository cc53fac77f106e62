// Attention's softmax gradient as one SIMD pass (simd_softmax.ts): the forward is the tfjs ops'
// bit for bit; the gradient matches a float64 formula and the ops' gradient for rows with and
// without a tail of 1-3 numbers, a mask per sequence or shared, and it leaks no tensors.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { maskedSoftmax, simdSoftmaxActive, simdSoftmaxModule, useSimdSoftmax } from '../../src/model/simd_softmax.ts';

const filled = (shape: number[], seed: number, scale = 2) => tf.tensor(Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => Math.sin(i * 0.71 + seed) * scale), shape);

/** A (maskBatch, 1, 1, T, S) mask of -1e9 (kv_cache.ts maskBias): causal, and the first key hidden in sequence 1. */
function causalMask(maskBatch: number, T: number, S: number): tf.Tensor {
  const values = new Float32Array(maskBatch * T * S);
  for (let b = 0; b < maskBatch; b++) for (let i = 0; i < T; i++) for (let j = 0; j < S; j++) {
    if (j > i + S - T || (b === 1 && j === 0 && i > 0)) values[(b * T + i) * S + j] = -1e9;
  }
  return tf.tensor(values, [maskBatch, 1, 1, T, S]);
}

describe('the masked softmax\'s fused gradient', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
    expect(simdSoftmaxActive()).toBe(true);
  });

  it('is a valid module under 4 KB', () => {
    expect(WebAssembly.validate(simdSoftmaxModule())).toBe(true);
    expect(simdSoftmaxModule().length).toBeLessThan(4096);
  });

  // S: whole vectors, tails of 1-3, shorter than a vector; masks per sequence and shared
  it.each([[2, 3, 5, 7, 2], [1, 2, 4, 8, 1], [3, 2, 6, 9, 3], [2, 1, 3, 3, 1], [2, 4, 33, 33, 2]])('B %i, H %i, T %i, S %i (mask batch %i): forward bits of the ops, gradient of the float64 formula', async (B, H, T, S, maskBatch) => {
    const scores = filled([B, H, 1, T, S], T + S);
    const mask = causalMask(maskBatch, T, S);
    const weights = filled([B, H, 1, T, S], 5); // dp: a loss that weighs every output differently
    const gradient = () => tf.grad((x: tf.Tensor) => tf.sum(tf.mul(maskedSoftmax(x, mask), weights)))(scores);
    const { kernels } = await tf.profile(() => tf.tidy(gradient));
    expect(kernels.map((k) => k.name)).toContain('AgenticRlSoftmaxGrad');
    const got = gradient();
    const forward = maskedSoftmax(scores, mask);
    useSimdSoftmax(false);
    const ops = gradient();
    const opsForward = tf.softmax(tf.add(scores, mask));
    useSimdSoftmax(true);
    expect(Array.from(forward.dataSync())).toEqual(Array.from(opsForward.dataSync()));
    // float64: ds = p (dp - Σ p dp) per row, from the float32 p
    const p = opsForward.dataSync();
    const dp = weights.dataSync();
    const [g, o] = [got.dataSync(), ops.dataSync()];
    for (let row = 0; row < p.length / S; row++) {
      let dot = 0;
      for (let j = 0; j < S; j++) dot += p[row * S + j]! * dp[row * S + j]!;
      for (let j = 0; j < S; j++) {
        const i = row * S + j;
        const want = p[i]! * (dp[i]! - dot);
        expect(Math.abs(g[i]! - want)).toBeLessThan(2e-7 * (1 + Math.abs(want)));
        expect(Math.abs(g[i]! - o[i]!)).toBeLessThan(4e-7 * (1 + Math.abs(want)));
      }
    }
    tf.dispose([scores, mask, weights, got, forward, ops, opsForward]);
  });

  it('leaves no tensors behind', () => {
    const scores = filled([2, 2, 1, 4, 6], 1);
    const mask = causalMask(2, 4, 6);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) tf.tidy(() => { tf.grad((x: tf.Tensor) => tf.sum(maskedSoftmax(x, mask)))(scores); });
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([scores, mask]);
  });
});
