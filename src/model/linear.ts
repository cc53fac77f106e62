// The linear parts of the decoder that touch its weights: the projections (with LoRA), the token
// embedding's lookup, the output projection, and RMSNorm. A frozen weight is either a float32
// tf.Variable or a 16-bit matrix resident in the dot store (half_weight.ts).
import * as tf from '@tensorflow/tfjs';
import { embeddingRows, matMul2d } from '../kernels/matmul/dispatch.ts';
import { mergedLoraProduct } from './merged_lora.ts';
import { embedColumns, loraLinear, matMulLinear, permute } from './ops.ts';
import type { DecoderParams, Linear } from './params.ts';
import { simdAddRmsNormValue, simdRmsNorm, simdRmsNormValue } from '../kernels/tfjs/rmsnorm.ts';
import { fastPaths } from './fast_paths.ts';
import { halfLinear, halfLoraLinear, halfProduct, halfRows } from './half_ops.ts';
import {
  gatedLinears16,
  gatedLinears16Serves,
  linear16AddNorm,
  type Linear16,
  linears16,
  linears16Serves,
} from '../kernels/matmul/linears16.ts';
import { swiglu, swigluValue } from '../kernels/tfjs/swiglu.ts';
import { type HalfWeight, isHalf } from './half_weight.ts';
import { isSplit, splitColumns, splitLogits } from './vocab_split.ts';

/** How to run: with the custom-gradient ops (training), and with LoRA adapters on or off. */
export interface ForwardMode {
  differentiable: boolean;
  adapters: boolean;
}

/** Token vectors (N, D) for `ids`: columns of the (D, V) embedding. */
export function embedTokens(
  params: DecoderParams,
  ids: tf.Tensor1D,
  mode: ForwardMode,
): tf.Tensor2D {
  const table = params.embedding;
  if (isSplit(table)) return splitColumns(table, ids, mode.differentiable); // (vocab_split.ts)
  if (isHalf(table)) return halfRows(ids, table); // frozen: no gradient to the table
  return mode.differentiable
    ? embedColumns(table as tf.Tensor2D, ids, table.trainable)
    : (embeddingRows(table as tf.Tensor2D, ids) ??
        permute(tf.gather(table, ids, 1) as tf.Tensor2D, [1, 0]));
}

/** Logits (N, V) for hidden rows (N, D): h @ lm_head, or h @ embedding when tied. */
export function outputLogits(params: DecoderParams, hidden: tf.Tensor2D): tf.Tensor2D {
  const head = params.lmHead ?? params.embedding;
  if (isSplit(head)) return splitLogits(head, hidden);
  return isHalf(head) ? halfProduct(hidden, head) : matMul2d(hidden, head as tf.Tensor2D);
}

/**
 * RMSNorm: x / sqrt(mean(x^2) + eps) * weight, over the last axis. On wasm one SIMD pass
 * (kernels/simd/rmsnorm.ts): `kernel` 'gradient' with its one-pass backward (training), 'value' the
 * forward alone (decoding); 'ops', or off wasm, the tfjs ops.
 */
export function rmsNorm(
  x: tf.Tensor2D,
  weight: tf.Tensor,
  eps: number,
  kernel: 'gradient' | 'value' | 'ops' = 'ops',
): tf.Tensor2D {
  if (kernel !== 'ops' && fastPaths.norm(x.shape[1]) === 'simd')
    return kernel === 'gradient' ? simdRmsNorm(x, weight, eps) : simdRmsNormValue(x, weight, eps);
  const meanSquare = tf.mean(tf.square(x), -1, true); // (N, 1)
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(meanSquare, eps))), weight) as tf.Tensor2D;
}

/**
 * applyLinear for several layers that read the same x (a layer's q, k and v; gate and up). Without
 * a gradient, on few rows and 16-bit weights, one kernel for all of them
 * (kernels/matmul/linears16.ts); otherwise one applyLinear each. The same numbers either way, to
 * float32 rounding.
 */
export function applyLinears(
  x: tf.Tensor2D,
  linears: readonly Linear[],
  mode: ForwardMode,
): tf.Tensor2D[] {
  const group = mode.differentiable ? null : halfGroup(x, linears, mode);
  return group ? linears16(x, group) : linears.map((linear) => applyLinear(x, linear, mode));
}

/**
 * silu(x W_gate ...) * (x W_up ...), an MLP's first half: without a gradient, on few rows and
 * 16-bit weights, one kernel (kernels/matmul/linears16.ts gatedLinears16); otherwise the two
 * layers, then the SwiGLU kernel (kernels/simd/swiglu.ts) or its ops. The same bits either way.
 */
export function applyGatedLinears(
  x: tf.Tensor2D,
  gate: Linear,
  up: Linear,
  mode: ForwardMode,
): tf.Tensor2D {
  const width = gate.weight.shape[gate.weight.shape.length - 1]!;
  const group =
    !mode.differentiable &&
    fastPaths.decodeLinears() === 'fused' &&
    gatedLinears16Serves(x.shape[0], width)
      ? halfGroup(x, [gate, up], mode)
      : null;
  if (group) return gatedLinears16(x, group[0]!, group[1]!);
  const [g, u] = applyLinears(x, [gate, up], mode) as [tf.Tensor2D, tf.Tensor2D];
  return (mode.differentiable ? swiglu(g, u) : swigluValue(g, u)) as tf.Tensor2D;
}

