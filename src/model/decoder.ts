// The Llama / Qwen2 / Qwen3 decoder (pre-norm transformer: RMSNorm, RoPE attention with
// grouped-query heads, SwiGLU MLP), following transformers' modeling_llama.py, modeling_qwen2.py
// and modeling_qwen3.py (Qwen3: an RMSNorm over each query and key head before RoPE).
//
// Written as the reference: tfjs ops that run on any backend. A fast path may take over at two
// hooks, each asked of the model's seam for kernel choice (fast_paths.ts): a whole block
// (block(): fused_block.ts) and attention (attention(): cached_attention.ts).
//
// Shape legend: B batch, T new positions, S attended positions (cache + new), D model width,
// H query heads, Hkv key/value heads, g = H / Hkv queries per key head, hd head width,
// F MLP width, V vocabulary, N = B * T rows.
import * as tf from '@tensorflow/tfjs';
import { batchMatMul, type CausalProduct } from '../kernels/matmul/attention_products.ts';
import type { ModelConfig } from '../model_files/hf_config.ts';
import { concatRows, concatTime, repeatBatch, splitRows } from '../kernels/heap_copies.ts';
import type { KvCache } from './kv_cache.ts';
import { permute } from './ops.ts';
import {
  applyGatedLinears,
  applyLinear,
  applyLinears,
  embedTokens,
  rmsNorm,
  type ForwardMode,
} from './linear.ts';
import type { DecoderLayer, DecoderParams } from './params.ts';
import { applyRope, type Rope } from './rope.ts';
import { layerTrainables, recomputedLayer } from './recompute.ts';
import { maskedSoftmax } from '../kernels/tfjs/masked_softmax.ts';
import { cachedAttention } from './cached_attention.ts';
import { fastPaths } from './fast_paths.ts';
import { fusedBlock } from './fused_block.ts';

export { outputLogits, rmsNorm, type ForwardMode } from './linear.ts';

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
   * mask makes zero (kernels/matmul/attention_products.ts), with the same numbers.
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
  /**
   * Gradient checkpointing (training): each layer keeps only its input for the backward pass and
   * runs again there (recompute.ts). The same numbers; one more forward pass of the layers.
   */
  recompute?: boolean;
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

/** Final-norm hidden states (N, D) for every input position. */
export function decoderForward(
  parts: DecoderParts,
  input: ForwardInput,
  mode: ForwardMode,
): tf.Tensor2D {
  const { config, params } = parts;
  const ids = tf.tensor1d(input.ids, 'int32');
  let x = embedTokens(params, ids, mode); // (N, D)
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
  // one block: x + attention(norm(x)), then + mlp(norm(·)); `at` and `r` carry its masks and tables
  const block = (
    layer: DecoderLayer,
    index: number,
    y: tf.Tensor2D,
    r: typeof rope,
    at: ForwardInput,
  ) => {
    const context = attention(
      parts,
      layer,
      index,
      rmsNorm(y, layer.inputNorm, eps, norm),
      at,
      r,
      mode,
    );
    const h = tf.add(y, applyLinear(context, layer.projections.o_proj, mode));
    return tf.add(
      h,
      mlp(layer, rmsNorm(h as tf.Tensor2D, layer.postAttentionNorm, eps, norm), mode),
    ) as tf.Tensor2D;
  };
  if (input.recompute && input.cache)
    throw new Error('decoderForward: recompute is for training, without a cache');
  const masks = { maskBias: input.maskBias, prefix: input.prefix };
  // The hook where a fast path may take over each block (fast_paths.ts block()): without a
  // gradient on wasm, each residual add and the norm after it are one kernel (fused_block.ts), so
  // a block hands the next its input norm (`normed`, null on the reference path).
  let normed: tf.Tensor2D | null =
    params.layers.length > 0 && fastPaths.block(config.hiddenSize, mode.differentiable) === 'fused'
      ? rmsNorm(x, params.layers[0]!.inputNorm, eps, norm)
      : null;
  // no gradient recorded (scoring: the reference pass, old log-probs; decoding): a layer's
  // intermediates freed as it ends, and the last layer's rows once used (at the SmolLM2-135M
  // shape, 12 prompts of 200 tokens otherwise took tfjs's heap to 2.3 GB, for 0.1 GB live)
  const untaped = !tf.engine().isTapeOn();
  params.layers.forEach((layer, index) => {
    if (normed) {
      const before = [x, normed];
      const next = params.layers[index + 1]?.inputNorm ?? params.finalNorm;
      [x, normed] = tf.tidy(() =>
        fusedBlock(layer, x, normed!, next, eps, mode, (n) =>
          attention(parts, layer, index, n, input, rope, mode),
        ),
      );
      tf.dispose(before);
    } else if (input.recompute) {
      x = recomputedLayer(
        (y, c) => block(layer, index, y, c.rope, { ...input, ...c.masks }),
        x,
        { rope, masks },
        layerTrainables(layer, mode),
      );
    } else if (untaped) {
      const before = x;
      x = tf.tidy(() => block(layer, index, before, rope, input));
      before.dispose();
    } else x = block(layer, index, x, rope, input);
  });
  return normed ?? rmsNorm(x, params.finalNorm, eps, norm);
}

