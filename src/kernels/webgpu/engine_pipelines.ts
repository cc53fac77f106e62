/// <reference types="@webgpu/types" />
// The decoding engine's pipelines (decoding_engine.ts): the fixed ones (attention, the KV-cache
// write, the embedding, the final norm, sampling, copying cache rows), made once a model, and the
// linear products of one row tile size, made once a tile size. The engine dispatches them; what
// they compute is in wgsl_*.ts.
import {
  attentionKernel,
  attentionSerialKernel,
  kvWriteKernel,
  kvWriteSerialKernel,
  type AttentionSpec,
} from './wgsl_attention.ts';
import { type LinearSpec, linearKernel } from './wgsl_linear.ts';
import {
  copyRowsKernel,
  embedKernel,
  finalNormKernel,
  sampleMaxKernel,
  samplePickKernel,
  sampleSumKernel,
} from './wgsl_tokens.ts';
import { computePipeline } from './gpu.ts';
import { type EngineModel, type LayerLayout, qkvStride } from './engine_model.ts';

/** The pipelines made once a model: attention and the cache write, and the token passes. */
export interface FixedPipelines {
  attention: {
    prefill: GPUComputePipeline;
    decode: GPUComputePipeline;
    write: GPUComputePipeline;
  };
  tokens: {
    embed: GPUComputePipeline;
    finalNorm: GPUComputePipeline;
    sampleMax: GPUComputePipeline;
    sampleSum: GPUComputePipeline;
    samplePick: GPUComputePipeline;
    copyRows: GPUComputePipeline;
  };
}

/** The linear kernels of one row tile size (decoding's batch, or prefill's 16). */
export interface Kernels {
  rows: number;
  qkv: GPUComputePipeline;
  o: GPUComputePipeline;
  gateUp: GPUComputePipeline;
  down: GPUComputePipeline;
  head: GPUComputePipeline;
  specs: Record<'qkv' | 'o' | 'gateUp' | 'down' | 'head', LinearSpec>;
}

/**
 * The pipelines made once a model; `slices` is the threads a column takes (1 on a software
 * adapter, which gets the serial attention kernels).
 */
export function fixedPipelines(
  device: GPUDevice,
  model: EngineModel,
  layout: LayerLayout,
  slices: number,
): FixedPipelines {
  const spec: AttentionSpec = {
    heads: model.heads,
    kvHeads: model.kvHeads,
    headDim: model.headDim,
    qkNorm:
      layout.queryNorm !== null && layout.keyNorm !== null
        ? { query: layout.queryNorm, key: layout.keyNorm, eps: model.eps }
        : null,
    qkvStride: qkvStride(model),
  };
  const pipeline = (code: string, label: string) => computePipeline(device, code, label);
  const serial = slices === 1;
  return {
    attention: {
      prefill: pipeline(
        (serial ? attentionSerialKernel : attentionKernel)(spec, false),
        'attention (prefill)',
      ),
      decode: pipeline(
        (serial ? attentionSerialKernel : attentionKernel)(spec, true),
        'attention (decode)',
      ),
      write: pipeline((serial ? kvWriteSerialKernel : kvWriteKernel)(spec), 'kv write'),
    },
    tokens: {
      embed: pipeline(embedKernel(model.width, model.embedding.chunks, model.kind), 'embedding'),
      finalNorm: pipeline(finalNormKernel(model.width, 0, model.eps), 'final norm'),
      sampleMax: pipeline(sampleMaxKernel(model.vocab), 'sample max'),
      sampleSum: pipeline(sampleSumKernel(model.vocab), 'sample sum'),
      samplePick: pipeline(samplePickKernel(model.vocab), 'sample pick'),
      copyRows: pipeline(copyRowsKernel(model.kvHeads, model.headDim), 'copy cache rows'),
    },
  };
}

/** The linear kernels for a tile of `rows` rows: the four products of a layer and the head. */
export function linearPipelines(
  device: GPUDevice,
  model: EngineModel,
  layout: LayerLayout,
  slices: number,
  rows: number,
): Kernels {
  const s = layout.segments;
  const base = { kind: model.kind, rowsPerTile: rows, slices };
  const specs = {
    qkv: {
      ...base,
      inputs: model.width,
      norm: { weight: layout.inputNorm, eps: model.eps },
      segments: [s.q, s.k, s.v],
      epilogue: 'store',
      outputStride: qkvStride(model),
    },
    o: {
      ...base,
      inputs: model.heads * model.headDim,
      norm: null,
      segments: [s.o],
      epilogue: 'residual',
      outputStride: model.width,
    },
    gateUp: {
      ...base,
      inputs: model.width,
      norm: { weight: layout.postNorm, eps: model.eps },
      segments: [s.gate, s.up],
      epilogue: 'swiglu',
      outputStride: model.ffn,
    },
    down: {
      ...base,
      inputs: model.ffn,
      norm: null,
      segments: [s.down],
      epilogue: 'residual',
      outputStride: model.width,
    },
    head: {
      ...base,
      inputs: model.width,
      norm: null,
      segments: model.head.chunks.map((chunk) => ({
        outputs: chunk.rows,
        bias: null,
        lora: null,
        outOffset: chunk.start,
      })),
      epilogue: 'store',
      outputStride: model.vocab,
    },
  } satisfies Record<string, LinearSpec>;
  const make = (name: keyof typeof specs) =>
    computePipeline(device, linearKernel(specs[name]), `${name} x${rows}`);
  return {
    rows,
    qkv: make('qkv'),
    o: make('o'),
    gateUp: make('gateUp'),
    down: make('down'),
    head: make('head'),
    specs,
  };
}
