// The Llama / Qwen2 / Qwen3 decoder (pre-norm transformer: RMSNorm, RoPE attention with
// grouped-query heads, SwiGLU MLP), following transformers' modeling_llama.py, modeling_qwen2.py
// and modeling_qwen3.py (Qwen3: an RMSNorm over each query and key head before RoPE).
//
// Shape legend: B batch, T new positions, S attended positions (cache + new), D model width,
// H query heads, Hkv key/value heads, g = H / Hkv queries per key head, hd head width,
// F MLP width, V vocabulary, N = B * T rows.
import * as tf from '@tensorflow/tfjs';
import { causalMatMulActive } from '../kernels/matmul_kernels.ts';
import { embeddingRows, matMul2d } from '../kernels/matmul_dispatch.ts';
import { stridedMatMul } from '../kernels/matmul_tfjs_kernels.ts';
import { mergedLoraProduct } from './merged_lora.ts';
import { batchMatMul, type CausalProduct } from '../kernels/attention_products.ts';
import type { ModelConfig } from '../model_files/hf_config.ts';
import { concatRows, concatTime, repeatBatch, splitRows } from '../kernels/heap_copies.ts';
import type { KvCache } from './kv_cache.ts';
import { embedColumns, loraLinear, matMulLinear, permute } from './ops.ts';
import type { DecoderLayer, DecoderParams, Linear } from './params.ts';
import { applyRope, type Rope } from './rope.ts';
import { maskedSoftmax } from '../kernels/masked_softmax.ts';
import { decodeAttention, decodeAttentionActive } from '../kernels/simd_decode_attention.ts';
import {
  simdAddRmsNormValue,
  simdRmsNorm,
  simdRmsNormActive,
  simdRmsNormValue,
} from '../kernels/simd_rmsnorm.ts';
import { swiglu, swigluValue } from '../kernels/simd_swiglu.ts';
import { switches } from '../kernels/switches.ts';

/** What the forward pass needs besides the weights. */
export interface DecoderParts {
  config: ModelConfig;
  params: DecoderParams;
  rope: Rope;
}

/**
 * One forward call: token ids (B, T) flattened, their positions, the mask and an optional cache.
 */
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
   * mask makes zero (attention_products.ts), with the same numbers.
   */
  causal?: boolean;
  cache?: KvCache;
  /**
   * A prefix the B sequences share (a GRPO group's prompt), run once: `ids` (and `positions`)
   * then hold its `length` tokens first, then the B sequences' T tokens each, and the output has
   * those length + B * T rows. The prefix attends to itself under `maskBias` (1, 1, 1, length,
   * length), causal; every sequence attends to the prefix's keys and then its own, `maskBias`
   * above being over length + T keys. Not with a cache.
   */
  prefix?: { length: number; maskBias: tf.Tensor };
}

/**
 * RoPE's tables for one attention call's queries and keys, (batch, 1, T, hd), and the backward's
 * -sin.
 */
interface RopeTables {
  cos: tf.Tensor;
  sin: tf.Tensor;
  rotation: tf.Tensor2D;
  backwardSin?: tf.Tensor;
}

/** How to run: with the custom-gradient ops (training), and with LoRA adapters on or off. */
export interface ForwardMode {
  differentiable: boolean;
  adapters: boolean;
}

