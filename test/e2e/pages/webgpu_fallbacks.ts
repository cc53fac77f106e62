// The paths our WASM kernels take and their fallbacks elsewhere, on the same inputs, for
// test/e2e/webgpu_trainer.test.ts: run on wasm (the kernels) and on webgpu (tfjs's ops), the
// results must agree. Each entry is a flat list of numbers; `active` says which fast paths ran.
import * as tf from '@tensorflow/tfjs';
import { simdSoftmaxActive, maskedSoftmax } from '../../../src/kernels/tfjs/masked_softmax.ts';
import { simdAdamWActive } from '../../../src/kernels/tfjs/adamw.ts';
import { simdRmsNormActive } from '../../../src/kernels/tfjs/rmsnorm.ts';
import { simdSwigluActive, swiglu, swigluValue } from '../../../src/kernels/tfjs/swiglu.ts';
import { withSwitches } from '../../../src/kernels/switches.ts';
import { resident16Active } from '../../../src/kernels/matmul/weights16.ts';
import { AdamW, clipScale, globalNorm } from '../../../src/model/adamw.ts';
import { rmsNorm } from '../../../src/model/linear.ts';
import { logPartition } from '../../../src/model/ops.ts';
import { Rng } from '../../../src/model/rng.ts';
import { applyRope, rotateHalfMatrix } from '../../../src/model/rope.ts';
import { sampleToken } from '../../../src/model/sample.ts';

/** sin(i * 0.37 + seed) * scale: deterministic test data. */
const wave = (shape: number[], seed: number, scale = 1) =>
  tf.tensor(
    Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) =>
      Math.fround(Math.sin(i * 0.37 + seed) * scale),
    ),
    shape,
  );

const values = async (t: tf.Tensor) => Array.from(await t.data());

/** The values of the tensor `make` returns, which is then freed. */
async function valuesOf(make: () => tf.Tensor): Promise<number[]> {
  const t = tf.tidy(make);
  const out = await values(t);
  t.dispose();
  return out;
}

/** A function's value and its gradients in each input against weights dy, all flattened. */
async function withGrads(
  f: (...xs: tf.Tensor[]) => tf.Tensor,
  inputs: tf.Tensor[],
  seed: number,
): Promise<number[][]> {
  const value = tf.tidy(() => f(...inputs));
  const dy = wave(value.shape, seed);
  const grads = tf.grads((...xs: tf.Tensor[]) => tf.sum(tf.mul(f(...xs), dy)))(inputs);
  const out = [await values(value), ...(await Promise.all(grads.map(values)))];
  [value, dy, ...grads].forEach((t) => t.dispose());
  return out;
}

/** Two AdamW steps (weight decay, a clipping scale) on an odd-sized and a larger variable. */
async function adamw(): Promise<Record<string, number[]>> {
  const variable = (shape: number[], seed: number, name: string) =>
    tf.tidy(() => tf.variable(wave(shape, seed), true, name)); // the initial value freed
  const variables = new Map([
    ['odd', variable([37], 1, 'fallback_odd')],
    ['matrix', variable([24, 40], 2, 'fallback_matrix')],
  ]);
  const optimizer = new AdamW(variables, {
    learningRate: 1e-2,
    beta1: 0.9,
    beta2: 0.95,
    epsilon: 1e-8,
    weightDecay: 0.01,
  });
  const norms: number[] = [];
  for (let step = 0; step < 2; step++) {
    const grads = { odd: wave([37], 3 + step, 0.3), matrix: wave([24, 40], 5 + step, 0.2) };
    const norm = await globalNorm(grads);
    norms.push(norm);
    optimizer.apply(grads, 1e-2, clipScale(norm, 1));
    Object.values(grads).forEach((g) => g.dispose());
  }
  const state = await optimizer.saveState();
  const out: Record<string, number[]> = { 'adamw norm': norms };
  for (const [name, variable] of variables) {
    out[`adamw ${name}`] = await values(variable);
    out[`adamw ${name} m`] = Array.from(state.moments[name]!.m);
    out[`adamw ${name} v`] = Array.from(state.moments[name]!.v);
    variable.dispose();
  }
  optimizer.dispose();
  return out;
}

