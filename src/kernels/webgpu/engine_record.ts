/// <reference types="@webgpu/types" />
// The decoding engine's dispatches (decoding_engine.ts): a layer's five kernels over a batch of
// query rows, and the final norm, head and sampling passes of a token. Each records into the
// compute pass it is given; the engine owns the pass, the step's scalars and the submit. Bind
// groups are made once per buffers and key (`group`), so a warm token makes no GPU objects.
import { ROW_WORDS } from './wgsl_attention.ts';
import { linearWorkgroups } from './wgsl_linear.ts';
import { sampleBlocks } from './wgsl_tokens.ts';
import { type WebGpuBackendLike, bindBuffers, bufferOf, dispatch, grid } from './gpu.ts';
import type { Buffers } from './engine_buffers.ts';
import type { FixedPipelines, Kernels } from './engine_pipelines.ts';
import type { EngineLinear, EngineModel } from './engine_model.ts';

/** A query row's place in the cache: its row, its slot and its sequence's hidden slots. */
export interface RowPlace {
  cacheRow: number;
  slot: number;
  /** Slots [0, hide0) and [hide1, hide2) are hidden from it. */
  hide0: number;
  hide1: number;
  hide2: number;
}

/** What the dispatches read besides the batch's buffers: the model's, made once. */
export interface EngineContext {
  readonly device: GPUDevice;
  readonly backend: WebGpuBackendLike;
  readonly model: EngineModel;
  /** The step's scalars (wgsl_common.ts), bound first by every kernel. */
  readonly step: GPUBuffer;
  /** Each layer's small float32 parameters, copied in at begin(). */
  readonly params: readonly GPUBuffer[];
  /** The final norm's weights. */
  readonly globals: GPUBuffer;
  readonly fixed: FixedPipelines;
  /** Threads a column in the linear kernels: 1 on a software adapter, 32 on a GPU. */
  readonly slices: number;
}

/** queue.writeBuffer for any typed array (the DOM types want an ArrayBuffer-backed view). */
export function write(queue: GPUQueue, buffer: GPUBuffer, data: ArrayBufferView): void {
  queue.writeBuffer(buffer, 0, data as ArrayBufferView<ArrayBuffer>);
}

/** A bind group made once per (buffers, key). */
export function group(
  ctx: EngineContext,
  b: Buffers,
  key: string,
  pipeline: GPUComputePipeline,
  buffers: () => GPUBuffer[],
): GPUBindGroup {
  let made = b.groups.get(key);
  if (!made) {
    made = bindBuffers(ctx.device, pipeline, buffers(), key);
    b.groups.set(key, made);
  }
  return made;
}

/** Workgroups of an attention kernel over rows x heads: a workgroup each, or 64 threads each. */
function attentionGrid(ctx: EngineContext, rows: number, heads: number): [number, number] {
  return ctx.slices === 1 ? [Math.ceil((rows * heads) / 64), 1] : [rows, heads];
}

/**
 * Records the decoder layers over `tokens` (one a query row) at their places: decoding's fused
 * attention when `decode`, else prefill's cache write and attention.
 */
