// The demo model's architecture: a small Llama (tied embeddings, SiLU MLP, RoPE), written as a
// Hugging Face config.json so the same loader that reads hub models reads it.
import { parseModelConfig, type ModelConfig } from '../../src/model_files/hf_config.ts';

/** Size knobs of the demo model. */
export interface DemoShape {
  vocabSize: number;
  hiddenSize: number;
  layers: number;
  heads: number;
  intermediateSize: number;
  maxPositions: number;
}

/** The committed demo model's shape (~2.3M parameters). */
export const DEMO_SHAPE: DemoShape = {
  vocabSize: 1536,
  hiddenSize: 192,
  layers: 4,
  heads: 4,
  intermediateSize: 576,
  maxPositions: 1024,
};

/**
 * config.json for a shape; ids follow the tokenizer (256 <|endoftext|>, 257 <|im_start|>, 258
 * <|im_end|>).
 */
export function configJson(shape: DemoShape): Record<string, unknown> {
  return {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    vocab_size: shape.vocabSize,
    hidden_size: shape.hiddenSize,
    intermediate_size: shape.intermediateSize,
    num_hidden_layers: shape.layers,
    num_attention_heads: shape.heads,
    num_key_value_heads: shape.heads,
    max_position_embeddings: shape.maxPositions,
    hidden_act: 'silu',
    rms_norm_eps: 1e-5,
    rope_theta: 10000.0,
    rope_scaling: null,
    tie_word_embeddings: true,
    attention_bias: false,
    attention_dropout: 0.0,
    mlp_bias: false,
    bos_token_id: null,
    eos_token_id: 258,
    pad_token_id: 256,
    torch_dtype: 'bfloat16',
  };
}

/** The parsed config the model code uses. */
export function demoConfig(shape: DemoShape): ModelConfig {
  return parseModelConfig(configJson(shape), 'demo config.json');
}

/** Parameter count (tied embeddings counted once). */
export function parameterCount(shape: DemoShape): number {
  const { vocabSize: V, hiddenSize: D, layers: L, intermediateSize: F } = shape;
  return V * D + L * (4 * D * D + 3 * D * F + 2 * D) + D;
}