/** Final-norm hidden states (N, D) for every input position. */
export function decoderForward(
  parts: DecoderParts,
  input: ForwardInput,
  mode: ForwardMode,
): tf.Tensor2D {
  const { config, params } = parts;
  const ids = tf.tensor1d(input.ids, 'int32');
  let x = mode.differentiable
    ? embedColumns(params.embedding as tf.Tensor2D, ids, params.embedding.trainable)
    : (embeddingRows(params.embedding as tf.Tensor2D, ids) ??
      permute(tf.gather(params.embedding, ids, 1) as tf.Tensor2D, [1, 0])); // (N, D)
  const { cos, sin } = parts.rope.tables(input.positions); // (N, hd)
  const s = input.prefix?.length ?? 0;
  if (s > 0 && input.cache)
    throw new Error('decoderForward: a shared prefix is not for a cached forward');
  // (batch, 1, T, hd) broadcasts over heads; training: RoPE's backward table -[s2, s1] (rope.ts),
  // -sin since the halves of Rope's tables are equal
  const tables = (start: number, batch: number, time: number): RopeTables => {
    const [c, t] =
      start === 0 && batch * time === cos.shape[0]
        ? [cos, sin]
        : [
            tf.slice(cos, [start, 0], [batch * time, -1]),
            tf.slice(sin, [start, 0], [batch * time, -1]),
          ];
    const shape = [batch, 1, time, config.headDim];
    const table = {
      cos: tf.reshape(c, shape),
      sin: tf.reshape(t, shape),
      rotation: parts.rope.rotation(),
    };
    return mode.differentiable ? { ...table, backwardSin: tf.neg(table.sin) } : table;
  };
  const rope = { ...tables(s, input.batch, input.time), prefix: s > 0 ? tables(0, 1, s) : null };
  const norm = mode.differentiable ? 'gradient' : 'value';
  const eps = config.rmsNormEps;
  if (!mode.differentiable && params.layers.length > 0 && simdRmsNormActive(config.hiddenSize)) {
    // without a gradient, each residual add and the norm after it are one kernel (the same bits)
    let normed = rmsNorm(x, params.layers[0]!.inputNorm, eps, norm);
    params.layers.forEach((layer, index) => {
      [x, normed] = simdAddRmsNormValue(
        x,
        attention(parts, layer, index, normed, input, rope, mode),
        layer.postAttentionNorm,
        eps,
      );
      [x, normed] = simdAddRmsNormValue(
        x,
        mlp(layer, normed, mode),
        params.layers[index + 1]?.inputNorm ?? params.finalNorm,
        eps,
      );
    });
    return normed;
  }
  params.layers.forEach((layer, index) => {
    const attended = attention(
      parts,
      layer,
      index,
      rmsNorm(x, layer.inputNorm, eps, norm),
      input,
      rope,
      mode,
    );
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
export function rmsNorm(
  x: tf.Tensor2D,
  weight: tf.Tensor,
  eps: number,
  kernel: 'gradient' | 'value' | 'ops' = 'ops',
): tf.Tensor2D {
  if (kernel !== 'ops' && simdRmsNormActive(x.shape[1]))
    return kernel === 'gradient' ? simdRmsNorm(x, weight, eps) : simdRmsNormValue(x, weight, eps);
  const meanSquare = tf.mean(tf.square(x), -1, true); // (N, 1)
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(meanSquare, eps))), weight) as tf.Tensor2D;
}