function mlp(layer: DecoderLayer, h: tf.Tensor2D, mode: ForwardMode): tf.Tensor2D {
  const { gate_proj, up_proj, down_proj } = layer.projections;
  // silu(gate) * up (N, F): fused on wasm for training (kernels/simd/swiglu.ts), and into the
  // products' kernel for decoding's few rows (kernels/matmul/linears16.ts)
  return applyLinear(applyGatedLinears(h, gate_proj, up_proj, mode), down_proj, mode);
}

/** Attention's context rows (N, H * hd) for normed rows h, before o_proj (the callers project). */
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
  const { q_proj, k_proj, v_proj } = layer.projections;
  // with a shared prefix its s rows come first: the projections run on every row at once
  const s = input.prefix?.length ?? 0;
  const [qRows, kRows, vRows] = applyLinears(h, [q_proj, k_proj, v_proj], mode);
  const project = (
    projected: tf.Tensor2D,
    headNorm: tf.Variable | null = null,
  ): [tf.Tensor | null, tf.Tensor] => {
    let y = projected;
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
    project(qRows!, layer.queryNorm),
    project(kRows!, layer.keyNorm),
    project(vRows!),
  ];
  // The hook where a fast path may take over attention (fast_paths.ts attention()): over an
  // in-place KV cache, wasm's decoding kernels (cached_attention.ts)
  const path = fastPaths.attention({
    cache: input.cache,
    time: T,
    headDim: hd,
    differentiable: mode.differentiable,
  });
  if (path !== 'reference') {
    return cachedAttention(path, {
      cache: input.cache!,
      layer: index,
      batch: B,
      time: T,
      heads: H,
      kvHeads: Hkv,
      headDim: hd,
      rows: { q: q[1], k: k[1], v: v[1] },
      rope,
      maskBias: input.maskBias,
      causal: input.causal ?? false,
      differentiable: mode.differentiable,
    });
  }
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
    return concatRows(prefixRows as tf.Tensor2D, ownRows as tf.Tensor2D) as tf.Tensor2D;
  }
  if (input.cache) [key, value] = input.cache.append(index, key, value); // (B, Hkv, S, hd)
  return attend(query, key, value, input.maskBias, input.causal ?? false, g) as tf.Tensor2D;
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
  ]); // one SIMD pass each way on wasm (kernels/simd/softmax.ts)
  const context = tf.reshape(batchMatMul(weights, value, false, false, limits('context')), [
    B,
    H,
    T,
    hd,
  ]); // (B, H, T, hd)
  return tf.reshape(permute(context, [0, 2, 1, 3]), [B * T, H * hd]); // (N, H*hd)
}
