// The decoder's weights as tfjs variables, converted from the Hugging Face layout once at load:
// every linear weight is stored transposed, (in, out), so the forward pass is x @ W on the fast
// untransposed matMul path; the token embedding is stored as (D, V), tokens as columns, so one
// matrix serves both the input lookup and the (tied) output projection h @ E.
import * as tf from '@tensorflow/tfjs';
import { releaseTransposedWeights } from '../kernels/matmul/decode_products.ts';
import type { WeightFiles } from '../model_files/weight_files.ts';
import type { ModelConfig } from '../model_files/hf_config.ts';
import { createAdapter, type LoraAdapter, type LoraConfig } from './lora.ts';
import type { LoraTarget } from './lora_targets.ts';
import { HalfWeight, isHalf } from './half_weight.ts';
import { Rng } from './rng.ts';
import {
  assertFitsBuffer,
  bufferLimitBytes,
  isSplit,
  VocabSplit,
  vocabChunkWidths,
} from './vocab_split.ts';

/** A frozen or trainable float32 weight, or a frozen 16-bit one (half_weight.ts). */
export type Weight = tf.Variable | HalfWeight;

/** The embedding or the output head: a Weight, or float32 chunks by vocabulary (vocab_split.ts). */
export type VocabWeight = Weight | VocabSplit;

/** One projection y = x W (+ b) (+ LoRA); W is (in, out). */
export interface Linear {
  /** Hugging Face module name, e.g. model.layers.0.self_attn.q_proj. */
  name: string;
  weight: Weight;
  bias: tf.Variable | null;
  adapter: LoraAdapter | null;
}

/** One decoder block's parameters. */
export interface DecoderLayer {
  inputNorm: tf.Variable;
  postAttentionNorm: tf.Variable;
  /** Qwen3's RMSNorm weights (head width) over each query and key head, or null. */
  queryNorm: tf.Variable | null;
  keyNorm: tf.Variable | null;
  projections: Record<LoraTarget, Linear>;
}

/** All parameters of the decoder. */
export interface DecoderParams {
  /** (D, V): token vectors as columns. */
  embedding: VocabWeight;
  layers: DecoderLayer[];
  finalNorm: tf.Variable;
  /** (D, V), or null when tied to the embedding. */
  lmHead: VocabWeight | null;
}

/**
 * Source of named float32 tensors in HF layout (a model's weight files, or random weights for
 * tests), and of their 16-bit values as shipped where it has them.
 */
export type WeightSource = Pick<WeightFiles, 'has' | 'shape' | 'float32'> &
  Partial<Pick<WeightFiles, 'dtype' | 'bits16'>>;

/** Builds variables from HF-layout tensors, checking every shape against the config. */
export function loadParams(
  config: ModelConfig,
  source: WeightSource,
  trainable: boolean,
  half = false,
): DecoderParams {
  const {
    hiddenSize: D,
    intermediateSize: F,
    vocabSize: V,
    numHeads: H,
    numKvHeads: Hkv,
    headDim: hd,
  } = config;
  const checkShape = (name: string, shape: number[]): void => {
    if (!source.has(name))
      throw new Error(
        `checkpoint is missing ${name} (expected for a ${config.family} model with this config.json)`,
      );
    const actual = source.shape(name);
    if (actual.length !== shape.length || actual.some((d, i) => d !== shape[i])) {
      throw new Error(
        `checkpoint tensor ${name} has shape [${actual.join(', ')}] but config.json implies [${shape.join(', ')}]`,
      );
    }
  };
  const tensor = (name: string, shape: number[]): tf.Tensor => {
    checkShape(name, shape);
    return tf.tensor(source.float32(name), shape);
  };
  const variable = (value: tf.Tensor): tf.Variable => {
    const result = tf.variable(value, trainable);
    value.dispose();
    return result;
  };
  // HF stores (out, in); we keep (in, out), or with `half` a BF16/F16 matrix as shipped
  const transposed = (name: string, outSize: number, inSize: number): Weight => {
    const kind = half && source.has(name) ? source.dtype?.(name) : undefined;
    if ((kind === 'BF16' || kind === 'F16') && source.bits16) {
      checkShape(name, [outSize, inSize]);
      const bits = source.bits16(name);
      return HalfWeight.store(name, bits, outSize, inSize, kind === 'BF16' ? 'bf16' : 'f16');
    }
    return variable(tf.tidy(() => tf.transpose(tensor(name, [outSize, inSize]))));
  };
  const linear = (name: string, inSize: number, outSize: number, hasBias: boolean): Linear => {
    if (!half) assertFitsBuffer(`${name}.weight`, inSize * outSize); // (16-bit ones live in wasm)
    return {
      name,
      weight: transposed(`${name}.weight`, outSize, inSize),
      bias: hasBias ? variable(tensor(`${name}.bias`, [outSize])) : null,
      adapter: null,
    };
  };
  // (V, D) in HF layout: stored (D, V), in vocabulary chunks when a float32 one passes the limit
  const vocabMatrix = (name: string): VocabWeight => {
    const widths = vocabChunkWidths(V, D, bufferLimitBytes());
    const kind = half ? source.dtype?.(name) : undefined;
    if (!widths || ((kind === 'BF16' || kind === 'F16') && source.bits16))
      return transposed(name, V, D);
    checkShape(name, [V, D]);
    return VocabSplit.fromRows(name, source.float32(name), D, widths, trainable);
  };
  const layers: DecoderLayer[] = [];
  for (let i = 0; i < config.numLayers; i++) {
    const p = `model.layers.${i}`;
    layers.push({
      inputNorm: variable(tensor(`${p}.input_layernorm.weight`, [D])),
      postAttentionNorm: variable(tensor(`${p}.post_attention_layernorm.weight`, [D])),
      queryNorm: config.qkNorm ? variable(tensor(`${p}.self_attn.q_norm.weight`, [hd])) : null,
      keyNorm: config.qkNorm ? variable(tensor(`${p}.self_attn.k_norm.weight`, [hd])) : null,
      projections: {
        q_proj: linear(`${p}.self_attn.q_proj`, D, H * hd, config.qkvBias),
        k_proj: linear(`${p}.self_attn.k_proj`, D, Hkv * hd, config.qkvBias),
        v_proj: linear(`${p}.self_attn.v_proj`, D, Hkv * hd, config.qkvBias),
        o_proj: linear(`${p}.self_attn.o_proj`, H * hd, D, config.outputBias),
        gate_proj: linear(`${p}.mlp.gate_proj`, D, F, config.mlpBias),
        up_proj: linear(`${p}.mlp.up_proj`, D, F, config.mlpBias),
        down_proj: linear(`${p}.mlp.down_proj`, F, D, config.mlpBias),
      },
    });
  }
  const untied = !config.tieWordEmbeddings;
  if (untied && !source.has('lm_head.weight')) {
    throw new Error(
      'checkpoint has no lm_head.weight but config.json says tie_word_embeddings is false',
    );
  }
  return {
    embedding: vocabMatrix('model.embed_tokens.weight'),
    layers,
    finalNorm: variable(tensor('model.norm.weight', [D])),
    lmHead: untied ? vocabMatrix('lm_head.weight') : null,
  };
}

