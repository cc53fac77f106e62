// The Llama / Qwen2 decoder (pre-norm transformer: RMSNorm, RoPE attention with grouped-query
// heads, SwiGLU MLP), following transformers' modeling_llama.py and modeling_qwen2.py.
//
// Shape legend: B batch, T new positions, S attended positions (cache + new), D model width,
// H query heads, Hkv key/value heads, g = H / Hkv queries per key head, hd head width,
// F MLP width, V vocabulary, N = B * T rows.
import * as tf from '@tensorflow/tfjs';
import { causalMatMulActive, embeddingRows, matMul2d, stridedMatMul } from './batch_matmul.ts';
import { mergedLoraProduct } from './merged_lora.ts';
import { batchMatMul, type CausalProduct } from './batched_products.ts';
import type { ModelConfig } from './config.ts';
import type { KvCache } from './kv_cache.ts';
import { embedColumns, loraLinear, matMulLinear, permute } from './ops.ts';
import type { DecoderLayer, DecoderParams, Linear } from './params.ts';
import { applyRope, type Rope } from './rope.ts';
import { maskedSoftmax } from './simd_softmax.ts';
import { decodeAttention, decodeAttentionActive } from './simd_decode_attention.ts';
import { simdAddRmsNormValue, simdRmsNorm, simdRmsNormActive, simdRmsNormValue } from './simd_rmsnorm.ts';
import { swiglu, swigluValue } from './simd_swiglu.ts';

/** What the forward pass needs besides the weights. */
export interface DecoderParts {
  config: ModelConfig;
  params: DecoderParams;
  rope: Rope;
}

/** One forward call: token ids (B, T) flattened, their positions, the mask and an optional cache. */
export interface ForwardInput {
  ids: Int32Array;
  batch: number;
  time: number;
  /** Position of every token (B * T), for RoPE. */
  positions: ArrayLike<number>;
  /** Additive mask (B or 1, 1, 1, T, S), see kv_cache.ts maskBias. */
  maskBias: tf.Tensor;
  /**
   * The caller's promise that maskBias hides every key past the query's own position (key j of
   * query t hidden when j > t + S - T; it may hide more): attention's products then skip what the
   * mask makes zero (batched_products.ts), with the same numbers.
   */
  causal?: boolean;
  cache?: KvCache;
}

/** How to run: with the custom-gradient ops (training), and with LoRA adapters on or off. */
export interface ForwardMode {
  differentiable: boolean;
  adapters: boolean;
}

/** Final-norm hidden states (N, D) for every input position. */
export function decoderForward(parts: DecoderParts, input: ForwardInput, mode: ForwardMode): tf.Tensor2D {
  const { config, params } = parts;
  const ids = tf.tensor1d(input.ids, 'int32');
  let x = mode.differentiable
    ? embedColumns(params.embedding as tf.Tensor2D, ids, params.embedding.trainable)
    : (embeddingRows(params.embedding as tf.Tensor2D, ids) ?? permute(tf.gather(params.embedding, ids, 1) as tf.Tensor2D, [1, 0])); // (N, D)
  const { cos, sin } = parts.rope.tables(input.positions); // (N, hd)
  const ropeShape = [input.batch, 1, input.time, config.headDim]; // (B, 1, T, hd) broadcasts over heads
  const rope = { cos: tf.reshape(cos, ropeShape), sin: tf.reshape(sin, ropeShape), rotation: parts.rope.rotation(), backwardSin: undefined as tf.Tensor | undefined };
  // training: RoPE's backward table -[s2, s1] (rope.ts), -sin since the halves of Rope's tables are equal
  if (mode.differentiable) rope.backwardSin = tf.neg(rope.sin);
  const norm = mode.differentiable ? 'gradient' : 'value';
  const eps = config.rmsNormEps;
  if (!mode.differentiable && params.layers.length > 0 && simdRmsNormActive(config.hiddenSize)) {
    // without a gradient, each residual add and the norm after it are one kernel (the same bits)
    let normed = rmsNorm(x, params.layers[0]!.inputNorm, eps, norm);
    params.layers.forEach((layer, index) => {
      [x, normed] = simdAddRmsNormValue(x, attention(parts, layer, index, normed, input, rope, mode), layer.postAttentionNorm, eps);
      [x, normed] = simdAddRmsNormValue(x, mlp(layer, normed, mode), params.layers[index + 1]?.inputNorm ?? params.finalNorm, eps);
    });
    return normed;
  }
  params.layers.forEach((layer, index) => {
    const attended = attention(parts, layer, index, rmsNorm(x, layer.inputNorm, eps, norm), input, rope, mode);
    x = tf.add(x, attended);
    x = tf.add(x, mlp(layer, rmsNorm(x, layer.postAttentionNorm, eps, norm), mode));
  });
  return rmsNorm(x, params.finalNorm, eps, norm);
}

