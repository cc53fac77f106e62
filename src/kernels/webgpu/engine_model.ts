// A model as the decoding engine (decoding_engine.ts) is given it, and where each layer's small
// float32 parameters (norms, biases, LoRA factors) sit in the one buffer a layer gets.
import type * as tf from '@tensorflow/tfjs';
import type { HalfKind } from './wgsl_common.ts';
import type { LinearSegment } from './wgsl_linear.ts';
import type { Packed16 } from './packed16.ts';

/** One linear layer as the engine binds it. */
export interface EngineLinear {
  weight: Packed16;
  bias: tf.Tensor | null;
  lora: { a: tf.Tensor; b: tf.Tensor; scale: number } | null;
}

/** One decoder layer. */
export interface EngineLayer {
  inputNorm: tf.Tensor;
  postNorm: tf.Tensor;
  queryNorm: tf.Tensor | null;
  keyNorm: tf.Tensor | null;
  q: EngineLinear;
  k: EngineLinear;
  v: EngineLinear;
  o: EngineLinear;
  gate: EngineLinear;
  up: EngineLinear;
  down: EngineLinear;
}

/** A model as the engine runs it: its widths and its weights (tensors of the webgpu backend). */
export interface EngineModel {
  kind: HalfKind;
  width: number;
  ffn: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  vocab: number;
  eps: number;
  embedding: Packed16;
  /** The output head (V, D): the embedding when tied. */
  head: Packed16;
  finalNorm: tf.Tensor;
  layers: EngineLayer[];
}

/** Floats a row of the fused q|k|v buffer holds: the query heads, then the key and value heads. */
export function qkvStride(model: EngineModel): number {
  return (model.heads + 2 * model.kvHeads) * model.headDim;
}

/** Where each small parameter of a layer lives in its params buffer (floats). */
export interface LayerLayout {
  floats: number;
  copies: { tensor: (layer: EngineLayer) => tf.Tensor; offset: number; size: number }[];
  inputNorm: number;
  postNorm: number;
  queryNorm: number | null;
  keyNorm: number | null;
  segments: Record<'q' | 'k' | 'v' | 'o' | 'gate' | 'up' | 'down', LinearSegment>;
}

type LinearName = 'q' | 'k' | 'v' | 'o' | 'gate' | 'up' | 'down';

export function layerLayout(model: EngineModel): LayerLayout {
  const first = model.layers[0]!;
  let floats = 0;
  const copies: LayerLayout['copies'] = [];
  const place = (tensor: (layer: EngineLayer) => tf.Tensor, size: number): number => {
    const offset = floats;
    copies.push({ tensor, offset, size });
    floats += size;
    return offset;
  };
  const { width: D, headDim: hd } = model;
  const inputNorm = place((l) => l.inputNorm, D);
  const postNorm = place((l) => l.postNorm, D);
  const queryNorm = first.queryNorm ? place((l) => l.queryNorm!, hd) : null;
  const keyNorm = first.keyNorm ? place((l) => l.keyNorm!, hd) : null;
  const qkvOffsets = { q: 0, k: model.heads * hd, v: (model.heads + model.kvHeads) * hd };
  const segment = (name: LinearName): LinearSegment => {
    const linear = first[name];
    const [outputs, inputs] = [linear.weight.rows, linear.weight.cols];
    const bias = linear.bias ? place((l) => l[name].bias!, outputs) : null;
    let lora: LinearSegment['lora'] = null;
    if (linear.lora) {
      const rank = linear.lora.a.shape[1]!;
      const a = place((l) => l[name].lora!.a, inputs * rank);
      const b = place((l) => l[name].lora!.b, rank * outputs);
      lora = { a, b, rank, scale: linear.lora.scale };
    }
    const outOffset = name in qkvOffsets ? qkvOffsets[name as 'q' | 'k' | 'v'] : 0;
    return { outputs, bias, lora, outOffset };
  };
  const segments = {
    q: segment('q'),
    k: segment('k'),
    v: segment('v'),
    o: segment('o'),
    gate: segment('gate'),
    up: segment('up'),
    down: segment('down'),
  };
  return { floats, copies, inputNorm, postNorm, queryNorm, keyNorm, segments };
}
