// The fused RMSNorm (kernels/tfjs/rmsnorm.ts): values and both gradients against the tfjs ops
// (rmsNorm unfused) and float64 formulas, the forward alone (decoding) giving the same numbers, its
// use in a training step and in a no-gradient forward with no tensors left behind, and a clear
// error for operands it does not take.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/model_files/hf_config.ts';
import { rmsNorm } from '../../../src/model/decoder.ts';
import { tokenLogprobs } from '../../../src/model/logprobs.ts';
import { CausalLM } from '../../../src/model/model.ts';
import { randomWeights } from '../../../src/model/random_weights.ts';
import {
  simdAddRmsNormValue,
  simdRmsNormActive,
  simdRmsNormValue,
} from '../../../src/kernels/tfjs/rmsnorm.ts';
import { simdRmsNormModule } from '../../../src/kernels/simd/rmsnorm.ts';
import { expectClose, filled } from '../../helpers/numbers.ts';
import { setSwitches } from '../../../src/kernels/switches.ts';

describe('fused RMSNorm on wasm', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
  });
  afterEach(() => {
    setSwitches({ simdRmsNorm: true });
  });

  it('is a valid module under 4 KB, active for widths that are multiples of 4', () => {
    const bytes = simdRmsNormModule();
    expect(WebAssembly.validate(bytes)).toBe(true);
    expect(bytes.length).toBeLessThan(4096);
    expect(simdRmsNormActive(256)).toBe(true);
    expect(simdRmsNormActive(30)).toBe(false);
  });

  it.each([
    [1, 256],
    [8, 12],
    [37, 192],
  ])(
    'residual add and norm in one pass (%i rows of %i): the bits of tf.add then the norm, nothing left behind',
    (rows, D) => {
      const x = tf.tensor2d(filled(rows * D, 4, { scale: 2 }), [rows, D]);
      const delta = tf.tensor2d(filled(rows * D, 5, { scale: 0.7 }), [rows, D]);
      const w = tf.tensor1d(filled(D, 6, { scale: 1.2 }));
      const sum = tf.add(x, delta) as tf.Tensor2D;
      const normed = simdRmsNormValue(sum, w, 1e-5);
      const before = tf.memory().numTensors;
      const [fusedSum, fusedNormed] = simdAddRmsNormValue(x, delta, w, 1e-5);
      expect(tf.memory().numTensors).toBe(before + 2);
      expect(fusedSum.shape).toEqual([rows, D]);
      expect(Array.from(fusedSum.dataSync())).toEqual(Array.from(sum.dataSync()));
      expect(Array.from(fusedNormed.dataSync())).toEqual(Array.from(normed.dataSync()));
      expect(() => simdAddRmsNormValue(x, w as unknown as tf.Tensor2D, w, 1e-5)).toThrow(
        /addRmsNorm: delta \[\d+\] for x/,
      );
      tf.dispose([x, delta, w, sum, normed, fusedSum, fusedNormed]);
    },
  );

  it.each([
    [1, 4, 1e-6],
    [7, 32, 1e-5],
    [512, 256, 1e-6],
    [3, 12, 0.5],
  ])('%i rows of %i, eps %f: values and gradients match the ops and float64', (rows, D, eps) => {
    const [xs, ws, gs] = [
      filled(rows * D, 1, { scale: 3 }),
      filled(D, 2, { scale: 1.5 }),
      filled(rows * D, 3, { scale: 1 }),
    ];
    const x = tf.tensor2d(xs, [rows, D]);
    const w = tf.tensor1d(ws);
    const weights = tf.tensor2d(gs, [rows, D]); // dL/dy: every output weighed differently
    const run = (fused: boolean) =>
      tf.tidy(() => {
        const value = rmsNorm(x, w, eps, fused ? 'gradient' : 'ops')
          .dataSync()
          .slice();
        const [dx, dw] = tf.grads((a: tf.Tensor, b: tf.Tensor) =>
          tf.sum(tf.mul(rmsNorm(a as tf.Tensor2D, b, eps, fused ? 'gradient' : 'ops'), weights)),
        )([x, w]);
        return { value, dx: dx!.dataSync().slice(), dw: dw!.dataSync().slice() };
      });
    const fused = run(true);
    const ops = run(false);
    const before = tf.memory().numTensors;
    const value = rmsNorm(x, w, eps, 'value'); // decoding's forward alone: the same numbers, nothing left behind
    expect(Array.from(value.dataSync())).toEqual(Array.from(fused.value));
    value.dispose();
    expect(tf.memory().numTensors).toBe(before);
    expectClose(fused.value, ops.value, 2e-6, 1e-7);
    expectClose(fused.dx, ops.dx, 1e-5, 1e-6);
    expectClose(fused.dw, ops.dw, 1e-5, 1e-5);
    // float64: r = (sum x^2 / D + eps)^-1/2, y = x r w, dx = g r - x r^3 sum(g x) / D (g = dy w),
    // dw = sum dy x r
    const want = {
      value: new Float64Array(rows * D),
      dx: new Float64Array(rows * D),
      dw: new Float64Array(D),
    };
    for (let i = 0; i < rows; i++) {
      let squares = 0;
      let dot = 0;
      for (let j = 0; j < D; j++) squares += xs[i * D + j]! ** 2;
      const r = 1 / Math.sqrt(squares / D + eps);
      for (let j = 0; j < D; j++) dot += gs[i * D + j]! * ws[j]! * xs[i * D + j]!;
      for (let j = 0; j < D; j++) {
        const k = i * D + j;
        want.value[k] = xs[k]! * r * ws[j]!;
        want.dx[k] = gs[k]! * ws[j]! * r - (xs[k]! * r ** 3 * dot) / D;
        want.dw[j] = want.dw[j]! + gs[k]! * xs[k]! * r;
      }
    }
    expectClose(fused.value, want.value, 2e-6, 1e-7);
    expectClose(fused.dx, want.dx, 1e-5, 1e-6);
    expectClose(fused.dw, want.dw, 1e-5, 1e-5);
    tf.dispose([x, w, weights]);
  });

  it('carries the norms of a training step, forward and backward, and leaves no tensors behind', async () => {
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
    const step = () =>
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
      });
    step().dispose();
    const before = tf.memory().numTensors;
    const { kernels, result } = await tf.profile(step);
    tf.dispose(result as tf.Tensor);
    expect(tf.memory().numTensors).toBe(before);
    const names = kernels.map((k) => k.name);
    expect(names.filter((n) => n === 'AgenticRlRmsNorm')).toHaveLength(3); // two per layer and the final norm
    expect(names).toContain('AgenticRlRmsNormGrad');
    model.dispose();
  });

  it('carries the norms of a no-gradient forward (decoding, prefill), each residual add with its norm, with no other norm op', async () => {
    const config = parseModelConfig({
      model_type: 'llama',
      vocab_size: 64,
      hidden_size: 32,
      intermediate_size: 48,
      num_hidden_layers: 2,
      num_attention_heads: 2,
      num_key_value_heads: 2,
      max_position_embeddings: 64,
    });
    const model = CausalLM.fromWeights(config, randomWeights(config, 1));
    const { kernels } = await tf.profile(() => {
      model.logits([1, 2, 3]);
    });
    const names = kernels.map((k) => k.name);
    expect(names.filter((n) => n === 'AgenticRlRmsNorm')).toHaveLength(1); // the first layer's input norm
    expect(names.filter((n) => n === 'AgenticRlAddRmsNorm')).toHaveLength(4); // each residual add with the norm after it
    expect(names).not.toContain('Rsqrt');
    model.dispose();
  });

  it('refuses a weight that does not fit the rows, with the shapes in the message', () => {
    expect(() =>
      tf
        .engine()
        .runKernel('AgenticRlRmsNorm', { x: tf.zeros([2, 8]), w: tf.zeros([4]) }, { eps: 1e-6 }),
    ).toThrow(/rmsNorm: x of shape \[2,8\] and weight of shape \[4\]/);
  });
});