/** Attaches fresh LoRA adapters (B = 0) to the target projections and freezes the base. */
export function attachAdapters(params: DecoderParams, config: LoraConfig): void {
  const rng = new Rng(config.seed);
  for (const variable of baseVariables(params).values()) variable.trainable = false;
  for (const layer of params.layers) {
    for (const target of config.targetModules) {
      const linear = layer.projections[target];
      linear.adapter?.a.dispose();
      linear.adapter?.b.dispose();
      const [inputSize, outputSize] = linear.weight.shape as [number, number];
      linear.adapter = createAdapter(inputSize, outputSize, config, rng);
    }
  }
}

/**
 * Base weights by Hugging Face name (linear weights and the embedding are stored transposed), the
 * float32 ones; 16-bit frozen ones are halfWeights'. A split embedding or head gives one variable
 * per chunk, `<name>#0`, `<name>#1`, … (vocab_split.ts; hf_weights.ts joins them).
 */
export function baseVariables(params: DecoderParams): Map<string, tf.Variable> {
  const out = new Map<string, tf.Variable>();
  const put = (name: string, weight: VocabWeight) => {
    if (isSplit(weight)) weight.chunks.forEach((chunk, i) => out.set(weight.chunkName(i), chunk));
    else if (!isHalf(weight)) out.set(name, weight);
  };
  put('model.embed_tokens.weight', params.embedding);
  params.layers.forEach((layer, i) => {
    out.set(`model.layers.${i}.input_layernorm.weight`, layer.inputNorm);
    out.set(`model.layers.${i}.post_attention_layernorm.weight`, layer.postAttentionNorm);
    if (layer.queryNorm) out.set(`model.layers.${i}.self_attn.q_norm.weight`, layer.queryNorm);
    if (layer.keyNorm) out.set(`model.layers.${i}.self_attn.k_norm.weight`, layer.keyNorm);
    for (const linear of Object.values(layer.projections)) {
      put(`${linear.name}.weight`, linear.weight);
      if (linear.bias) out.set(`${linear.name}.bias`, linear.bias);
    }
  });
  out.set('model.norm.weight', params.finalNorm);
  if (params.lmHead) put('lm_head.weight', params.lmHead);
  return out;
}

/** The frozen 16-bit weights (half_weight.ts), empty for a float32 model. */
export function halfWeights(params: DecoderParams): HalfWeight[] {
  const all: VocabWeight[] = [params.embedding, ...(params.lmHead ? [params.lmHead] : [])];
  for (const layer of params.layers)
    for (const linear of Object.values(layer.projections)) all.push(linear.weight);
  return all.filter(isHalf);
}

/**
 * LoRA factors by PEFT-style name (`<module>.lora_A.weight` is stored as (in, r), PEFT's
 * transpose).
 */
export function adapterVariables(params: DecoderParams): Map<string, tf.Variable> {
  const out = new Map<string, tf.Variable>();
  for (const layer of params.layers) {
    for (const linear of Object.values(layer.projections)) {
      if (!linear.adapter) continue;
      out.set(`${linear.name}.lora_A.weight`, linear.adapter.a);
      out.set(`${linear.name}.lora_B.weight`, linear.adapter.b);
    }
  }
  return out;
}

/** Frees every variable. */
export function disposeParams(params: DecoderParams): void {
  const variables = [...baseVariables(params).values(), ...adapterVariables(params).values()];
  releaseTransposedWeights(variables); // their decoding copies (kernels/matmul/decode_products.ts)
  for (const variable of variables) variable.dispose();
  for (const weight of halfWeights(params)) weight.dispose();
}
