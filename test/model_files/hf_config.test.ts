import { describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';

const llama = {
  model_type: 'llama',
  architectures: ['LlamaForCausalLM'],
  vocab_size: 49152,
  hidden_size: 576,
  intermediate_size: 1536,
  num_hidden_layers: 30,
  num_attention_heads: 9,
  num_key_value_heads: 3,
  rms_norm_eps: 1e-5,
  rope_theta: 100000,
  rope_scaling: null,
  tie_word_embeddings: true,
  max_position_embeddings: 8192,
  hidden_act: 'silu',
  bos_token_id: 1,
  eos_token_id: 2,
};
const qwen2 = {
  model_type: 'qwen2',
  architectures: ['Qwen2ForCausalLM'],
  vocab_size: 151936,
  hidden_size: 896,
  intermediate_size: 4864,
  num_hidden_layers: 24,
  num_attention_heads: 14,
  num_key_value_heads: 2,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000,
  tie_word_embeddings: true,
  use_sliding_window: false,
  sliding_window: 32768,
  max_window_layers: 21,
  max_position_embeddings: 32768,
  hidden_act: 'silu',
  bos_token_id: 151643,
  eos_token_id: 151645,
};
const qwen3 = {
  model_type: 'qwen3',
  architectures: ['Qwen3ForCausalLM'],
  vocab_size: 151936,
  hidden_size: 1024,
  intermediate_size: 3072,
  num_hidden_layers: 28,
  num_attention_heads: 16,
  num_key_value_heads: 8,
  head_dim: 128,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000,
  rope_scaling: null,
  tie_word_embeddings: true,
  attention_bias: false,
  use_sliding_window: false,
  sliding_window: null,
  max_window_layers: 28,
  max_position_embeddings: 40960,
  hidden_act: 'silu',
  bos_token_id: 151643,
  eos_token_id: 151645,
};

describe('parseModelConfig', () => {
  it('reads a SmolLM2-135M style Llama config', () => {
    const config = parseModelConfig(llama);
    expect(config).toMatchObject({
      family: 'llama',
      headDim: 64,
      numKvHeads: 3,
      tieWordEmbeddings: true,
      qkvBias: false,
      eosTokenIds: [2],
    });
    expect(config.ropeScaling).toEqual({ type: 'default' });
  });

  it('reads a Qwen2.5-0.5B style config with q/k/v biases', () => {
    const config = parseModelConfig(qwen2);
    expect(config).toMatchObject({
      family: 'qwen2',
      headDim: 64,
      qkvBias: true,
      outputBias: false,
      tieWordEmbeddings: true,
      eosTokenIds: [151645],
    });
  });

  it('reads a Qwen3-0.6B style config: q/k head norms, no biases, head width 128 of a 1024 hidden', () => {
    const config = parseModelConfig(qwen3);
    expect(config).toMatchObject({
      family: 'qwen3',
      headDim: 128,
      numHeads: 16,
      qkNorm: true,
      qkvBias: false,
      outputBias: false,
      ropeTheta: 1000000,
    });
    expect(parseModelConfig(qwen2).qkNorm).toBe(false);
    // transformers' Qwen3Config defaults head_dim to 128, not hidden / heads
    expect(parseModelConfig({ ...qwen3, head_dim: undefined, hidden_size: 512 }).headDim).toBe(128);
    // attention_bias puts a bias on all four projections in Qwen3 (q, k, v only in Qwen2)
    expect(parseModelConfig({ ...qwen3, attention_bias: true })).toMatchObject({
      qkvBias: true,
      outputBias: true,
    });
  });

  it("reads RoPE from transformers 5's rope_parameters when rope_theta and rope_scaling are absent", () => {
    const v5 = {
      ...qwen3,
      rope_theta: undefined,
      rope_scaling: undefined,
      layer_types: Array(28).fill('full_attention'),
    };
    expect(
      parseModelConfig({ ...v5, rope_parameters: { rope_type: 'default', rope_theta: 1000000 } }),
    ).toMatchObject({ ropeTheta: 1000000, ropeScaling: { type: 'default' } });
    const llama3 = {
      rope_type: 'llama3',
      rope_theta: 500000,
      factor: 32,
      low_freq_factor: 1,
      high_freq_factor: 4,
      original_max_position_embeddings: 8192,
    };
    expect(
      parseModelConfig({
        ...llama,
        rope_theta: undefined,
        rope_scaling: undefined,
        rope_parameters: llama3,
      }),
    ).toMatchObject({ ropeTheta: 500000, ropeScaling: { type: 'llama3', factor: 32 } });
    expect(() =>
      parseModelConfig({
        ...v5,
        rope_parameters: { rope_type: 'yarn', rope_theta: 1e6, factor: 4 },
      }),
    ).toThrow(/rope_scaling type "yarn"/);
    expect(() =>
      parseModelConfig({ ...v5, rope_parameters: { rope_type: 'default', rope_theta: -1 } }),
    ).toThrow(/rope_parameters.rope_theta must be a positive number/);
  });

  it('accepts llama3 rope scaling and an explicit head_dim', () => {
    const config = parseModelConfig({
      ...llama,
      head_dim: 32,
      tie_word_embeddings: undefined,
      eos_token_id: [128001, 128009],
      rope_scaling: {
        rope_type: 'llama3',
        factor: 32,
        low_freq_factor: 1,
        high_freq_factor: 4,
        original_max_position_embeddings: 8192,
      },
    });
    expect(config.ropeScaling).toMatchObject({ type: 'llama3', factor: 32 });
    expect(config.headDim).toBe(32);
    expect(config.tieWordEmbeddings).toBe(false); // LlamaConfig's default
    expect(config.eosTokenIds).toEqual([128001, 128009]);
  });

  it.each([
    [{ ...llama, model_type: 'mistral' }, /model_type "mistral"; supported: llama, qwen2, qwen3/],
    [{ ...qwen3, architectures: ['Qwen2ForCausalLM'] }, /expected Qwen3ForCausalLM/],
    [
      { ...qwen3, layer_types: ['full_attention', 'sliding_attention'] },
      /layer_types .*only full_attention layers are implemented/,
    ],
    [
      { ...llama, rope_parameters: { rope_type: 'default', partial_rotary_factor: 0.5 } },
      /partial_rotary_factor other than 1/,
    ],
    [{ ...llama, architectures: ['LlamaForSequenceClassification'] }, /expected LlamaForCausalLM/],
    [
      { ...llama, rope_scaling: { type: 'yarn', factor: 4 } },
      /rope_scaling type "yarn"; implemented: default, linear, llama3/,
    ],
    [{ ...qwen2, use_sliding_window: true }, /sliding-window attention is not implemented/],
    [{ ...llama, hidden_act: 'gelu' }, /hidden_act "gelu"/],
    [{ ...llama, quantization_config: { bits: 4 } }, /quantized weights/],
    [{ ...llama, num_key_value_heads: 4 }, /not a multiple of num_key_value_heads 4/],
    [{ ...llama, hidden_size: undefined }, /hidden_size must be a positive integer/],
  ])('refuses unsupported or broken configs with a message (%#)', (json, message) => {
    expect(() => parseModelConfig(json, 'x/config.json')).toThrow(message);
  });
});