/**
 * A block's end without a gradient: h = residual + x W (+ b ...) and RMSNorm(h) * norm, on few rows
 * and 16-bit weights in one kernel (kernels/matmul/linears16.ts linear16AddNorm), else the layer
 * and then the add-and-norm kernel. The same bits either way. Only where fastPaths.norm(the width)
 * is 'simd' (fused_block.ts).
 */
export function applyLinearAddNorm(
  x: tf.Tensor2D,
  linear: Linear,
  residual: tf.Tensor2D,
  norm: { weight: tf.Tensor; eps: number },
  mode: ForwardMode,
): [tf.Tensor2D, tf.Tensor2D] {
  const group =
    !mode.differentiable && fastPaths.decodeLinears() === 'fused'
      ? halfGroup(x, [linear], mode)
      : null;
  if (group) return linear16AddNorm(x, group[0]!, residual, norm);
  return simdAddRmsNormValue(residual, applyLinear(x, linear, mode), norm.weight, norm.eps);
}

/** The layers as linears16's group, or null where it does not serve them. */
function halfGroup(
  x: tf.Tensor2D,
  linears: readonly Linear[],
  mode: ForwardMode,
): Linear16[] | null {
  if (!linears16Serves(x.shape[0])) return null;
  const group: Linear16[] = [];
  for (const linear of linears) {
    const resident = isHalf(linear.weight) ? linear.weight.resident : null;
    if (!resident) return null;
    const adapter = mode.adapters ? linear.adapter : null;
    group.push({
      weight: resident,
      bias: linear.bias,
      adapter: adapter && { a: adapter.a, b: adapter.b, scale: adapter.scale },
    });
  }
  return group;
}

/** y = x W (+ b) (+ scale x A B when adapters are on), x (N, I) -> (N, O). */
export function applyLinear(x: tf.Tensor2D, linear: Linear, mode: ForwardMode): tf.Tensor2D {
  if (isHalf(linear.weight)) return applyHalfLinear(x, linear, linear.weight, mode);
  const weight = linear.weight;
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
    !weight.trainable &&
    fastPaths.loraLayer() === 'one-op'
  ) {
    return loraLinear(
      x,
      weight as tf.Tensor2D,
      adapter.a as tf.Tensor2D,
      adapter.b as tf.Tensor2D,
      adapter.scale,
    );
  }
  // a LoRA layer without a gradient (sampling, prefill): one product on its merged weight
  const merged =
    adapter && mode.adapters && !mode.differentiable
      ? mergedLoraProduct(x, weight, adapter.a, adapter.b, adapter.scale)
      : null;
  let y = merged ?? matMul(x, weight);
  if (linear.bias) y = tf.add(y, linear.bias) as tf.Tensor2D;
  if (adapter && mode.adapters && !merged) {
    // the scale on the rank-r factor (N, r), not on the (N, O) update: r/O of the work, forward and
    // backward; the same numbers for a power-of-two scale (alpha / rank = 2 by default)
    const update = matMul(tf.mul(matMul(x, adapter.a), adapter.scale) as tf.Tensor2D, adapter.b); // (N, r) -> (N, O)
    y = tf.add(y, update) as tf.Tensor2D;
  }
  return y;
}

/**
 * applyLinear for a frozen 16-bit weight: the 16-bit kernels for x W (and dy W^T), the adapter in
 * float32 beside it. No merged copy (W + scale A B): at these sizes it would be a second copy of
 * the weights, so decoding runs the adapter's two rank-r products instead.
 */
function applyHalfLinear(
  x: tf.Tensor2D,
  linear: Linear,
  weight: HalfWeight,
  mode: ForwardMode,
): tf.Tensor2D {
  const adapter = mode.adapters ? linear.adapter : null;
  if (!mode.differentiable) {
    const group = halfGroup(x, [linear], mode);
    if (group) return linears16(x, group)[0]!;
    return tf.tidy(() => {
      let y = halfProduct(x, weight);
      if (linear.bias) y = tf.add(y, linear.bias) as tf.Tensor2D;
      if (!adapter) return y;
      const scaled = tf.mul(matMul2d(x, adapter.a as tf.Tensor2D), adapter.scale) as tf.Tensor2D;
      return tf.add(y, matMul2d(scaled, adapter.b as tf.Tensor2D)) as tf.Tensor2D;
    });
  }
  const y = adapter
    ? halfLoraLinear(x, weight, adapter.a as tf.Tensor2D, adapter.b as tf.Tensor2D, adapter.scale)
    : halfLinear(x, weight);
  return linear.bias ? (tf.add(y, linear.bias) as tf.Tensor2D) : y;
}
