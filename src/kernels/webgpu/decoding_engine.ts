/// <reference types="@webgpu/types" />
// Decoding on WebGPU as a handful of fused kernels a layer, sharing tfjs's GPUDevice and its
// weight buffers: a token is one command encoder, one submit and one read-back of 8 bytes a
// sequence (its id and log-prob); pipelines, bind groups and buffers are made once per model and
// batch shape, and reused while they fit. This file owns the step: its scalars, its command
// encoder and its submit; the dispatches are recorded in engine_record.ts, the cache's copies to
// and from tfjs tensors in engine_cache.ts, the pipelines built in engine_pipelines.ts and the
// buffers in engine_buffers.ts.
//
// A layer is 5 dispatches: RMSNorm + the q, k and v products with their biases and LoRA terms
// (wgsl_linear.ts); Qwen3's head norms + RoPE + the KV-cache write + attention
// (wgsl_attention.ts); the output product + LoRA + the residual; RMSNorm + gate and up + LoRA +
// SwiGLU; down + LoRA + the residual. Besides them, a token is the embedding's lookup, the final
// norm, the head (every vocabulary chunk in one dispatch) and three sampling passes
// (wgsl_tokens.ts). Prefill runs the same kernels over tiles of 16 positions, with the cache write
// a dispatch of its own.
//
// Why an engine beside tfjs rather than tfjs kernels: tfjs makes a bind group per op and submits
// in batches of 15 ops, so neither "no objects after warm-up" nor "one submit a token" holds
// through it; here every object is made once and a token's dispatches are recorded together.
//
// The small float32 parameters (norms, biases, LoRA factors) are copied into one buffer per layer
// at each begin() (a few hundred KB; the adapters change between updates); the 16-bit weights are
// bound where tfjs keeps them. The KV cache is float32, (rows, kvHeads, capacity, headDim) a
// layer, written in place.
import type * as tf from '@tensorflow/tfjs';
import { STEP_BYTES } from './wgsl_common.ts';
import {
  type WebGpuBackendLike,
  bufferOf,
  checkPipelines,
  dispatch,
  flushTfjs,
  gpuCounts,
  softwareAdapter,
  storageBuffer,
} from './gpu.ts';
import { allocateBuffers, type Buffers, freeBuffers } from './engine_buffers.ts';
import { cacheRuns, recordExtract, recordPreload } from './engine_cache.ts';
import { type Kernels, fixedPipelines, linearPipelines } from './engine_pipelines.ts';
import { type EngineModel, type LayerLayout, layerLayout } from './engine_model.ts';
import {
  type EngineContext,
  type RowPlace,
  group,
  recordHeadAndSample,
  recordLayers,
  write,
} from './engine_record.ts';

export type { EngineLayer, EngineLinear, EngineModel } from './engine_model.ts';
export type { RowPlace } from './engine_record.ts';

/** What a step samples with: adapters on or off, and the temperature (0: greedy). */
export interface StepOptions {
  lora: boolean;
  temperature: number;
}

/** Tokens sampled for the live sequences: ids and log-probs. */
export interface Sampled {
  ids: Int32Array;
  logprobs: Float32Array;
}

/** Rows a linear kernel's workgroup takes (the prefill tile; decoding takes min(this, batch)). */
const TILE_ROWS = 16;

/** The decoding engine of one model on the webgpu backend. */
export class DecodingEngine {
  private readonly ctx: EngineContext;
  private readonly layout: LayerLayout;
  private readonly kernels = new Map<number, Kernels>();
  private buffers: Buffers | null = null;
  private encoder: GPUCommandEncoder | null = null;
  private pass: GPUComputePassEncoder | null = null;
  /** Sequences of the recorded decoding step that sample() has not yet taken. */
  private pending: number | null = null;
  private readonly stepData = new ArrayBuffer(STEP_BYTES);
  private disposed = false;