/** y = x W (+ b) (+ scale x A B when adapters are on), x (N, I) -> (N, O). */
export function applyLinear(x: tf.Tensor2D, linear: Linear, mode: ForwardMode): tf.Tensor2D {
  const matMul = (input: tf.Tensor2D, weight: tf.Variable): tf.Tensor2D =>
    mode.differentiable
      ? matMulLinear(input, weight as tf.Tensor2D, weight.trainable)
      : matMul2d(input, weight as tf.Tensor2D);
  const adapter = linear.adapter;
  // training a LoRA adapter on a frozen layer without bias: one op, the same numbers (ops.ts)
  if (
    adapter &&
    mode.adapters &&
    mode.differentiable &&
    !linear.bias &&
    !linear.weight.trainable &&
    switches.loraOp
  ) {
    return loraLinear(
      x,
      linear.weight as tf.Tensor2D,
      adapter.a as tf.Tensor2D,
      adapter.b as tf.Tensor2D,
      adapter.scale,
    );
  }
  // a LoRA layer without a gradient (sampling, prefill): one product on its merged weight
  const merged =
    adapter && mode.adapters && !mode.differentiable
      ? mergedLoraProduct(x, linear.weight, adapter.a, adapter.b, adapter.scale)
      : null;
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
  rope: RopeTables & { prefix: RopeTables | null },
  mode: ForwardMode,
): tf.Tensor2D {
  const { numHeads: H, numKvHeads: Hkv, headDim: hd } = parts.config;
  const { batch: B, time: T } = input;
  const g = H / Hkv;
  const heads = (y: tf.Tensor, count: number) =>
    permute(tf.reshape(y, [B, T, count, hd]), [0, 2, 1, 3]); // (B, count, T, hd)
  const { q_proj, k_proj, v_proj, o_proj } = layer.projections;
  // with a shared prefix its s rows come first: the projections run on every row at once
  const s = input.prefix?.length ?? 0;
  const project = (
    projection: Linear,
    headNorm: tf.Variable | null = null,
  ): [tf.Tensor | null, tf.Tensor] => {
    let y = applyLinear(h, projection, mode);
    if (headNorm) {
      // Qwen3: RMSNorm over each head's hd numbers (rows of (N * heads, hd)), before RoPE
      const [rows, width] = y.shape;
      y = tf.reshape(
        rmsNorm(
          tf.reshape(y, [(rows * width) / hd, hd]),
          headNorm,
          parts.config.rmsNormEps,
          mode.differentiable ? 'gradient' : 'value',
        ),
        [rows, width],
      );
    }
    return s > 0 ? splitRows(y, s) : [null, y];
  };
  const [q, k, v] = [
    project(q_proj, layer.queryNorm),
    project(k_proj, layer.keyNorm),
    project(v_proj),
  ];
  const query = applyRope(heads(q[1], H), rope.cos, rope.sin, rope.rotation, rope.backwardSin); // (B, H, T, hd)
  let key = applyRope(heads(k[1], Hkv), rope.cos, rope.sin, rope.rotation, rope.backwardSin); // (B, Hkv, T, hd)
  let value = heads(v[1], Hkv);
  if (input.prefix && rope.prefix) {
    // the prefix attends to itself, once; every sequence to the prefix's keys, then its own
    const r = rope.prefix;
    const shared = (y: tf.Tensor, count: number) =>
      permute(tf.reshape(y, [1, s, count, hd]), [0, 2, 1, 3]); // (1, count, s, hd)
    const [prefixKey, prefixValue] = [
      applyRope(shared(k[0]!, Hkv), r.cos, r.sin, r.rotation, r.backwardSin),
      shared(v[0]!, Hkv),
    ];
    const prefixRows = attend(
      applyRope(shared(q[0]!, H), r.cos, r.sin, r.rotation, r.backwardSin),
      prefixKey,
      prefixValue,
      input.prefix.maskBias,
      true,
      g,
    ); // (s, H*hd)
    key = concatTime(repeatBatch(prefixKey, B), key); // (B, Hkv, s + T, hd)
    value = concatTime(repeatBatch(prefixValue, B), value);
    const ownRows = attend(query, key, value, input.maskBias, input.causal ?? false, g); // (B*T, H*hd)
    return applyLinear(concatRows(prefixRows as tf.Tensor2D, ownRows as tf.Tensor2D), o_proj, mode);
  }
  // Grouped-query attention without repeating keys: query heads j*g .. j*g+g-1 share key head j
  // (HF repeat_kv order), so fold the g query heads into the time axis.
  if (input.cache?.inPlace) {
    if (mode.differentiable)
      throw new Error('an in-place KV cache is for decoding only (no gradient)');
    const { keys, values, length: S, capacity } = input.cache.write(index, key, value); // (B, Hkv, capacity, hd)
    if (T === 1 && decodeAttentionActive(hd)) {
      // one position a sequence: the whole attention in one kernel, reading the cache in place
      const context = decodeAttention(
        tf.reshape(query, [B, Hkv, g, hd]),
        keys,
        values,
        input.maskBias,
        S,
        1 / Math.sqrt(hd),
      ); // (B, Hkv, g, hd) = (B, H, 1, hd)
      return applyLinear(tf.reshape(context, [B, H * hd]) as tf.Tensor2D, o_proj, mode);
    }
    const grouped = tf.reshape(tf.mul(query, 1 / Math.sqrt(hd)), [B, Hkv, g * T, hd]); // (B, Hkv, g*T, hd)
    // Keys and values are read where the cache keeps them: scores^T = K q^T per (b, key head),
    // so the one operand copied is the small q^T, not the cache.
    const queryT = permute(tf.reshape(grouped, [B * Hkv, g * T, hd]), [0, 2, 1]); // (B*Hkv, hd, g*T)
    const scoresT = stridedMatMul(keys, queryT, {
      batch: B * Hkv,
      m: S,
      k: hd,
      n: g * T,
      strideA: capacity * hd,
      strideB: hd * g * T,
    }); // (B*Hkv, S, g*T)
    const scores = tf.reshape(permute(scoresT, [0, 2, 1]), [B, Hkv, g, T, S]);
    // under a causal mask the softmax stops at each row's last visible key, and P V's k loop too
    const offset = input.causal ? S - T : null;
    const weights = tf.reshape(maskedSoftmax(scores, input.maskBias, offset), [B * Hkv, g * T, S]);
    const limits = offset !== null && causalMatMulActive() ? { causal: 2, period: T, offset } : {};
    const context = tf.reshape(
      stridedMatMul(weights, values, {
        batch: B * Hkv,
        m: g * T,
        k: S,
        n: hd,
        strideA: g * T * S,
        strideB: capacity * hd,
        ...limits,
      }),
      [B, H, T, hd],
    );
    return applyLinear(
      tf.reshape(permute(context, [0, 2, 1, 3]), [B * T, H * hd]) as tf.Tensor2D,
      o_proj,
      mode,
    );
  }
  if (input.cache) [key, value] = input.cache.append(index, key, value); // (B, Hkv, S, hd)
  return applyLinear(
    attend(query, key, value, input.maskBias, input.causal ?? false, g) as tf.Tensor2D,
    o_proj,
    mode,
  );
}

