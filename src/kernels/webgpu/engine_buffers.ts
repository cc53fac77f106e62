/// <reference types="@webgpu/types" />
// The decoding engine's buffers for one batch shape (decoding_engine.ts): activations, sampling
// state, the read-back and the KV cache, made once and reused while the shape fits.
import { type EngineModel, qkvStride } from './engine_model.ts';
import { gpuCounts, storageBuffer } from './gpu.ts';
import { ROW_WORDS } from './wgsl_attention.ts';
import { sampleBlocks } from './wgsl_tokens.ts';

/** Buffers sized for `rows` positions at once and a cache of `cacheRows` x `capacity` slots. */
export interface Buffers {
  rows: number;
  sequences: number;
  cacheRows: number;
  capacity: number;
  x: GPUBuffer;
  h: GPUBuffer;
  qkv: GPUBuffer;
  context: GPUBuffer;
  mlp: GPUBuffer;
  normed: GPUBuffer;
  logits: GPUBuffer;
  stats: GPUBuffer;
  tokens: GPUBuffer;
  places: GPUBuffer;
  rope: GPUBuffer;
  gather: GPUBuffer;
  sampling: GPUBuffer;
  picked: GPUBuffer;
  readback: GPUBuffer;
  pairs: GPUBuffer;
  keys: GPUBuffer[];
  values: GPUBuffer[];
  groups: Map<string, GPUBindGroup>;
}

/** The buffers for `rows` positions, `sequences` sequences and a cache of `cacheRows` x `capacity` slots. */
export function allocateBuffers(
  device: GPUDevice,
  model: EngineModel,
  rows: number,
  sequences: number,
  cacheRows: number,
  capacity: number,
): Buffers {
  const f32 = (count: number, label: string) => storageBuffer(device, count * 4, label);
  const cacheFloats = cacheRows * model.kvHeads * capacity * model.headDim;
  if (cacheFloats * 4 > device.limits.maxStorageBufferBindingSize)
    throw new Error(
      `a KV cache layer of ${cacheRows} rows x ${capacity} slots passes this device's ${device.limits.maxStorageBufferBindingSize} bytes a buffer`,
    );
  gpuCounts.objectsCreated++;
  const readback = device.createBuffer({
    label: 'read-back',
    size: Math.max(16, sequences * 8),
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  });
  return {
    rows,
    sequences,
    cacheRows,
    capacity,
    x: f32(rows * model.width, 'x'),
    h: f32(rows * model.width, 'h'),
    qkv: f32(rows * qkvStride(model), 'qkv'),
    context: f32(rows * model.heads * model.headDim, 'context'),
    mlp: f32(rows * model.ffn, 'mlp'),
    normed: f32(sequences * model.width, 'normed'),
    logits: f32(sequences * model.vocab, 'logits'),
    stats: f32(sequences * sampleBlocks(model.vocab) * 4, 'sampling stats'),
    tokens: f32(rows, 'tokens'),
    places: f32(rows * ROW_WORDS, 'rows'),
    rope: f32(rows * 2 * model.headDim, 'rope'),
    gather: f32(sequences, 'gather'),
    sampling: f32(2 * sequences, 'sampling'),
    picked: f32(2 * sequences, 'picked'),
    readback,
    pairs: f32(2 * cacheRows, 'pairs'),
    keys: model.layers.map((_, i) => f32(cacheFloats, `keys ${i}`)),
    values: model.layers.map((_, i) => f32(cacheFloats, `values ${i}`)),
    groups: new Map(),
  };
}

/** Frees every buffer of a shape. */
export function freeBuffers(buffers: Buffers): void {
  for (const value of Object.values(buffers)) {
    if (Array.isArray(value)) for (const b of value) (b as GPUBuffer).destroy();
    else if (value && typeof value === 'object' && 'destroy' in value)
      (value as GPUBuffer).destroy();
  }
}
