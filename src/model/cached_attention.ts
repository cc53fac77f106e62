// Attention over an in-place KV cache: the WASM decoding fast paths that plug in behind the
// decoder's reference attention (decoder.ts) where the seam (fast_paths.ts attention()) names
// them. The cache is preallocated storage that only wasm's SIMD kernels read (kv_cache.ts), so
// these are the only paths for it; the numbers are the reference's (test/model/fast_paths.test.ts,
// test/kernels/tfjs/decode_block.test.ts, decode_attention.test.ts).
//
// Shapes as in decoder.ts: B batch, T new positions, S attended positions, H query heads, Hkv
// key/value heads, g = H / Hkv, hd head width.
import * as tf from '@tensorflow/tfjs';
import { stridedMatMul } from '../kernels/matmul/tfjs_kernels.ts';
import { decodeAttention } from '../kernels/tfjs/decode_attention.ts';
import { decodeBlock } from '../kernels/tfjs/decode_block.ts';
import { maskedSoftmax } from '../kernels/tfjs/masked_softmax.ts';
import { fastPaths } from './fast_paths.ts';
import type { KvCache } from './kv_cache.ts';
import { permute } from './ops.ts';
import { applyRope } from './rope.ts';

/** One attention call's new rows and where they go. */
export interface CachedAttentionCall {
  cache: KvCache;
  /** The layer's index (its slots in the cache). */
  layer: number;
  batch: number;
  time: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  /** Projected rows (B * T, heads * hd), Qwen3's head norms applied, before RoPE. */
  rows: { q: tf.Tensor; k: tf.Tensor; v: tf.Tensor };
  /** RoPE's tables (B, 1, T, hd), its rotation, and the backward's -sin. */
  rope: { cos: tf.Tensor; sin: tf.Tensor; rotation: tf.Tensor2D; backwardSin?: tf.Tensor };
  maskBias: tf.Tensor;
  causal: boolean;
  differentiable: boolean;
}

/** Context rows (B * T, H * hd) on the path the seam chose. */
export function cachedAttention(
  path: 'decode-block' | 'decode-attention' | 'cache-products',
  call: CachedAttentionCall,
): tf.Tensor2D {
  const { cache, layer, batch: B, time: T, heads: H, kvHeads: Hkv, headDim: hd, rope } = call;
  if (path === 'decode-block') {
    // one position a sequence: RoPE, the cache write and attention in one kernel
    return decodeBlock(cache, layer, call.rows, rope, call.maskBias, {
      heads: H,
      kvHeads: Hkv,
      headDim: hd,
      scale: 1 / Math.sqrt(hd),
    }); // (B, H*hd)
  }
  const g = H / Hkv;
  const heads = (y: tf.Tensor, count: number) =>
    permute(tf.reshape(y, [B, T, count, hd]), [0, 2, 1, 3]); // (B, count, T, hd)
  const query = applyRope(
    heads(call.rows.q, H),
    rope.cos,
    rope.sin,
    rope.rotation,
    rope.backwardSin,
  ); // (B, H, T, hd)
  const key = applyRope(
    heads(call.rows.k, Hkv),
    rope.cos,
    rope.sin,
    rope.rotation,
    rope.backwardSin,
  ); // (B, Hkv, T, hd)
  const value = heads(call.rows.v, Hkv);
  if (call.differentiable)
    throw new Error('an in-place KV cache is for decoding only (no gradient)');
  const { keys, values, length: S, capacity } = cache.write(layer, key, value); // (B, Hkv, capacity, hd)
  if (path === 'decode-attention') {
    // one position a sequence: the whole attention in one kernel, reading the cache in place
    const context = decodeAttention(
      tf.reshape(query, [B, Hkv, g, hd]),
      keys,
      values,
      call.maskBias,
      S,
      1 / Math.sqrt(hd),
    ); // (B, Hkv, g, hd) = (B, H, 1, hd)
    return tf.reshape(context, [B, H * hd]) as tf.Tensor2D;
  }
  // Grouped-query attention without repeating keys: query heads j*g .. j*g+g-1 share key head j
  // (HF repeat_kv order), so fold the g query heads into the time axis.
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
  const offset = call.causal ? S - T : null;
  const weights = tf.reshape(maskedSoftmax(scores, call.maskBias, offset), [B * Hkv, g * T, S]);
  const limits =
    offset !== null && fastPaths.causalProducts() === 'causal'
      ? { causal: 2, period: T, offset }
      : {};
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
  return tf.reshape(permute(context, [0, 2, 1, 3]), [B * T, H * hd]) as tf.Tensor2D;
}