/**
 * Softmax attention of query (B, H, T, hd) over key and value (B, Hkv, S, hd), as rows (B * T,
 * H * hd). `causal`: the mask hides every key past t + S - T (ForwardInput.causal).
 */
function attend(
  query: tf.Tensor,
  key: tf.Tensor,
  value: tf.Tensor,
  mask: tf.Tensor,
  causal: boolean,
  g: number,
): tf.Tensor {
  const [B, H, T, hd] = query.shape as [number, number, number, number];
  const [Hkv, S] = [key.shape[1]!, key.shape[2]!];
  const grouped = tf.reshape(tf.mul(query, 1 / Math.sqrt(hd)), [B, Hkv, g * T, hd]); // (B, Hkv, g*T, hd)
  // rows of the grouped queries: g blocks of the T positions, each seeing keys up to t + S - T
  const limits = (kind: CausalProduct['kind']): CausalProduct | null =>
    causal ? { kind, period: T, offset: S - T } : null;
  const scores = tf.reshape(batchMatMul(grouped, key, false, true, limits('scores')), [
    B,
    Hkv,
    g,
    T,
    S,
  ]); // (B, Hkv, g, T, S)
  const weights = tf.reshape(maskedSoftmax(scores, mask, causal ? S - T : null), [
    B,
    Hkv,
    g * T,
    S,
  ]); // one SIMD pass each way on wasm (simd_softmax.ts)
  const context = tf.reshape(batchMatMul(weights, value, false, false, limits('context')), [
    B,
    H,
    T,
    hd,
  ]); // (B, H, T, hd)
  return tf.reshape(permute(context, [0, 2, 1, 3]), [B * T, H * hd]); // (N, H*hd)
}
