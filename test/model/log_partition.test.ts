// logPartition (ops.ts) against plain tfjs autograd of log Σ exp(h @ w / T): its value and its
// hand-written gradients, with the softmax recomputed in the backward pass or kept from the
// forward pass, for a trainable and a frozen head, on shapes where the wasm backend takes the
// fused kernel and the small-head layout of the backward products (rows >= 64, D * V small) and
// on one too small for it. The reference runs on the cpu backend: an independent implementation.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { fusedMultiplyAddActive } from '../../src/kernels/matmul/kernels.ts';
import { kernelTakes } from '../../src/kernels/matmul/dispatch.ts';
import { logPartition } from '../../src/model/ops.ts';
import { useBackend } from '../helpers/models.ts';
import { filledTensor } from '../helpers/tensors.ts';

const TEMPERATURE = 0.7;

interface Result {
  value: Float32Array;
  dh: Float32Array;
  dw: Float32Array | null;
}

/**
 * Value and gradients of Σ_c weights[c] * lse[c] (weights differ per row, so each row's dy shows).
 */
function run(
  rows: number,
  depth: number,
  vocab: number,
  impl: 'ours' | 'reference',
  trainable: boolean,
  keep: boolean,
): Result {
  let result: Result | undefined;
  tf.tidy(() => {
    const h = filledTensor([rows, depth], 1, { step: 0.731, scale: 0.8 });
    const w = tf.variable(filledTensor([depth, vocab], 2, { step: 0.731, scale: 0.5 }), trainable);
    const weights = tf.tensor1d(
      Float32Array.from({ length: rows }, (_, i) => Math.cos(i * 1.3) + 0.2),
    );
    const f = (hs: tf.Tensor2D, ws: tf.Tensor2D) =>
      impl === 'ours'
        ? logPartition(hs, ws, TEMPERATURE, trainable, keep)
        : (tf.logSumExp(tf.div(tf.matMul(hs, ws), TEMPERATURE), -1) as tf.Tensor1D);
    const value = f(h, w);
    const loss = (hs: tf.Tensor2D, ws: tf.Tensor2D) =>
      tf.sum(tf.mul(f(hs, ws), weights)) as tf.Scalar;
    result = trainable
      ? (() => {
          const [dh, dw] = tf.grads((hs: tf.Tensor, ws: tf.Tensor) =>
            loss(hs as tf.Tensor2D, ws as tf.Tensor2D),
          )([h, w]);
          return {
            value: value.dataSync() as Float32Array,
            dh: dh!.dataSync() as Float32Array,
            dw: dw!.dataSync() as Float32Array,
          };
        })()
      : {
          value: value.dataSync() as Float32Array,
          dh: tf
            .grad((hs: tf.Tensor) => loss(hs as tf.Tensor2D, w))(h)
            .dataSync() as Float32Array,
          dw: null,
        };
    w.dispose();
  });
  return result!;
}

function expectClose(got: Float32Array, expected: Float32Array, what: string): void {
  expect(got.length).toBe(expected.length);
  let worst = 0;
  for (let i = 0; i < got.length; i++)
    worst = Math.max(worst, Math.abs(got[i]! - expected[i]!) / Math.max(1, Math.abs(expected[i]!)));
  expect(worst, what).toBeLessThan(2e-5);
}

describe('logPartition', () => {
  afterAll(() => tf.disposeVariables());

  it.each([
    [96, 32, 300], // kernel rows, small head: the (g^T h)^T and g w^T layout on wasm
    [8, 16, 50], // few rows: tf.matMul everywhere
  ])(
    '%i rows, D %i, V %i: value and gradients equal autograd on cpu, trainable or frozen, softmax kept or not',
    async (rows, depth, vocab) => {
      for (const trainable of [true, false]) {
        await useBackend('cpu');
        const expected = run(rows, depth, vocab, 'reference', trainable, false);
        for (const backend of ['wasm', 'cpu'] as const) {
          await useBackend(backend);
          if (backend === 'wasm' && rows >= 64)
            expect(fusedMultiplyAddActive() && kernelTakes(vocab, depth)).toBe(true);
          for (const keep of [false, true]) {
            const got = run(rows, depth, vocab, 'ours', trainable, keep);
            const label = `${backend} trainable=${trainable} keep=${keep}`;
            expectClose(got.value, expected.value, `${label}: value`);
            expectClose(got.dh, expected.dh, `${label}: d/dh`);
            if (trainable) expectClose(got.dw!, expected.dw!, `${label}: d/dw`);
          }
        }
      }
    },
  );

  it('on wasm, lse as max - log(max softmax) holds for one dominant logit and for a flat row, against float64', async () => {
    await useBackend('wasm');
    // rows: a flat row (p_max = 1 / V), one logit 60 above the rest (p_max = 1 in float32), a
    // spread of +-40
    const vocab = 300;
    const rows = [
      Array<number>(vocab).fill(0.25),
      Array.from({ length: vocab }, (_, v) => (v === 7 ? 60 : Math.sin(v))),
      Array.from({ length: vocab }, (_, v) => 40 * Math.sin(v * 1.7)),
    ];
    // h @ w = logits with h one-hot rows of an identity-like head: w holds the logits, h picks the
    // row
    const h = tf.eye(3) as tf.Tensor2D;
    const w = tf.tensor2d(rows.flat(), [3, vocab]);
    const got = tf.tidy(() => logPartition(h, w, 1, false).dataSync());
    rows.forEach((row, i) => {
      const peak = Math.max(...row);
      const want = peak + Math.log(row.reduce((sum, x) => sum + Math.exp(x - peak), 0));
      expect(Math.abs(got[i]! - want)).toBeLessThan(2e-6 * Math.max(1, Math.abs(want)));
    });
    tf.dispose([h, w]);
  });

  it('keeping the softmax spares the backward pass a product, and neither way leaks a tensor', async () => {
    await useBackend('wasm');
    const products: number[] = [];
    for (const keep of [false, true]) {
      const before = tf.memory().numTensors;
      const profile = await tf.profile(() => void run(96, 32, 300, 'ours', true, keep));
      // (g @ w^T on the NT kernel, or beside g^T @ h in one kernel of two products when there are
      // helper threads)
      const counts: Record<string, number> = {
        AgenticRlSimdStridedMatMul: 1,
        AgenticRlSimdMatMulTA: 1,
        AgenticRlSimdMatMulNT: 1,
        AgenticRlSimdMatMulBeside: 2,
      };
      products.push(profile.kernels.reduce((sum, kernel) => sum + (counts[kernel.name] ?? 0), 0));
      expect(tf.memory().numTensors).toBe(before);
    }
    // run() takes h @ w for the value, then again in the gradient's forward pass, then g @ w^T
    // and g^T @ h (the transposed-A kernel); recomputing the softmax adds h @ w once more
    expect(products).toEqual([5, 4]);
  });
});