export function recordLayers(
  ctx: EngineContext,
  b: Buffers,
  pass: GPUComputePassEncoder,
  tokens: Int32Array,
  places: RowPlace[],
  rope: Float32Array,
  kernels: Kernels,
  decode: boolean,
): void {
  const { model, backend, step } = ctx;
  const { attention, tokens: passes } = ctx.fixed;
  const n = tokens.length;
  const queue = ctx.device.queue;
  write(queue, b.tokens, tokens);
  const placeWords = new Uint32Array(n * ROW_WORDS);
  places.forEach((p, i) => {
    placeWords.set([p.cacheRow, p.slot, p.hide0, p.hide1, p.hide2], i * ROW_WORDS);
  });
  write(queue, b.places, placeWords);
  write(queue, b.rope, rope);
  const tiles = Math.ceil(n / kernels.rows);
  const embedGroup = group(ctx, b, 'embed', passes.embed, () => [
    step,
    b.tokens,
    b.x,
    ...model.embedding.chunks.map((c) => bufferOf(backend, c.tensor)),
  ]);
  dispatch(pass, passes.embed, embedGroup, ...grid(n));
  const weight = (linear: EngineLinear) => bufferOf(backend, linear.weight.chunks[0]!.tensor);
  model.layers.forEach((layer, i) => {
    const params = ctx.params[i]!;
    const key = `${kernels.rows}:${i}`;
    const qkv = group(ctx, b, `qkv ${key}`, kernels.qkv, () => [
      step,
      params,
      b.x,
      b.qkv,
      weight(layer.q),
      weight(layer.k),
      weight(layer.v),
    ]);
    dispatch(pass, kernels.qkv, qkv, linearWorkgroups(kernels.specs.qkv), tiles);
    const attentionBuffers = () => [
      step,
      params,
      b.qkv,
      b.places,
      b.rope,
      b.keys[i]!,
      b.values[i]!,
    ];
    if (decode) {
      const attend = group(ctx, b, `attend ${i}`, attention.decode, () => [
        ...attentionBuffers(),
        b.context,
      ]);
      dispatch(pass, attention.decode, attend, ...attentionGrid(ctx, n, model.heads));
    } else {
      const cacheWrite = group(ctx, b, `write ${i}`, attention.write, attentionBuffers);
      dispatch(pass, attention.write, cacheWrite, ...attentionGrid(ctx, n, model.kvHeads));
      const attend = group(ctx, b, `prefill ${i}`, attention.prefill, () => [
        ...attentionBuffers(),
        b.context,
      ]);
      dispatch(pass, attention.prefill, attend, ...attentionGrid(ctx, n, model.heads));
    }
    const o = group(ctx, b, `o ${key}`, kernels.o, () => [
      step,
      params,
      b.context,
      b.h,
      b.x,
      weight(layer.o),
    ]);
    dispatch(pass, kernels.o, o, linearWorkgroups(kernels.specs.o), tiles);
    const gateUp = group(ctx, b, `gateUp ${key}`, kernels.gateUp, () => [
      step,
      params,
      b.h,
      b.mlp,
      weight(layer.gate),
      weight(layer.up),
    ]);
    dispatch(pass, kernels.gateUp, gateUp, linearWorkgroups(kernels.specs.gateUp), tiles);
    const down = group(ctx, b, `down ${key}`, kernels.down, () => [
      step,
      params,
      b.mlp,
      b.x,
      b.h,
      weight(layer.down),
    ]);
    dispatch(pass, kernels.down, down, linearWorkgroups(kernels.specs.down), tiles);
  });
}

/**
 * Records the final norm of the rows `gather` names (one a sequence), the head, and the three
 * sampling passes: sequence i samples from the logits of row gather[i] with uniforms[i].
 */
export function recordHeadAndSample(
  ctx: EngineContext,
  b: Buffers,
  pass: GPUComputePassEncoder,
  gather: Uint32Array,
  uniforms: Float32Array,
  kernels: Kernels,
): void {
  const { model, backend, step, globals } = ctx;
  const passes = ctx.fixed.tokens;
  const queue = ctx.device.queue;
  const sequences = gather.length;
  write(queue, b.gather, gather);
  const sampling = new Uint32Array(2 * sequences);
  const bits = new Uint32Array(uniforms.buffer, uniforms.byteOffset, uniforms.length);
  for (let i = 0; i < sequences; i++) {
    sampling[2 * i] = i;
    sampling[2 * i + 1] = bits[i]!;
  }
  write(queue, b.sampling, sampling);
  const norm = group(ctx, b, 'final norm', passes.finalNorm, () => [
    step,
    globals,
    b.x,
    b.gather,
    b.normed,
  ]);
  dispatch(pass, passes.finalNorm, norm, sequences);
  const head = group(ctx, b, `head ${kernels.rows}`, kernels.head, () => [
    step,
    globals, // (unread: the head has no norm, bias or adapter)
    b.normed,
    b.logits,
    ...model.head.chunks.map((c) => bufferOf(backend, c.tensor)),
  ]);
  dispatch(
    pass,
    kernels.head,
    head,
    linearWorkgroups(kernels.specs.head),
    Math.ceil(sequences / kernels.rows),
  );
  const blocks = sampleBlocks(model.vocab);
  const samplingBuffers = () => [step, b.logits, b.sampling, b.stats];
  const max = group(ctx, b, 'sample max', passes.sampleMax, samplingBuffers);
  dispatch(pass, passes.sampleMax, max, blocks, sequences);
  const sum = group(ctx, b, 'sample sum', passes.sampleSum, samplingBuffers);
  dispatch(pass, passes.sampleSum, sum, blocks, sequences);
  const pick = group(ctx, b, 'sample pick', passes.samplePick, () => [
    ...samplingBuffers(),
    b.picked,
  ]);
  dispatch(pass, passes.samplePick, pick, sequences);
}
