import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { AdamW, clipByGlobalNorm, clipScale, globalNorm } from '../../src/model/adamw.ts';
import { simdAdamWActive, sumOfSquares } from '../../src/kernels/tfjs/adamw.ts';
import { useBackend } from '../helpers/models.ts';
import { filledTensor } from '../helpers/tensors.ts';
import { setSwitches, withSwitches } from '../../src/kernels/switches.ts';

describe('AdamW', () => {
  beforeAll(() => useBackend('wasm'));

  it('matches torch.optim.AdamW step by step (values from PyTorch 1.13, float64)', async () => {
    // Step 1 by hand for the first entry: decay 1 -> 0.99, m_hat = g, v_hat = g^2, update = lr * g
    // / |g| = 0.1.
    const expected = [
      [0.890000002, -1.98],
      [0.9177103542205653, -2.0346136820059963],
      [0.9222023167767704, -2.0604989772430904],
    ];
    const theta = tf.variable(tf.tensor1d([1, -2]));
    const optimizer = new AdamW(new Map([['theta', theta]]), {
      learningRate: 0.1,
      beta1: 0.9,
      beta2: 0.999,
      epsilon: 1e-8,
      weightDecay: 0.1,
    });
    const grads = [
      [0.5, 0],
      [-1, 3],
      [0.25, -0.5],
    ];
    for (let step = 0; step < 3; step++) {
      const grad = tf.tensor1d(grads[step]!);
      optimizer.apply({ theta: grad });
      grad.dispose();
      Array.from(theta.dataSync()).forEach((value, i) =>
        expect(value).toBeCloseTo(expected[step]![i]!, 5),
      );
    }
    // save -> restore -> continue gives the same numbers as continuing
    const state = await optimizer.saveState();
    expect(state.step).toBe(3);
    const copy = tf.variable(theta.clone());
    const restored = new AdamW(new Map([['theta', copy]]), optimizer.config);
    restored.loadState(state);
    const grad = tf.tensor1d([0.1, 0.2]);
    optimizer.apply({ theta: grad });
    restored.apply({ theta: grad });
    expect(Array.from(copy.dataSync())).toEqual(Array.from(theta.dataSync()));
    expect(() => restored.loadState({ step: 1, moments: { other: state.moments.theta! } })).toThrow(
      /does not train/,
    );
    tf.dispose([grad, theta, copy]);
    optimizer.dispose();
    restored.dispose();
  });

  it('clips by global norm like clip_grad_norm_', () => {
    const grads = { a: tf.tensor1d([3, 0]), b: tf.tensor1d([0, 4]) }; // norm 5
    const clipped = clipByGlobalNorm(grads, 1);
    expect(clipped.norm.dataSync()[0]).toBeCloseTo(5, 5);
    expect(Array.from(clipped.grads.a!.dataSync())).toEqual([expect.closeTo(0.6, 5), 0]);
    expect(Array.from(clipped.grads.b!.dataSync())).toEqual([0, expect.closeTo(0.8, 5)]);
    const untouched = clipByGlobalNorm(grads, 10);
    expect(Array.from(untouched.grads.b!.dataSync())).toEqual([0, 4]);
    tf.dispose([
      grads.a,
      grads.b,
      clipped.norm,
      untouched.norm,
      ...Object.values(clipped.grads),
      ...Object.values(untouched.grads),
    ]);
  });

  it('the fused wasm kernel equals the tfjs ops bit for bit, over steps, odd sizes and weight decay', () => {
    // sizes: whole f32x4 vectors, a tail of 1-3 numbers, shorter than one vector
    const shapes = [[16, 8], [7, 5], [3], [1]];
    const run = (fused: boolean) => {
      setSwitches({ simdAdamW: fused });
      expect(simdAdamWActive()).toBe(fused);
      const variables = new Map(
        shapes.map((shape, i) => [
          `w${i}`,
          tf.tidy(() => tf.variable(filledTensor(shape, i, { step: 1.7, scale: 1 }))),
        ]),
      );
      const optimizer = new AdamW(variables, {
        learningRate: 3e-3,
        beta1: 0.9,
        beta2: 0.95,
        epsilon: 1e-8,
        weightDecay: 0.1,
      });
      for (let step = 0; step < 5; step++) {
        const grads = Object.fromEntries(
          shapes.map((shape, i) => [
            `w${i}`,
            filledTensor(shape, 10 * step + i, { step: 1.7, scale: step === 2 ? 1e-6 : 2 }),
          ]),
        );
        // step 4: a clipping factor, given to the optimizer (gradScale)
        optimizer.apply(grads, step === 3 ? 1e-2 : undefined, step === 4 ? 0.3 : 1);
        tf.dispose(Object.values(grads));
      }
      const values = [...variables.values()].map((v) => Array.from(v.dataSync()));
      for (const variable of variables.values()) variable.dispose();
      optimizer.dispose();
      return values;
    };
    const before = tf.memory().numTensors;
    const plain = run(false);
    const fused = run(true);
    expect(tf.memory().numTensors).toBe(before);
    setSwitches({ simdAdamW: true });
    expect(fused).toEqual(plain);
    expect(fused[0]![0]).not.toBe(Math.fround(Math.sin(0))); // it moved
  });

  it('applies gradScale as clipping first would: the same numbers as AdamW on tf.mul(g, scale), fused and not', () => {
    const run = (fused: boolean, scaleFirst: boolean) => {
      setSwitches({ simdAdamW: fused });
      const w = tf.variable(tf.tensor1d([0.5, -1, 2, 0.25, 3]));
      const optimizer = new AdamW(new Map([['w', w]]), {
        learningRate: 1e-2,
        beta1: 0.9,
        beta2: 0.999,
        epsilon: 1e-8,
        weightDecay: 0.01,
      });
      for (const scale of [0.37, 1, 0.05]) {
        const g = tf.tensor1d([1.3, -0.7, 2.9, 1e-3, -5]);
        if (scaleFirst) {
          const scaled = tf.mul(g, scale);
          optimizer.apply({ w: scaled });
          scaled.dispose();
        } else optimizer.apply({ w: g }, undefined, scale);
        g.dispose();
      }
      const out = Array.from(w.dataSync());
      w.dispose();
      optimizer.dispose();
      return out;
    };
    const reference = run(false, true);
    expect(run(false, false)).toEqual(reference);
    expect(run(true, false)).toEqual(reference);
    setSwitches({ simdAdamW: true });
  });

  it("globalNorm sums squares in float64 (the wasm kernel, every tail) as the ops do, and clipScale is clip_grad_norm_'s factor", async () => {
    // sizes: empty, shorter than a vector, whole vectors, vectors and a tail of 1-3
    const sizes = [0, 1, 3, 4, 8, 13, 1030];
    const tensors = sizes.map((size, t) =>
      tf.tensor1d(Float32Array.from({ length: size }, (_, i) => Math.sin(i * 0.91 + t) * (t + 1))),
    );
    let want = 0;
    for (const x of tensors) for (const v of x.dataSync()) want += v * v;
    expect(simdAdamWActive()).toBe(true);
    expect(Math.abs(sumOfSquares(tensors) - want)).toBeLessThan(1e-12 * want);
    const grads = Object.fromEntries(tensors.map((x, i) => [`g${i}`, x]));
    const fast = await globalNorm(grads);
    const ops = await withSwitches({ simdAdamW: false }, () => globalNorm(grads)); // tf.sum(tf.square(g)), float32
    expect(Math.abs(fast - Math.sqrt(want))).toBeLessThan(1e-12 * Math.sqrt(want));
    expect(Math.abs(ops - fast)).toBeLessThan(1e-5 * fast);
    // a non-finite gradient makes the norm non-finite (the trainer then skips the step)
    const bad = tf.tensor1d([1, Number.NaN, 2, 3, 4]);
    expect(await globalNorm({ ...grads, bad })).toBeNaN();
    expect(await globalNorm({})).toBe(0);
    expect(clipScale(5, 1)).toBeCloseTo(1 / (5 + 1e-6), 12);
    expect(clipScale(0.5, 1)).toBe(1);
    expect(clipScale(5, 0)).toBe(1);
    expect(clipScale(5, Infinity)).toBe(1);
    tf.dispose([...tensors, bad]);
  });
});