/** Token draws with a seeded stream from two rows of logits, SIMD weights and Math.exp. */
function sampling(): Record<string, number[]> {
  const vocab = 1536;
  const logits = Float32Array.from({ length: 2 * vocab }, (_, i) => Math.sin(i * 0.91) * 6);
  const draw = () => {
    const rng = new Rng(5);
    return [0, 1, 0.7].flatMap((temperature, k) => {
      const { id, logprob } = sampleToken(logits, (k % 2) * vocab, vocab, temperature, rng);
      return [id, logprob];
    });
  };
  return { sampling: draw(), 'sampling exp': withSwitches({ simdSampling: false }, draw) };
}

/** Every wasm-only path and its fallback, on the current backend. */
export async function fallbacks(): Promise<{
  backend: string;
  active: Record<string, boolean>;
  results: Record<string, number[]>;
  /** Tensors this call left behind (caches a kernel makes on first use included). */
  tensorsLeft: number;
}> {
  const before = tf.memory().numTensors;
  const results: Record<string, number[]> = { ...(await adamw()), ...sampling() };
  const add = (name: string, lists: number[][]) =>
    lists.forEach((list, i) => {
      results[i === 0 ? name : `${name} grad ${i}`] = list;
    });
  const [x, w] = [wave([6, 64], 7, 3) as tf.Tensor2D, wave([64], 8)];
  add(
    'rmsNorm',
    await withGrads((a, b) => rmsNorm(a as tf.Tensor2D, b!, 1e-5, 'gradient'), [x, w], 9),
  );
  results['rmsNorm value'] = await valuesOf(() => rmsNorm(x, w, 1e-5, 'value'));
  const [gate, up] = [wave([5, 48], 10, 4), wave([5, 48], 11, 2)];
  add('swiglu', await withGrads((a, b) => swiglu(a!, b!), [gate, up], 12));
  results['swiglu value'] = await valuesOf(() => swigluValue(gate, up));
  // scores (B, Hkv, G, T, S) under a causal mask over the last T of S keys
  const [B, T, S] = [2, 5, 7];
  const scores = wave([B, 2, 2, T, S], 13, 5);
  const bias = new Float32Array(B * T * S).map((_, i) =>
    i % S <= (Math.floor(i / S) % T) + S - T ? 0 : -1e9,
  );
  const mask = tf.tensor(bias, [B, 1, 1, T, S]);
  add('maskedSoftmax', await withGrads((s) => maskedSoftmax(s!, mask, S - T), [scores], 14));
  // x (B, H, T, hd) with tables (B, 1, T, hd)
  const hd = 16;
  const [q, cos, sin] = [wave([B, 3, T, hd], 15), wave([B, 1, T, hd], 16), wave([B, 1, T, hd], 17)];
  const rotation = rotateHalfMatrix(hd);
  add('rope', await withGrads((a) => applyRope(a!, cos, sin, rotation), [q], 18));
  // the output head's log-partition at a temperature, softmax kept and recomputed
  const [h, head] = [wave([6, 32], 19), wave([32, 300], 20, 0.5)];
  for (const keep of [false, true])
    add(
      `logPartition${keep ? ' kept' : ''}`,
      await withGrads(
        (a, b) => logPartition(a as tf.Tensor2D, b as tf.Tensor2D, 0.7, true, keep),
        [h, head],
        21,
      ),
    );
  // tfjs-wasm kernels we replace (kernels/tfjs/overrides.ts): transpose, max, gather, cast
  const table = wave([12, 30], 22);
  results['transpose max gather'] = await valuesOf(() =>
    tf.concat([
      tf.reshape(tf.transpose(tf.reshape(table, [3, 4, 30]), [1, 0, 2]), [-1]),
      tf.max(table, -1),
      tf.reshape(tf.gather(table, tf.tensor1d([3, 0, 3, 29], 'int32'), 1), [-1]),
      tf.cast(tf.cast(table, 'float32'), 'float32').flatten(),
    ]),
  );
  [x, w, gate, up, scores, mask, q, cos, sin, rotation, h, head, table].forEach((t) => t.dispose());
  return {
    backend: tf.getBackend(),
    active: {
      adamw: simdAdamWActive(),
      rmsNorm: simdRmsNormActive(64),
      swiglu: simdSwigluActive(5 * 48),
      softmax: simdSoftmaxActive(),
      weights16: resident16Active(),
    },
    results,
    tensorsLeft: tf.memory().numTensors - before,
  };
}
