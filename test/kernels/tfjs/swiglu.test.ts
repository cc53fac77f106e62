// The fused SwiGLU gate (kernels/tfjs/swiglu.ts): values against the tfjs ops and a float64 loop,
// gradients against tfjs autograd of the ops and the float64 derivative, extreme gates, its use in
// a training step's gradient, and a clear error for operands it does not take.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/model_files/hf_config.ts';
import { tokenLogprobs } from '../../../src/model/logprobs.ts';
import { CausalLM } from '../../../src/model/model.ts';
import { randomWeights } from '../../../src/model/random_weights.ts';
import { simdSwigluActive, swiglu, swigluValue } from '../../../src/kernels/tfjs/swiglu.ts';
import { simdSwigluModule } from '../../../src/kernels/simd/swiglu.ts';
import { expectClose, filled } from '../../helpers/numbers.ts';
import { setSwitches, withSwitches } from '../../../src/kernels/switches.ts';

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

describe('fused SwiGLU on wasm', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
  });
  afterEach(() => {
    setSwitches({ simdSwiglu: true });
  });

  it('is a valid module under 4 KB, active on wasm for sizes that are multiples of 4', () => {
    const bytes = simdSwigluModule();
    expect(WebAssembly.validate(bytes)).toBe(true);
    expect(bytes.length).toBeLessThan(4096);
    expect(simdSwigluActive(12)).toBe(true);
    expect(simdSwigluActive(10)).toBe(false);
  });

  // gates from tiny to saturated (sigmoid 0 or 1 in float32), and a gradient weighting every output
  // differently
  it.each([
    [4, 1],
    [28, 2],
    [52, 4],
    [96, 3],
    [512 * 8, 8],
    [64, 100],
  ])(
    '%i numbers, gates within +-%i: values and gradients match the ops and a float64 loop',
    (size, spread) => {
      const [g, u, w] = [
        filled(size, 1, { scale: spread }),
        filled(size, 2, { scale: 2 }),
        filled(size, 3, { scale: 1.5 }),
      ];
      const gate = tf.tensor2d(g, [size / 4, 4]);
      const up = tf.tensor2d(u, [size / 4, 4]);
      const weights = tf.tensor2d(w, [size / 4, 4]);
      const run = (fusedOn: boolean) => {
        setSwitches({ simdSwiglu: fusedOn });
        return tf.tidy(() => {
          const value = swiglu(gate, up).dataSync().slice();
          const [dg, du] = tf.grads((a: tf.Tensor, b: tf.Tensor) =>
            tf.sum(tf.mul(swiglu(a, b), weights)),
          )([gate, up]);
          return { value, dg: dg!.dataSync().slice(), du: du!.dataSync().slice() };
        });
      };
      // dg = w u s (1 + g (1 - s)) crosses zero near g = -1.28, where a relative bound means
      // nothing: there the bound is on the size of its terms, |w u| (1 + |g|)
      const dgScale = Array.from(g, (x, i) => 1e-6 * Math.abs(w[i]! * u[i]!) * (1 + Math.abs(x)));
      const fused = run(true);
      const ops = run(false);
      expectClose(fused.value, ops.value, 2e-6, 1e-30);
      expectClose(fused.dg, ops.dg, 1e-5, dgScale);
      expectClose(fused.du, ops.du, 2e-6, 1e-30);
      // float64: f = g s u, df/du = g s, df/dg = u s (1 + g (1 - s))
      expectClose(
        fused.value,
        Array.from(g, (x, i) => x * sigmoid(x) * u[i]!),
        2e-6,
        1e-30,
      );
      expectClose(
        fused.du,
        Array.from(g, (x, i) => w[i]! * x * sigmoid(x)),
        2e-6,
        1e-30,
      );
      expectClose(
        fused.dg,
        Array.from(g, (x, i) => w[i]! * u[i]! * sigmoid(x) * (1 + x * (1 - sigmoid(x)))),
        1e-5,
        dgScale,
      );
      tf.dispose([gate, up, weights]);
    },
  );

  it('carries the MLP gates of a training step, forward and backward', async () => {
    const config = parseModelConfig({
      model_type: 'llama',
      vocab_size: 64,
      hidden_size: 32,
      intermediate_size: 48,
      num_hidden_layers: 1,
      num_attention_heads: 2,
      num_key_value_heads: 2,
      max_position_embeddings: 64,
    });
    const model = CausalLM.fromWeights(config, randomWeights(config, 1), { kind: 'full' });
    const list = [...model.trainableVariables().values()];
    const { kernels, result } = await tf.profile(() =>
      tf.tidy(() => {
        const { value, grads } = tf.variableGrads(
          () =>
            tf.neg(
              tf.mean(tokenLogprobs(model, [[1, 2, 3, 4, 5]], { temperature: 1 })),
            ) as tf.Scalar,
          list,
        );
        tf.dispose(Object.values(grads));
        return value;
      }),
    );
    tf.dispose(result as tf.Tensor);
    const names = kernels.map((k) => k.name);
    expect(names).toContain('AgenticRlSwiGLU');
    expect(names).toContain('AgenticRlSwiGLUGrad');
    model.dispose();
  });

  it('gives decoding and prefill the forward kernel: swigluValue equals swiglu, and a no-gradient forward runs no Sigmoid', async () => {
    for (const rows of [8, 128]) {
      // decoding's few rows; a prefill chunk (past what once went to the tfjs ops)
      const [g, u] = [filled(rows * 768, 4, { scale: 12 }), filled(rows * 768, 5, { scale: 2 })];
      const gate = tf.tensor2d(g, [rows, 768]);
      const up = tf.tensor2d(u, [rows, 768]);
      const { kernels: ran } = await tf.profile(() => swigluValue(gate, up).dispose());
      expect(ran.map((k) => k.name)).toEqual(['AgenticRlSwiGLU']);
      expect(Array.from(swigluValue(gate, up).dataSync())).toEqual(
        Array.from(swiglu(gate, up).dataSync()),
      );
      expectClose(
        withSwitches({ simdSwiglu: false }, () => swigluValue(gate, up).dataSync()),
        Array.from(g, (x, i) => x * sigmoid(x) * u[i]!),
        2e-6,
        1e-30,
      ); // the tfjs ops
      tf.dispose([gate, up]);
    }
    const config = parseModelConfig({
      model_type: 'llama',
      vocab_size: 64,
      hidden_size: 32,
      intermediate_size: 48,
      num_hidden_layers: 1,
      num_attention_heads: 2,
      num_key_value_heads: 2,
      max_position_embeddings: 64,
    });
    const model = CausalLM.fromWeights(config, randomWeights(config, 1));
    const { kernels } = await tf.profile(() => {
      model.logits([1, 2, 3]);
    });
    const names = kernels.map((k) => k.name);
    expect(names).toContain('AgenticRlSwiGLU');
    expect(names).not.toContain('Sigmoid');
    model.dispose();
  });

  it('refuses operands of different shapes, with the shapes in the message', () => {
    expect(() =>
      tf.engine().runKernel('AgenticRlSwiGLU', { gate: tf.zeros([2, 4]), up: tf.zeros([4, 2]) }),
    ).toThrow(/swiglu: operands of shapes \[2,4\], \[4,2\]/);
  });
});
