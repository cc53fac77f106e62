// LoRA's layer as one op (ops.ts loraLinear) and the kernel that adds a second product into the
// first (kernels/matmul/dispatch.ts matMulPair, kernels/simd/matmul.ts matmulAdd): the same bits as
// autograd over the ops for the layer's value and its three gradients (x, A, B), on the kernel and
// off it (few rows), on one and two threads; and a LoRA model's gradients within float32
// reassociation of the ops' (autograd then sums x's gradient over the q, k and v layers in another
// grouping).
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fusedMultiplyAddActive, useMatmulThreads } from '../../src/kernels/matmul/kernels.ts';
import { matMul2d, matMulPair } from '../../src/kernels/matmul/dispatch.ts';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { tokenLogprobs } from '../../src/model/logprobs.ts';
import { LORA_TARGETS } from '../../src/model/lora_targets.ts';
import { CausalLM } from '../../src/model/model.ts';
import { loraLinear, matMulLinear } from '../../src/model/ops.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { simdMatmulAddModule } from '../../src/kernels/simd/matmul_variants.ts';
import { bits } from '../helpers/numbers.ts';
import { filledTensor } from '../helpers/tensors.ts';
import { setSwitches, withSwitches } from '../../src/kernels/switches.ts';

describe("LoRA's layer as one op", () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
    expect(fusedMultiplyAddActive()).toBe(true);
  });
  afterAll(async () => {
    await useMatmulThreads(0);
  });

  it('the accumulating kernel is a valid module under 4 KB', () => {
    expect(WebAssembly.validate(simdMatmulAddModule())).toBe(true);
    expect(simdMatmulAddModule().length).toBeLessThan(4096);
  });

  // rows: on the kernel (>= 64, column tails of 8, 4 and 1), and too few for it
  it.each([
    [96, 64, 48, 8, 0],
    [300, 128, 257, 8, 1],
    [131, 32, 13, 4, 1],
    [40, 32, 16, 4, 0],
  ])(
    "%i x %i -> %i, rank %i, %i helper(s): value and gradients the ops' bits",
    async (N, I, O, r, helpers) => {
      await useMatmulThreads(helpers);
      tf.tidy(() => {
        const x = filledTensor([N, I], 1, { step: 0.61, scale: 1 });
        const w = tf.variable(
          filledTensor([I, O], 2, { step: 0.61, scale: 0.2 }),
          false,
        ) as unknown as tf.Tensor2D;
        const a = filledTensor([I, r], 3, { step: 0.61, scale: 0.2 });
        const b = filledTensor([r, O], 4, { step: 0.61, scale: 0.2 });
        const weights = filledTensor([N, O], 5, { step: 0.61, scale: 1 }); // a loss that weighs every output differently
        const ops = (xx: tf.Tensor2D, aa: tf.Tensor2D, bb: tf.Tensor2D) =>
          tf.add(
            matMulLinear(xx, w, false),
            matMulLinear(tf.mul(matMulLinear(xx, aa, true), 2) as tf.Tensor2D, bb, true),
          );
        const loss =
          (f: (xx: tf.Tensor2D, aa: tf.Tensor2D, bb: tf.Tensor2D) => tf.Tensor) =>
          (xx: tf.Tensor, aa: tf.Tensor, bb: tf.Tensor) =>
            tf.sum(tf.mul(f(xx as tf.Tensor2D, aa as tf.Tensor2D, bb as tf.Tensor2D), weights));
        const ours = (xx: tf.Tensor2D, aa: tf.Tensor2D, bb: tf.Tensor2D) =>
          loraLinear(xx, w, aa, bb, 2);
        expect(bits(ours(x, a, b))).toEqual(bits(ops(x, a, b)));
        const [got, want] = [tf.grads(loss(ours))([x, a, b]), tf.grads(loss(ops))([x, a, b])];
        got.forEach((g, i) => expect(bits(g)).toEqual(bits(want[i]!)));
        (w as unknown as tf.Variable).dispose();
      });
    },
  );

  it('matMulPair: the bits of adding the two products, one kernel where it fits', async () => {
    await useMatmulThreads(1);
    tf.tidy(() => {
      const [a1, b1, a2, b2] = [
        filledTensor([200, 96], 1, { step: 0.61, scale: 1 }),
        filledTensor([96, 70], 2, { step: 0.61, scale: 1 }),
        filledTensor([200, 8], 3, { step: 0.61, scale: 1 }),
        filledTensor([8, 70], 4, { step: 0.61, scale: 1 }),
      ];
      const want = bits(tf.add(matMul2d(a1, b1), matMul2d(a2, b2)));
      expect(bits(matMulPair(a1, b1, a2, b2))).toEqual(want);
      expect(withSwitches({ pairKernel: false }, () => bits(matMulPair(a1, b1, a2, b2)))).toEqual(
        want,
      );
    });
  });

  it("a LoRA model's gradients with the op are the ops' within float32 reassociation", () => {
    const config = parseModelConfig({
      model_type: 'llama',
      vocab_size: 300,
      hidden_size: 128,
      intermediate_size: 256,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      max_position_embeddings: 512,
    });
    const model = CausalLM.fromWeights(config, randomWeights(config, 3), {
      kind: 'lora',
      lora: { rank: 8, alpha: 16, dropout: 0, targetModules: [...LORA_TARGETS], seed: 1 },
    });
    const list = [...model.trainableVariables().values()];
    list.forEach((v, i) => v.assign(tf.randomNormal(v.shape, 0, 0.05, 'float32', i))); // B != 0: the adapters act
    const ids = [
      Array.from({ length: 67 }, (_, t) => (t * 7) % 300),
      Array.from({ length: 30 }, (_, t) => (t * 11 + 3) % 300),
    ];
    const run = (on: boolean) => {
      setSwitches({ loraOp: on });
      return tf.tidy(() => {
        const { value, grads } = tf.variableGrads(
          () => tf.sum(tokenLogprobs(model, ids, { temperature: 0.7 })) as tf.Scalar,
          list,
        );
        return [
          Array.from(value.dataSync()),
          ...list.map((v) => Array.from(grads[v.name]!.dataSync())),
        ];
      });
    };
    const [ours, ops] = [run(true), run(false)];
    setSwitches({ loraOp: true });
    ours.forEach((values, i) => {
      const scale = Math.max(...ops[i]!.map(Math.abs));
      values.forEach((v, j) => expect(Math.abs(v - ops[i]![j]!)).toBeLessThan(1e-5 * scale));
    });
    model.dispose();
  });
});