  constructor(backend: WebGpuBackendLike, model: EngineModel) {
    const device = backend.device;
    const slices = softwareAdapter(backend) ? 1 : 32;
    if (model.layers.length === 0) throw new Error('the decoding engine needs at least one layer');
    this.layout = layerLayout(model);
    gpuCounts.objectsCreated++;
    const step = device.createBuffer({
      label: 'step',
      size: STEP_BYTES,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    this.ctx = {
      device,
      backend,
      model,
      step,
      params: model.layers.map((_, i) =>
        storageBuffer(device, this.layout.floats * 4, `layer ${i} params`),
      ),
      globals: storageBuffer(device, model.width * 4, 'final norm'),
      fixed: fixedPipelines(device, model, this.layout, slices),
      slices,
    };
  }

  /** The linear kernels for a tile of `rows` rows, made once. */
  private kernelsFor(rows: number): Kernels {
    let kernels = this.kernels.get(rows);
    if (!kernels) {
      const { device, model, slices } = this.ctx;
      kernels = linearPipelines(device, model, this.layout, slices, rows);
      this.kernels.set(rows, kernels);
    }
    return kernels;
  }

  /**
   * Readies the engine for a generation: at most `positions` query rows a call (prefill's
   * chunk), `sequences` sequences sampled at once, and a cache of `cacheRows` rows of `capacity`
   * slots; copies the current small parameters in (the adapters change between updates). Reuses
   * the buffers while they are large enough.
   */
  begin(positions: number, sequences: number, cacheRows: number, capacity: number): void {
    this.checkLive();
    const { device, backend, model, params, globals } = this.ctx;
    const current = this.buffers;
    const want = {
      rows: Math.max(positions, sequences),
      sequences,
      cacheRows: Math.max(cacheRows, sequences),
      capacity,
    };
    if (
      !current ||
      current.rows < want.rows ||
      current.sequences < want.sequences ||
      current.cacheRows < want.cacheRows ||
      current.capacity < want.capacity
    ) {
      if (current) freeBuffers(current);
      this.buffers = allocateBuffers(
        device,
        model,
        Math.max(want.rows, current?.rows ?? 0),
        Math.max(want.sequences, current?.sequences ?? 0),
        Math.max(want.cacheRows, current?.cacheRows ?? 0),
        Math.max(want.capacity, current?.capacity ?? 0),
      );
    }
    const encoder = device.createCommandEncoder();
    model.layers.forEach((layer, i) => {
      for (const copy of this.layout.copies)
        encoder.copyBufferToBuffer(
          bufferOf(backend, copy.tensor(layer)),
          0,
          params[i]!,
          copy.offset * 4,
          copy.size * 4,
        );
    });
    encoder.copyBufferToBuffer(bufferOf(backend, model.finalNorm), 0, globals, 0, model.width * 4);
    this.submit(encoder);
  }

  private requireBuffers(): Buffers {
    if (!this.buffers) throw new Error('the decoding engine has no buffers: call begin() first');
    return this.buffers;
  }

  private writeStep(fields: {
    rows: number;
    lora: boolean;
    slots: number;
    scale: number;
    greedy: boolean;
  }): void {
    const view = new DataView(this.stepData);
    view.setUint32(0, fields.rows, true);
    view.setUint32(4, fields.lora ? 1 : 0, true);
    view.setUint32(8, fields.slots, true);
    view.setFloat32(12, fields.scale, true);
    view.setUint32(16, fields.greedy ? 1 : 0, true);
    view.setUint32(20, this.requireBuffers().capacity, true);
    this.ctx.device.queue.writeBuffer(this.ctx.step, 0, this.stepData);
  }

  private stepFields(rows: number, places: RowPlace[], options: StepOptions) {
    return {
      rows,
      lora: options.lora,
      slots: places.reduce((max, p) => Math.max(max, p.slot + 1), 0),
      scale: options.temperature > 0 ? 1 / options.temperature : 1,
      greedy: options.temperature === 0,
    };
  }

  private openPass(): GPUComputePassEncoder {
    if (!this.pass) {
      this.encoder = this.ctx.device.createCommandEncoder();
      this.pass = this.encoder.beginComputePass();
    }
    return this.pass;
  }

  private closePass(): GPUCommandEncoder {
    if (!this.pass || !this.encoder) throw new Error('no commands recorded');
    this.pass.end();
    const encoder = this.encoder;
    this.pass = null;
    this.encoder = null;
    return encoder;
  }

  /** Submits our commands after whatever tfjs has recorded (uploads of tensors we bind). */
  private submit(encoder: GPUCommandEncoder): void {
    flushTfjs(this.ctx.backend);
    this.ctx.device.queue.submit([encoder.finish()]);
    gpuCounts.submits++;
  }

  /**
   * Writes cached keys and values (a prefix entry's, per layer (1, kvHeads, L, hd) tensors) into
   * cache row `row` at slots [firstSlot, firstSlot + L).
   */
  preload(row: number, keys: tf.Tensor[], values: tf.Tensor[], firstSlot: number): void {
    const b = this.requireBuffers();
    const { device, backend, model } = this.ctx;
    const encoder = device.createCommandEncoder();
    recordPreload(encoder, backend, model, b, row, { keys, values }, firstSlot);
    this.submit(encoder);
  }

  /**
   * Copies one cache row's slots of `ranges` ([start, end) pairs) into new (1, kvHeads, n, hd)
   * tensors made by `make` (the caller's backend), per layer: a finished sequence's cache for a
   * later turn.
   */
  extract(
    row: number,
    ranges: [number, number][],
    make: (shape: number[]) => tf.Tensor,
  ): { keys: tf.Tensor[]; values: tf.Tensor[] } {
    const b = this.requireBuffers();
    const { device, backend, model } = this.ctx;
    const { runs, length } = cacheRuns(ranges);
    const shape = [1, model.kvHeads, length, model.headDim];
    const out = {
      keys: model.layers.map(() => make(shape)),
      values: model.layers.map(() => make(shape)),
    };
    if (length === 0) return out;
    const encoder = device.createCommandEncoder();
    recordExtract(encoder, backend, model, b, row, runs, out);
    this.submit(encoder);
    return out;
  }

  /**
   * Runs prompt positions (prefill): `tokens` at `places`, in tiles of 16 rows, and submits. Their
   * logits come from sample(), which names each sequence's last position.
   */
  prefill(tokens: Int32Array, places: RowPlace[], rope: Float32Array, options: StepOptions): void {
    this.checkLive();
    if (this.pass) throw new Error('prefill: a decoding step is recorded and not yet sampled');
    this.writeStep(this.stepFields(tokens.length, places, options));
    const b = this.requireBuffers();
    const kernels = this.kernelsFor(TILE_ROWS);
    recordLayers(this.ctx, b, this.openPass(), tokens, places, rope, kernels, false);
    this.submit(this.closePass());
  }

  /**
   * Records one new token for each live sequence (tokens[i] at places[i], its newest slot); the
   * step is submitted by the sample() that follows, with the head and sampling: one submit a token.
   */
  recordDecode(
    tokens: Int32Array,
    places: RowPlace[],
    rope: Float32Array,
    options: StepOptions,
  ): void {
    this.checkLive();
    if (this.pass) throw new Error('recordDecode: the previous step was not sampled');
    const n = tokens.length;
    this.writeStep(this.stepFields(n, places, options));
    const b = this.requireBuffers();
    const kernels = this.kernelsFor(decodeTile(n));
    recordLayers(this.ctx, b, this.openPass(), tokens, places, rope, kernels, true);
    this.pending = n;
    gpuCounts.decodeSteps++;
  }

  /**
   * One token for each sequence i from the logits of position row gather[i] (after a prefill: its
   * prompt's last position; after recordDecode: row i), with uniforms[i] from its own stream.
   */
  async sample(
    gather: Uint32Array,
    uniforms: Float32Array,
    options: StepOptions,
  ): Promise<Sampled> {
    this.checkLive();
    const sequences = gather.length;
    if (this.pass) {
      if (this.pending !== sequences)
        throw new Error(`sample: ${sequences} sequences after a step of ${this.pending}`);
    } else {
      this.writeStep(this.stepFields(sequences, [], options));
      this.openPass();
    }
    this.pending = null;
    const b = this.requireBuffers();
    const kernels = this.kernelsFor(decodeTile(sequences));
    recordHeadAndSample(this.ctx, b, this.pass!, gather, uniforms, kernels);
    return this.readSampled(this.closePass(), sequences);
  }

  /** Submits the step and reads back each sequence's id and log-prob (8 bytes a sequence). */
  private async readSampled(encoder: GPUCommandEncoder, sequences: number): Promise<Sampled> {
    await checkPipelines();
    const b = this.requireBuffers();
    const bytes = sequences * 8;
    encoder.copyBufferToBuffer(b.picked, 0, b.readback, 0, bytes);
    this.submit(encoder);
    await b.readback.mapAsync(GPUMapMode.READ, 0, bytes);
    const words = new Uint32Array(b.readback.getMappedRange(0, bytes).slice(0));
    b.readback.unmap();
    gpuCounts.readbackBytes += bytes;
    const ids = new Int32Array(sequences);
    const logprobs = new Float32Array(sequences);
    const floats = new Float32Array(words.buffer);
    for (let i = 0; i < sequences; i++) {
      ids[i] = words[2 * i]!;
      logprobs[i] = floats[2 * i + 1]!;
    }
    return { ids, logprobs };
  }

  /** Copies cache rows (src, dst), the first `slots` slots, every layer. */
  copyRows(pairs: [number, number][], slots: number): void {
    if (pairs.length === 0) return;
    const b = this.requireBuffers();
    const { device, model, step, fixed } = this.ctx;
    write(device.queue, b.pairs, Uint32Array.from(pairs.flat()));
    this.writeStep({ rows: pairs.length, lora: false, slots, scale: 1, greedy: true });
    const pass = this.openPass();
    const per = model.kvHeads * slots * model.headDim;
    model.layers.forEach((_, i) => {
      const copy = group(this.ctx, b, `copy ${i}`, fixed.tokens.copyRows, () => [
        step,
        b.pairs,
        b.keys[i]!,
        b.values[i]!,
      ]);
      dispatch(pass, fixed.tokens.copyRows, copy, Math.ceil(per / 256), pairs.length);
    });
    this.submit(this.closePass());
  }

  /** Drops a recorded step that will not be sampled (its generate() failed). */
  abandon(): void {
    if (!this.pass) return;
    this.pass.end();
    this.pass = null;
    this.encoder = null;
    this.pending = null;
  }

  private checkLive(): void {
    if (this.disposed) throw new Error('the decoding engine was disposed');
  }

  /** Frees every buffer the engine made (the weights stay tfjs's). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.buffers) freeBuffers(this.buffers);
    this.buffers = null;
    for (const p of this.ctx.params) p.destroy();
    this.ctx.globals.destroy();
    this.ctx.step.destroy();
  }
}

/** The linear kernels' row tile for a decoding step of `rows` sequences: a power of two, at most 16. */
function decodeTile(rows: number): number {
  return Math.min(TILE_ROWS, 2 ** Math.ceil(Math.log2(Math.max(1, rows))));
}
