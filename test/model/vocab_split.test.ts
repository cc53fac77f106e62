// The embedding and the output head split by vocabulary (src/model/vocab_split.ts) against the same
// model unsplit: with the buffer limit set low, a tied Qwen2 model's embedding and an untied Llama
// model's embedding and head become 3 chunks of unequal width, and every use must compute the same
// function up to float32 rounding: logits, greedy tokens, token log-probs, the gradients of full
// fine-tuning (each chunk against its columns of the unsplit gradient, and every other weight)
// and of LoRA; hfWeights joins the chunks back into the tensors loaded.
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig, type ModelConfig } from '../../src/model_files/hf_config.ts';
import { hfWeights } from '../../src/model/hf_weights.ts';
import { tokenLogprobs } from '../../src/model/logprobs.ts';
import { LORA_TARGETS } from '../../src/model/lora_targets.ts';
import { CausalLM, type TrainingMode } from '../../src/model/model.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { generate } from '../../src/model/sample.ts';
import {
  DEFAULT_BUFFER_LIMIT_BYTES,
  isSplit,
  setBufferLimitBytes,
  vocabChunkWidths,
} from '../../src/model/vocab_split.ts';
import { useBackend } from '../helpers/models.ts';

/** Low enough to split both models' embeddings in 3; every other weight stays below it. */
const LIMIT = 12 * 1024;

const qwen2 = parseModelConfig({
  model_type: 'qwen2',
  vocab_size: 251, // 32 KB as (32, 251) float32: chunks of 88, 88 and 75 tokens
  hidden_size: 32,
  intermediate_size: 48,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  max_position_embeddings: 256,
  tie_word_embeddings: true,
});
const llamaUntied = parseModelConfig({
  model_type: 'llama',
  vocab_size: 203, // chunks of 72, 72 and 59 tokens
  hidden_size: 32,
  intermediate_size: 40,
  num_hidden_layers: 2,
  num_attention_heads: 2,
  num_key_value_heads: 1,
  max_position_embeddings: 256,
  tie_word_embeddings: false,
});
const models = [
  { name: 'qwen2 (tied)', config: qwen2, widths: [88, 88, 75] },
  { name: 'llama (untied)', config: llamaUntied, widths: [72, 72, 59] },
];

const lora: TrainingMode = {
  kind: 'lora',
  lora: { rank: 4, alpha: 8, dropout: 0, targetModules: [...LORA_TARGETS], seed: 2 },
};

/**
 * Relative to each compared tensor's largest entry: float32 rounding (measured at most 6e-7 on
 * both backends).
 */
const TOLERANCE = { logits: 2e-6, logprobs: 2e-6, grads: 5e-6 };

/** The model twice from the same weights: whole, and with the limit at LIMIT (split). */
function pair(config: ModelConfig, training: TrainingMode = { kind: 'none' }) {
  const source = randomWeights(config, 7, 0.08);
  const whole = CausalLM.fromWeights(config, source, training);
  setBufferLimitBytes(LIMIT);
  const split = CausalLM.fromWeights(config, source, training);
  setBufferLimitBytes(null);
  if (training.kind === 'lora') {
    // B != 0 so the adapters act; the same values in both
    const adapters = [whole, split].map((model) => [...model.trainableVariables().values()]);
    adapters[0]!.forEach((variable, i) => {
      const value = tf.randomNormal(variable.shape, 0, 0.05, 'float32', 40 + i);
      variable.assign(value);
      adapters[1]![i]!.assign(value);
      value.dispose();
    });
  }
  return { whole, split };
}

/** Largest |ours - want| over the largest |want|. */
function relativeError(ours: ArrayLike<number>, want: ArrayLike<number>): number {
  expect(ours.length).toBe(want.length);
  let scale = 0;
  let worst = 0;
  for (let i = 0; i < want.length; i++) {
    scale = Math.max(scale, Math.abs(want[i]!));
    worst = Math.max(worst, Math.abs(ours[i]! - want[i]!));
  }
  return worst / scale;
}

const ids = [
  Array.from({ length: 29 }, (_, t) => (t * 37 + 5) % 200), // ids in every chunk
  Array.from({ length: 17 }, (_, t) => (t * 11 + 190) % 203),
];

/** Gradients of a weighted sum of token log-probs, by trainable variable name. */
function gradients(model: CausalLM): Map<string, Float32Array> {
  const variables = model.trainableVariables();
  const names = new Map([...variables].map(([name, v]) => [v.name, name]));
  const { value, grads } = tf.variableGrads(() => {
    const lp = tokenLogprobs(model, ids, { temperature: 0.7 });
    const weights = tf.sin(tf.range(0, lp.size).reshape(lp.shape));
    return tf.sum(tf.mul(lp, weights)) as tf.Scalar;
  }, [...variables.values()]);
  const out = new Map<string, Float32Array>();
  for (const [key, grad] of Object.entries(grads)) {
    out.set(names.get(key)!, grad.dataSync() as Float32Array);
    grad.dispose();
  }
  value.dispose();
  return out;
}

/** The columns of a (D, V) gradient that chunk `index` of `widths` covers, as (D, Vc) data. */
function columns(grad: Float32Array, depth: number, widths: number[], index: number): Float32Array {
  const vocab = grad.length / depth;
  const start = widths.slice(0, index).reduce((a, b) => a + b, 0);
  const out = new Float32Array(depth * widths[index]!);
  for (let d = 0; d < depth; d++)
    out.set(
      grad.subarray(d * vocab + start, d * vocab + start + widths[index]!),
      d * widths[index]!,
    );
  return out;
}