/** Logits (N, V) for hidden rows (N, D): h @ lm_head, or h @ embedding when tied. */
export function outputLogits(params: DecoderParams, hidden: tf.Tensor2D): tf.Tensor2D {
  return matMul2d(hidden, (params.lmHead ?? params.embedding) as tf.Tensor2D);
}

/**
 * RMSNorm: x / sqrt(mean(x^2) + eps) * weight, over the last axis. On wasm one SIMD pass
 * (simd_rmsnorm.ts): `kernel` 'gradient' with its one-pass backward (training), 'value' the
 * forward alone (decoding); 'ops', or off wasm, the tfjs ops.
 */
export function rmsNorm(x: tf.Tensor2D, weight: tf.Tensor, eps: number, kernel: 'gradient' | 'value' | 'ops' = 'ops'): tf.Tensor2D {
  if (kernel !== 'ops' && simdRmsNormActive(x.shape[1])) return kernel === 'gradient' ? simdRmsNorm(x, weight, eps) : simdRmsNormValue(x, weight, eps);
  const meanSquare = tf.mean(tf.square(x), -1, true); // (N, 1)
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(meanSquare, eps))), weight) as tf.Tensor2D;
}

let loraOpEnabled = true;

/** Turns the one-op LoRA layer off (true: back on), so a test or benchmark can compare it with the ops. */
export function useLoraOp(on: boolean): void {
  loraOpEnabled = on;
}

/** y = x W (+ b) (+ scale x A B when adapters are on), x (N, I) -> (N, O). */
export function applyLinear(x: tf.Tensor2D, linear: Linear, mode: ForwardMode): tf.Tensor2D {
  const matMul = (input: tf.Tensor2D, weight: tf.Variable): tf.Tensor2D =>
    mode.differentiable ? matMulLinear(input, weight as tf.Tensor2D, weight.trainable) : matMul2d(input, weight as tf.Tensor2D);
  const adapter = linear.adapter;
  // training a LoRA adapter on a frozen layer without bias: one op, the same numbers (ops.ts)
  if (adapter && mode.adapters && mode.differentiable && !linear.bias && !linear.weight.trainable && loraOpEnabled) {
    return loraLinear(x, linear.weight as tf.Tensor2D, adapter.a as tf.Tensor2D, adapter.b as tf.Tensor2D, adapter.scale);
  }
  // a LoRA layer without a gradient (sampling, prefill): one product on its merged weight
  const merged = adapter && mode.adapters && !mode.differentiable ? mergedLoraProduct(x, linear.weight, adapter.a, adapter.b, adapter.scale) : null;
  let y = merged ?? matMul(x, linear.weight);
  if (linear.bias) y = tf.add(y, linear.bias) as tf.Tensor2D;
  if (adapter && mode.adapters && !merged) {
    // the scale on the rank-r factor (N, r), not on the (N, O) update: r/O of the work, forward and
    // backward; the same numbers for a power-of-two scale (alpha / rank = 2 by default)
    const update = matMul(tf.mul(matMul(x, adapter.a), adapter.scale) as tf.Tensor2D, adapter.b); // (N, r) -> (N, O)
    y = tf.add(y, update) as tf.Tensor2D;
  }
  return y;
}

function mlp(layer: DecoderLayer, h: tf.Tensor2D, mode: ForwardMode): tf.Tensor2D {
  const { gate_proj, up_proj, down_proj } = layer.projections;
  const gate = applyLinear(h, gate_proj, mode); // (N, F)
  const up = applyLinear(h, up_proj, mode);
  // silu(gate) * up: fused on wasm for training and for decoding's few rows (simd_swiglu.ts)
  const gated = mode.differentiable ? swiglu(gate, up) : swigluValue(gate, up);
  return applyLinear(gated as tf.Tensor2D, down_proj, mode);
}

