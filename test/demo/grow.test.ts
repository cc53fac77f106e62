// Growing a model into a larger shape (scripts/demo/grow.ts): the grown model computes the small
// one's logits (wider, deeper, more heads and MLP units, tied and untied heads, GQA, Qwen3's head
// norms and Qwen2's biases), no weight of it is dead (after one step on the outputs, every tensor
// gets a gradient), and a shape it cannot grow into is refused with the reason.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { growthProblem, grownWeights, layerPlaces } from '../../scripts/demo/grow.ts';
import { type ModelConfig, parseModelConfig } from '../../src/model_files/hf_config.ts';
import { tokenLogprobs } from '../../src/model/logprobs.ts';
import { CausalLM } from '../../src/model/model.ts';
import type { WeightSource } from '../../src/model/params.ts';
import { randomWeights } from '../../src/model/random_weights.ts';

function config(json: Record<string, unknown>): ModelConfig {
  return parseModelConfig({ max_position_embeddings: 128, ...json });
}

const llama = config({
  model_type: 'llama',
  vocab_size: 97,
  hidden_size: 32,
  intermediate_size: 48,
  num_hidden_layers: 2,
  num_attention_heads: 2,
  num_key_value_heads: 2,
  tie_word_embeddings: true,
});
const llamaGrown = config({
  model_type: 'llama',
  vocab_size: 97,
  hidden_size: 48,
  intermediate_size: 80,
  num_hidden_layers: 3,
  num_attention_heads: 3,
  num_key_value_heads: 3,
  tie_word_embeddings: true,
});
const qwen3 = config({
  model_type: 'qwen3',
  vocab_size: 89,
  hidden_size: 32,
  head_dim: 8,
  intermediate_size: 40,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  tie_word_embeddings: false,
});
const qwen3Grown = config({
  model_type: 'qwen3',
  vocab_size: 89,
  hidden_size: 40,
  head_dim: 8,
  intermediate_size: 56,
  num_hidden_layers: 4,
  num_attention_heads: 6,
  num_key_value_heads: 3,
  tie_word_embeddings: false,
});
const qwen2 = config({
  model_type: 'qwen2',
  vocab_size: 83,
  hidden_size: 24,
  intermediate_size: 36,
  num_hidden_layers: 1,
  num_attention_heads: 2,
  num_key_value_heads: 1,
  tie_word_embeddings: true,
});
const qwen2Grown = config({
  model_type: 'qwen2',
  vocab_size: 83,
  hidden_size: 48,
  intermediate_size: 36,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  tie_word_embeddings: true,
});

/** A trained-looking small model: random weights, norms away from 1, biases away from 0. */
function smallWeights(c: ModelConfig): WeightSource {
  const base = randomWeights(c, 3, 0.1);
  return {
    ...base,
    float32(name) {
      const values = base.float32(name);
      if (name.endsWith('norm.weight')) return values.map((_, i) => 0.6 + ((i * 37) % 11) / 10);
      if (name.endsWith('.bias')) return values.map((_, i) => Math.sin(i + 1) / 5);
      return values;
    },
  };
}

const ids = Array.from({ length: 29 }, (_, t) => (t * 17 + 3) % 80);

describe('growing a model into a larger shape', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
  });

  it('places old layers evenly, in order', () => {
    expect(layerPlaces(4, 6)).toEqual([0, 1, 3, 4]);
    expect(layerPlaces(4, 8)).toEqual([0, 2, 4, 6]);
    expect(layerPlaces(3, 3)).toEqual([0, 1, 2]);
  });

  it.each([
    ['llama, tied, wider and deeper', llama, llamaGrown],
    ['qwen3, untied, GQA, head norms', qwen3, qwen3Grown],
    ['qwen2, biases, GQA, the same MLP width', qwen2, qwen2Grown],
  ] as const)("%s: the grown model computes the small one's logits", (_, from, to) => {
    const small = CausalLM.fromWeights(from, smallWeights(from));
    // eps acts as eps * D'/D in a grown norm (grow.ts); with it scaled back the function is the same
    const exact = { ...to, rmsNormEps: (from.rmsNormEps * from.hiddenSize) / to.hiddenSize };
    const grown = CausalLM.fromWeights(exact, grownWeights(smallWeights(from), from, exact, 9));
    const [want, ours] = [small.logits(ids), grown.logits(ids)];
    let worst = 0;
    let scale = 0;
    want.forEach((row, t) =>
      row.forEach((v, j) => {
        scale = Math.max(scale, Math.abs(v));
        worst = Math.max(worst, Math.abs(ours[t]![j]! - v));
      }),
    );
    expect(scale).toBeGreaterThan(0.1);
    expect(worst).toBeLessThan(1e-5 * Math.max(1, scale));
    // as the recipe grows it (eps unchanged): the same up to eps's share of the norms
    const asIs = CausalLM.fromWeights(to, grownWeights(smallWeights(from), from, to, 9));
    const near = asIs.logits(ids);
    const drift = Math.max(
      ...want.flatMap((row, t) => [...row].map((v, j) => Math.abs(near[t]![j]! - v))),
    );
    expect(drift).toBeLessThan(0.02 * scale);
    for (const model of [small, grown, asIs]) model.dispose();
  });

  it('no weight is dead: after one step, every tensor of the grown model gets a gradient', () => {
    const model = CausalLM.fromWeights(
      qwen3Grown,
      grownWeights(smallWeights(qwen3), qwen3, qwen3Grown, 9),
      { kind: 'full' },
    );
    const variables = model.trainableVariables();
    const gradients = () => {
      const { value, grads } = tf.variableGrads(
        () => tokenLogprobs(model, [ids], { temperature: 1 }).mean().neg() as tf.Scalar,
        [...variables.values()],
      );
      value.dispose();
      return new Map(
        [...variables].map(([name, variable]) => {
          const grad = grads[variable.name]!;
          return [name, { grad, norm: tf.tidy(() => grad.norm().dataSync()[0]!) }] as const;
        }),
      );
    };
    const first = gradients();
    // A new layer's reads, new heads' q/k/v and new MLP units' gate/up feed zero outputs: no
    // gradient yet. The outputs (o, down) do get one, so a step wakes the rest.
    const dead = [...first].filter(([, g]) => g.norm === 0).map(([name]) => name);
    expect(dead.some((name) => name.includes('o_proj') || name.includes('down_proj'))).toBe(false);
    for (const [name, { grad }] of first) {
      const variable = variables.get(name)!;
      variable.assign(tf.tidy(() => variable.sub(grad.mul(0.5))));
      grad.dispose();
    }
    const second = gradients();
    const stillDead = [...second].filter(([, g]) => g.norm === 0).map(([name]) => name);
    expect(stillDead).toEqual([]);
    for (const { grad } of second.values()) grad.dispose();
    model.dispose();
  });

  it('refuses a shape it cannot grow into, with the reason', () => {
    expect(growthProblem(llama, llamaGrown)).toBeNull();
    expect(growthProblem(llamaGrown, llama)).toMatch(/hiddenSize shrinks/);
    expect(growthProblem(llama, { ...llamaGrown, headDim: 24 })).toMatch(/headDim differs/);
    expect(growthProblem(qwen3, { ...qwen3Grown, numKvHeads: 6 })).toMatch(/heads per KV head/);
    expect(growthProblem(llama, { ...llamaGrown, vocabSize: 98 })).toMatch(/vocabSize differs/);
    expect(() => grownWeights(smallWeights(llama), llamaGrown, llama, 1)).toThrow(
      /cannot grow the model: hiddenSize shrinks \(48 to 32\)/,
    );
  });
});