describe('vocabChunkWidths: which matrices split', () => {
  it('splits Qwen2.5-0.5B at 128 MiB into 5 chunks, and not the demo model or SmolLM2-135M', () => {
    const qwen = vocabChunkWidths(151936, 896, DEFAULT_BUFFER_LIMIT_BYTES)!;
    expect(qwen).toHaveLength(5);
    expect(qwen.reduce((a, b) => a + b, 0)).toBe(151936);
    expect(Math.max(...qwen) * 896 * 4).toBeLessThanOrEqual(DEFAULT_BUFFER_LIMIT_BYTES);
    const demo = JSON.parse(readFileSync('public/models/demo/config.json', 'utf8'));
    expect(vocabChunkWidths(demo.vocab_size, demo.hidden_size, DEFAULT_BUFFER_LIMIT_BYTES)).toBe(
      null,
    );
    expect(vocabChunkWidths(49152, 576, DEFAULT_BUFFER_LIMIT_BYTES)).toBe(null);
    expect(vocabChunkWidths(49152, 960, DEFAULT_BUFFER_LIMIT_BYTES)).toEqual([24576, 24576]);
    expect(vocabChunkWidths(251, 32, LIMIT)).toEqual([88, 88, 75]);
  });
});

describe.each(['wasm', 'cpu'] as const)('vocabulary split on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });
  afterEach(() => setBufferLimitBytes(null));

  it.each(models)('$name: splits in unequal chunks past the limit only', ({ config, widths }) => {
    const { whole, split } = pair(config, { kind: 'full' });
    const heads = [split.params.embedding, split.params.lmHead].filter((w) => w !== null);
    expect(heads).toHaveLength(config.tieWordEmbeddings ? 1 : 2);
    for (const head of heads) {
      if (!isSplit(head)) throw new Error('expected a split matrix');
      expect(head.chunks.map((c) => c.shape)).toEqual(widths.map((w) => [32, w]));
      expect(head.shape).toEqual([32, config.vocabSize]);
    }
    expect(isSplit(whole.params.embedding)).toBe(false);
    const names = [...split.trainableVariables().keys()];
    expect(names.filter((n) => n.startsWith('model.embed_tokens.weight'))).toEqual([
      'model.embed_tokens.weight#0',
      'model.embed_tokens.weight#1',
      'model.embed_tokens.weight#2',
    ]);
    expect(names.length).toBe(whole.trainableVariables().size + 2 * heads.length);
    whole.dispose();
    split.dispose();
  });

  it.each(models)(
    '$name: logits, greedy tokens and token log-probs equal the unsplit model',
    async ({ config }) => {
      const { whole, split } = pair(config);
      const [a, b] = [whole, split].map((model) =>
        model.logits(ids[0]!).flatMap((row) => [...row]),
      );
      expect(relativeError(b!, a!)).toBeLessThanOrEqual(TOLERANCE.logits);
      const [lpWhole, lpSplit] = [whole, split].map((model) =>
        tf.tidy(() => tokenLogprobs(model, ids, { temperature: 0.7 }).dataSync()),
      );
      expect(relativeError(lpSplit!, lpWhole!)).toBeLessThanOrEqual(TOLERANCE.logprobs);
      const greedy = await Promise.all(
        [whole, split].map((model) =>
          generate(model, [ids[0]!.slice(0, 5), ids[1]!.slice(0, 3)], {
            maxNewTokens: 12,
            temperature: 0,
            eosIds: [],
          }),
        ),
      );
      expect(greedy[1]!.ids).toEqual(greedy[0]!.ids);
      whole.dispose();
      split.dispose();
    },
  );

  it.each(models)(
    '$name: full fine-tuning gradients, chunk by chunk, equal the unsplit ones',
    ({ config, widths }) => {
      const { whole, split } = pair(config, { kind: 'full' });
      const [want, got] = [gradients(whole), gradients(split)];
      expect(got.size).toBe(want.size + (config.tieWordEmbeddings ? 2 : 4));
      for (const [name, grad] of got) {
        const [, base, index] = /^(.+)#(\d)$/.exec(name) ?? [];
        const reference = base
          ? columns(want.get(base)!, 32, widths, Number(index))
          : want.get(name)!;
        expect(relativeError(grad, reference), name).toBeLessThanOrEqual(TOLERANCE.grads);
      }
      whole.dispose();
      split.dispose();
    },
  );

  it.each(models)('$name: LoRA gradients equal the unsplit ones', ({ config }) => {
    const { whole, split } = pair(config, lora);
    expect(isSplit(split.params.embedding)).toBe(true);
    const [want, got] = [gradients(whole), gradients(split)];
    expect([...got.keys()]).toEqual([...want.keys()]);
    for (const [name, grad] of got)
      expect(relativeError(grad, want.get(name)!), name).toBeLessThanOrEqual(TOLERANCE.grads);
    whole.dispose();
    split.dispose();
  });

  it.each(models)('$name: hfWeights joins the chunks into the tensors loaded', ({ config }) => {
    const source = randomWeights(config, 7, 0.08);
    const { whole, split } = pair(config, { kind: 'full' });
    const written = hfWeights(split.params);
    expect(written.map((t) => t.name)).toEqual(hfWeights(whole.params).map((t) => t.name));
    for (const tensor of written) {
      expect(tensor.shape, tensor.name).toEqual(source.shape(tensor.name));
      expect(Array.from(tensor.data)).toEqual(Array.from(source.float32(tensor.name)));
    }
    whole.dispose();
    split.dispose();
  });

  it('refuses any other weight past the limit, saying which and why', () => {
    setBufferLimitBytes(5 * 1024); // gate_proj (32, 48) is 6 KB
    expect(() => CausalLM.fromWeights(qwen2, randomWeights(qwen2, 7), { kind: 'full' })).toThrow(
      /model\.layers\.0\.mlp\.gate_proj\.weight is .* MiB as float32, more than .*Fix: pick a smaller model/,
    );
  });
});