function attention(
  parts: DecoderParts,
  layer: DecoderLayer,
  index: number,
  h: tf.Tensor2D,
  input: ForwardInput,
  rope: { cos: tf.Tensor; sin: tf.Tensor; rotation: tf.Tensor2D; backwardSin?: tf.Tensor },
  mode: ForwardMode,
): tf.Tensor2D {
  const { numHeads: H, numKvHeads: Hkv, headDim: hd } = parts.config;
  const { batch: B, time: T } = input;
  const g = H / Hkv;
  const heads = (y: tf.Tensor2D, count: number) => permute(tf.reshape(y, [B, T, count, hd]), [0, 2, 1, 3]); // (B, count, T, hd)
  const { q_proj, k_proj, v_proj, o_proj } = layer.projections;
  const query = applyRope(heads(applyLinear(h, q_proj, mode), H), rope.cos, rope.sin, rope.rotation, rope.backwardSin); // (B, H, T, hd)
  let key = applyRope(heads(applyLinear(h, k_proj, mode), Hkv), rope.cos, rope.sin, rope.rotation, rope.backwardSin); // (B, Hkv, T, hd)
  let value = heads(applyLinear(h, v_proj, mode), Hkv);
  // Grouped-query attention without repeating keys: query heads j*g .. j*g+g-1 share key head j
  // (HF repeat_kv order), so fold the g query heads into the time axis.
  if (input.cache?.inPlace) {
    if (mode.differentiable) throw new Error('an in-place KV cache is for decoding only (no gradient)');
    const { keys, values, length: S, capacity } = input.cache.write(index, key, value); // (B, Hkv, capacity, hd)
    if (T === 1 && decodeAttentionActive(hd)) {
      // one position a sequence: the whole attention in one kernel, reading the cache in place
      const context = decodeAttention(tf.reshape(query, [B, Hkv, g, hd]), keys, values, input.maskBias, S, 1 / Math.sqrt(hd)); // (B, Hkv, g, hd) = (B, H, 1, hd)
      return applyLinear(tf.reshape(context, [B, H * hd]) as tf.Tensor2D, o_proj, mode);
    }
    const grouped = tf.reshape(tf.mul(query, 1 / Math.sqrt(hd)), [B, Hkv, g * T, hd]); // (B, Hkv, g*T, hd)
    // Keys and values are read where the cache keeps them: scores^T = K q^T per (b, key head),
    // so the one operand copied is the small q^T, not the cache.
    const queryT = permute(tf.reshape(grouped, [B * Hkv, g * T, hd]), [0, 2, 1]); // (B*Hkv, hd, g*T)
    const scoresT = stridedMatMul(keys, queryT, { batch: B * Hkv, m: S, k: hd, n: g * T, strideA: capacity * hd, strideB: hd * g * T }); // (B*Hkv, S, g*T)
    const scores = tf.reshape(permute(scoresT, [0, 2, 1]), [B, Hkv, g, T, S]);
    // under a causal mask the softmax stops at each row's last visible key, and P V's k loop too
    const offset = input.causal ? S - T : null;
    const weights = tf.reshape(maskedSoftmax(scores, input.maskBias, offset), [B * Hkv, g * T, S]);
    const limits = offset !== null && causalMatMulActive() ? { causal: 2, period: T, offset } : {};
    const context = tf.reshape(stridedMatMul(weights, values, { batch: B * Hkv, m: g * T, k: S, n: hd, strideA: g * T * S, strideB: capacity * hd, ...limits }), [B, H, T, hd]);
    return applyLinear(tf.reshape(permute(context, [0, 2, 1, 3]), [B * T, H * hd]) as tf.Tensor2D, o_proj, mode);
  }
  const grouped = tf.reshape(tf.mul(query, 1 / Math.sqrt(hd)), [B, Hkv, g * T, hd]); // (B, Hkv, g*T, hd)
  if (input.cache) [key, value] = input.cache.append(index, key, value); // (B, Hkv, S, hd)
  const S = key.shape[2]!;
  // rows of the grouped queries: g blocks of the T positions, each seeing keys up to t + S - T
  const causal = (kind: CausalProduct['kind']): CausalProduct | null => (input.causal ? { kind, period: T, offset: S - T } : null);
  const scores = tf.reshape(batchMatMul(grouped, key, false, true, causal('scores')), [B, Hkv, g, T, S]); // (B, Hkv, g, T, S)
  const weights = tf.reshape(maskedSoftmax(scores, input.maskBias, input.causal ? S - T : null), [B, Hkv, g * T, S]); // one SIMD pass each way on wasm (simd_softmax.ts)
  const context = tf.reshape(batchMatMul(weights, value, false, false, causal('context')), [B, H, T, hd]); // (B, H, T, hd)
  const merged = tf.reshape(permute(context, [0, 2, 1, 3]), [B * T, H * hd]); // (N, H*hd)
  return applyLinear(merged as tf.Tensor2D, o_proj, mode);
}

