// Gradients of the token log-prob loss against central finite differences, on wasm and cpu.
// The loss weights each position differently so every path (chunking, padding, tied head,
// biases, norms, embedding scatter with repeated ids) shows up in the derivative.
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import type { CausalLM } from '../../src/model/model.ts';
import { tokenLogprobs } from '../../src/model/logprobs.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadFixture, useBackend } from '../helpers/models.ts';

// two sequences of different lengths with a repeated id (72) to exercise the scatter's summing
const batch = [
  [257, 72, 105, 72, 33, 258],
  [257, 72, 10],
];

function loss(model: CausalLM): tf.Scalar {
  return tf.tidy(() => {
    const logprobs = tokenLogprobs(model, batch, {
      temperature: 0.8,
      chunkElements: 3 * model.config.vocabSize,
    }); // (2, 5), chunks of 3 rows
    const weights = tf.tensor2d([
      [1, -0.5, 2, 0.7, -1.3],
      [0.9, 1.1, 0, 0, 0],
    ]);
    return tf.sum(tf.mul(logprobs, weights)) as tf.Scalar;
  });
}

/** d loss / d variable along a random direction, by central differences in float32. */
function directionalDifference(
  model: CausalLM,
  variable: tf.Variable,
  direction: tf.Tensor,
  step: number,
): number {
  const original = tf.clone(variable);
  const evaluate = (sign: number) => {
    variable.assign(tf.tidy(() => tf.add(original, tf.mul(direction, sign * step))));
    const value = loss(model);
    const result = value.dataSync()[0]!;
    value.dispose();
    return result;
  };
  const plus = evaluate(1);
  const minus = evaluate(-1);
  variable.assign(original);
  original.dispose();
  return (plus - minus) / (2 * step);
}

/**
 * A random direction of unit L2 norm, so the finite-difference step has the same size everywhere.
 */
function randomDirection(shape: number[], rng: Rng): tf.Tensor {
  const size = shape.reduce((a, b) => a * b, 1);
  const values = Float32Array.from({ length: size }, () => 2 * rng.uniform() - 1);
  const norm = Math.hypot(...values);
  return tf.tensor(
    values.map((v) => v / norm),
    shape,
  );
}

describe.each(['wasm', 'cpu'] as const)('token log-prob gradients on %s', (backend) => {
  it.each([
    ['tiny-qwen2', 'full'], // tied embedding, q/k/v biases
    ['tiny-llama', 'full'], // separate lm_head
    ['tiny-llama', 'lora'],
    ['tiny-qwen3', 'full'], // q/k head norms, head width 16 != hidden / heads
    ['tiny-qwen3', 'lora'],
  ] as const)('%s (%s) matches finite differences', async (name, kind) => {
    await useBackend(backend);
    const model = await loadFixture(
      name,
      kind === 'full'
        ? { kind }
        : {
            kind,
            lora: {
              rank: 2,
              alpha: 4,
              dropout: 0,
              targetModules: ['q_proj', 'v_proj', 'down_proj'],
              seed: 1,
            },
          },
    );
    const variables = model.trainableVariables();
    if (kind === 'lora') {
      // B starts at zero (so dA = 0); give it values so both factors have real gradients
      const rng = new Rng(9);
      for (const [key, variable] of variables)
        if (key.includes('lora_B'))
          variable.assign(tf.mul(randomDirection(variable.shape, rng), 3));
    }
    const names = [...variables.keys()];
    const { value, grads } = tf.variableGrads(() => loss(model), [...variables.values()]);
    value.dispose();
    const rng = new Rng(42);
    // check a spread of variables: embedding, attention, mlp, norms, biases, head, adapters
    const checked =
      kind === 'lora'
        ? names
        : names.filter(
            (_, i) =>
              i % 3 === 0 ||
              names[i]!.includes('embed') ||
              names[i]!.includes('norm') ||
              names[i]!.includes('lm_head'),
          );
    expect(checked.length).toBeGreaterThan(5);
    for (const key of checked) {
      const variable = variables.get(key)!;
      const grad = grads[variable.name]!;
      const direction = randomDirection(variable.shape, rng);
      const analytic = tf.tidy(() => tf.sum(tf.mul(grad, direction)).dataSync()[0]!);
      const numeric = directionalDifference(model, variable, direction, 1e-2);
      direction.dispose();
      // float32 central differences: loose relative tolerance, tight enough to catch a wrong term
      if (process.env.SHOW_GRADS) console.log(key, analytic, numeric);
      expect(
        Math.abs(analytic - numeric),
        `${key}: analytic ${analytic} numeric ${numeric}`,
      ).toBeLessThan(1e-2 * Math.max(1, Math.abs(numeric)));
    }
    tf.dispose(Object.values(grads));
    model.dispose();
  });
});
