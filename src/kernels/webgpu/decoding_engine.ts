/// <reference types="@webgpu/types" />
// Decoding on WebGPU as a handful of fused kernels a layer, sharing tfjs's GPUDevice and its
// weight buffers: a token is one command encoder, one submit and one read-back of 8 bytes a
// sequence (its id and log-prob); pipelines, bind groups and buffers are made once per model and
// batch shape, and reused while they fit. This file records the dispatches; the pipelines are
// built in engine_pipelines.ts, the buffers in engine_buffers.ts.
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
import { ROW_WORDS } from './wgsl_attention.ts';
import { STEP_BYTES } from './wgsl_common.ts';
import { linearWorkgroups } from './wgsl_linear.ts';
import { sampleBlocks } from './wgsl_tokens.ts';
import {
  type WebGpuBackendLike,
  bindBuffers,
  bufferOf,
  checkPipelines,
  dispatch,
  flushTfjs,
  gpuCounts,
  grid,
  softwareAdapter,
  storageBuffer,
} from './gpu.ts';
import { allocateBuffers, type Buffers, freeBuffers } from './engine_buffers.ts';
import {
  type FixedPipelines,
  type Kernels,
  fixedPipelines,
  linearPipelines,
} from './engine_pipelines.ts';
import {
  type EngineLinear,
  type EngineModel,
  type LayerLayout,
  layerLayout,
} from './engine_model.ts';

export type { EngineLayer, EngineLinear, EngineModel } from './engine_model.ts';

/** A query row's place in the cache: its row, its slot and its sequence's hidden slots. */
export interface RowPlace {
  cacheRow: number;
  slot: number;
  /** Slots [0, hide0) and [hide1, hide2) are hidden from it. */
  hide0: number;
  hide1: number;
  hide2: number;
}

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

/** queue.writeBuffer for any typed array (the DOM types want an ArrayBuffer-backed view). */
function write(queue: GPUQueue, buffer: GPUBuffer, data: ArrayBufferView): void {
  queue.writeBuffer(buffer, 0, data as ArrayBufferView<ArrayBuffer>);
}

/** Rows a linear kernel's workgroup takes (the prefill tile; decoding takes min(this, batch)). */
const TILE_ROWS = 16;

/** The decoding engine of one model on the webgpu backend. */
export class DecodingEngine {
  private readonly device: GPUDevice;
  private readonly layout: LayerLayout;
  private readonly params: GPUBuffer[];
  private readonly globals: GPUBuffer;
  private readonly step: GPUBuffer;
  private readonly kernels = new Map<number, Kernels>();
  private readonly attention: FixedPipelines['attention'];
  private readonly tokens: FixedPipelines['tokens'];
  private buffers: Buffers | null = null;
  /** Threads a column in the linear kernels: 1 on a software adapter, 32 on a GPU. */
  private readonly slices: number;
  private encoder: GPUCommandEncoder | null = null;
  private pass: GPUComputePassEncoder | null = null;
  private readonly stepData = new ArrayBuffer(STEP_BYTES);
  private disposed = false;

  constructor(
    private readonly backend: WebGpuBackendLike,
    private readonly model: EngineModel,
  ) {
    this.device = backend.device;
    this.slices = softwareAdapter(backend) ? 1 : 32;
    if (model.layers.length === 0) throw new Error('the decoding engine needs at least one layer');
    this.layout = layerLayout(model);
    this.params = model.layers.map((_, i) =>
      storageBuffer(this.device, this.layout.floats * 4, `layer ${i} params`),
    );
    this.globals = storageBuffer(this.device, model.width * 4, 'final norm');
    this.step = (() => {
      gpuCounts.objectsCreated++;
      return this.device.createBuffer({
        label: 'step',
        size: STEP_BYTES,
        usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
      });
    })();
    const fixed = fixedPipelines(this.device, model, this.layout, this.slices);
    this.attention = fixed.attention;
    this.tokens = fixed.tokens;
  }

  /** The linear kernels for a tile of `rows` rows, made once. */
  private kernelsFor(rows: number): Kernels {
    let kernels = this.kernels.get(rows);
    if (!kernels) {
      kernels = linearPipelines(this.device, this.model, this.layout, this.slices, rows);
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
        this.device,
        this.model,
        Math.max(want.rows, current?.rows ?? 0),
        Math.max(want.sequences, current?.sequences ?? 0),
        Math.max(want.cacheRows, current?.cacheRows ?? 0),
        Math.max(want.capacity, current?.capacity ?? 0),
      );
    }
    const encoder = this.device.createCommandEncoder();
    this.model.layers.forEach((layer, i) => {
      for (const copy of this.layout.copies)
        encoder.copyBufferToBuffer(
          bufferOf(this.backend, copy.tensor(layer)),
          0,
          this.params[i]!,
          copy.offset * 4,
          copy.size * 4,
        );
    });
    encoder.copyBufferToBuffer(
      bufferOf(this.backend, this.model.finalNorm),
      0,
      this.globals,
      0,
      this.model.width * 4,
    );
    this.submit(encoder);
  }

  /** A bind group made once per (buffers, key). */
  private group(
    key: string,
    pipeline: GPUComputePipeline,
    buffers: () => GPUBuffer[],
  ): GPUBindGroup {
    const b = this.requireBuffers();
    let group = b.groups.get(key);
    if (!group) {
      group = bindBuffers(this.device, pipeline, buffers(), key);
      b.groups.set(key, group);
    }
    return group;
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
    this.device.queue.writeBuffer(this.step, 0, this.stepData);
  }

  private openPass(): GPUComputePassEncoder {
    if (!this.pass) {
      this.encoder = this.device.createCommandEncoder();
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
    flushTfjs(this.backend);
    this.device.queue.submit([encoder.finish()]);
    gpuCounts.submits++;
  }

  /**
   * Writes cached keys and values (a prefix entry's, per layer (1, kvHeads, L, hd) tensors) into
   * cache row `row` at slots [firstSlot, firstSlot + L).
   */
  preload(row: number, keys: tf.Tensor[], values: tf.Tensor[], firstSlot: number): void {
    const b = this.requireBuffers();
    const { kvHeads: Hkv, headDim: hd } = this.model;
    const encoder = this.device.createCommandEncoder();
    for (let layer = 0; layer < this.model.layers.length; layer++) {
      for (const [store, entries] of [
        [b.keys, keys],
        [b.values, values],
      ] as const) {
        const source = entries[layer]!;
        const L = source.shape[2]!;
        if (L === 0) continue;
        const from = bufferOf(this.backend, source);
        for (let j = 0; j < Hkv; j++)
          encoder.copyBufferToBuffer(
            from,
            j * L * hd * 4,
            store[layer]!,
            ((row * Hkv + j) * b.capacity + firstSlot) * hd * 4,
            L * hd * 4,
          );
      }
    }
    this.submit(encoder);
  }

  /** Runs the decoder layers over `tokens` (one a query row) at their places. */
  private layers(
    pass: GPUComputePassEncoder,
    tokens: Int32Array,
    places: RowPlace[],
    rope: Float32Array,
    kernels: Kernels,
    decode: boolean,
  ): void {
    const b = this.requireBuffers();
    const n = tokens.length;
    const queue = this.device.queue;
    write(queue, b.tokens, tokens);
    const placeWords = new Uint32Array(n * ROW_WORDS);
    places.forEach((p, i) => {
      placeWords.set([p.cacheRow, p.slot, p.hide0, p.hide1, p.hide2], i * ROW_WORDS);
    });
    write(queue, b.places, placeWords);
    write(queue, b.rope, rope);
    const tiles = Math.ceil(n / kernels.rows);
    const embedGroup = this.group('embed', this.tokens.embed, () => [
      this.step,
      b.tokens,
      b.x,
      ...this.model.embedding.chunks.map((c) => bufferOf(this.backend, c.tensor)),
    ]);
    dispatch(pass, this.tokens.embed, embedGroup, ...grid(n));
    const { model } = this;
    const weight = (linear: EngineLinear) =>
      bufferOf(this.backend, linear.weight.chunks[0]!.tensor);
    model.layers.forEach((layer, i) => {
      const params = this.params[i]!;
      const key = `${kernels.rows}:${i}`;
      const qkv = this.group(`qkv ${key}`, kernels.qkv, () => [
        this.step,
        params,
        b.x,
        b.qkv,
        weight(layer.q),
        weight(layer.k),
        weight(layer.v),
      ]);
      dispatch(pass, kernels.qkv, qkv, linearWorkgroups(kernels.specs.qkv), tiles);
      const attentionBuffers = () => [
        this.step,
        params,
        b.qkv,
        b.places,
        b.rope,
        b.keys[i]!,
        b.values[i]!,
      ];
      if (decode) {
        const group = this.group(`attend ${i}`, this.attention.decode, () => [
          ...attentionBuffers(),
          b.context,
        ]);
        dispatch(pass, this.attention.decode, group, ...this.attentionGrid(n, model.heads));
      } else {
        const write = this.group(`write ${i}`, this.attention.write, attentionBuffers);
        dispatch(pass, this.attention.write, write, ...this.attentionGrid(n, model.kvHeads));
        const group = this.group(`prefill ${i}`, this.attention.prefill, () => [
          ...attentionBuffers(),
          b.context,
        ]);
        dispatch(pass, this.attention.prefill, group, ...this.attentionGrid(n, model.heads));
      }
      const o = this.group(`o ${key}`, kernels.o, () => [
        this.step,
        params,
        b.context,
        b.h,
        b.x,
        weight(layer.o),
      ]);
      dispatch(pass, kernels.o, o, linearWorkgroups(kernels.specs.o), tiles);
      const gateUp = this.group(`gateUp ${key}`, kernels.gateUp, () => [
        this.step,
        params,
        b.h,
        b.mlp,
        weight(layer.gate),
        weight(layer.up),
      ]);
      dispatch(pass, kernels.gateUp, gateUp, linearWorkgroups(kernels.specs.gateUp), tiles);
      const down = this.group(`down ${key}`, kernels.down, () => [
        this.step,
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
   * The final norm of the rows `gather` names (one a sequence), the head, and the three sampling
   * passes: sequence i samples from the logits of row gather[i] with uniforms[i].
   */
  private headAndSample(
    pass: GPUComputePassEncoder,
    gather: Uint32Array,
    uniforms: Float32Array,
    kernels: Kernels,
  ): void {
    const b = this.requireBuffers();
    const queue = this.device.queue;
    const sequences = gather.length;
    write(queue, b.gather, gather);
    const sampling = new Uint32Array(2 * sequences);
    const bits = new Uint32Array(uniforms.buffer, uniforms.byteOffset, uniforms.length);
    for (let i = 0; i < sequences; i++) {
      sampling[2 * i] = i;
      sampling[2 * i + 1] = bits[i]!;
    }
    write(queue, b.sampling, sampling);
    const norm = this.group('final norm', this.tokens.finalNorm, () => [
      this.step,
      this.globals,
      b.x,
      b.gather,
      b.normed,
    ]);
    dispatch(pass, this.tokens.finalNorm, norm, sequences);
    const head = this.group(`head ${kernels.rows}`, kernels.head, () => [
      this.step,
      this.globals, // (unread: the head has no norm, bias or adapter)
      b.normed,
      b.logits,
      ...this.model.head.chunks.map((c) => bufferOf(this.backend, c.tensor)),
    ]);
    dispatch(
      pass,
      kernels.head,
      head,
      linearWorkgroups(kernels.specs.head),
      Math.ceil(sequences / kernels.rows),
    );
    const blocks = sampleBlocks(this.model.vocab);
    const samplingBuffers = () => [this.step, b.logits, b.sampling, b.stats];
    dispatch(
      pass,
      this.tokens.sampleMax,
      this.group('sample max', this.tokens.sampleMax, samplingBuffers),
      blocks,
      sequences,
    );
    dispatch(
      pass,
      this.tokens.sampleSum,
      this.group('sample sum', this.tokens.sampleSum, samplingBuffers),
      blocks,
      sequences,
    );
    dispatch(
      pass,
      this.tokens.samplePick,
      this.group('sample pick', this.tokens.samplePick, () => [...samplingBuffers(), b.picked]),
      sequences,
    );
  }

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

  /**
   * Runs prompt positions (prefill): `tokens` at `places`, in tiles of 16 rows, and submits. Their
   * logits come from sample(), which names each sequence's last position.
   */
  prefill(tokens: Int32Array, places: RowPlace[], rope: Float32Array, options: StepOptions): void {
    this.checkLive();
    if (this.pass) throw new Error('prefill: a decoding step is recorded and not yet sampled');
    this.writeStep(this.stepFields(tokens.length, places, options));
    this.layers(this.openPass(), tokens, places, rope, this.kernelsFor(TILE_ROWS), false);
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
    this.layers(this.openPass(), tokens, places, rope, this.kernelsFor(this.decodeTile(n)), true);
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
    this.headAndSample(this.pass!, gather, uniforms, this.kernelsFor(this.decodeTile(sequences)));
    return this.readSampled(this.closePass(), sequences);
  }

  private pending: number | null = null;

  private stepFields(rows: number, places: RowPlace[], options: StepOptions) {
    return {
      rows,
      lora: options.lora,
      slots: places.reduce((max, p) => Math.max(max, p.slot + 1), 0),
      scale: options.temperature > 0 ? 1 / options.temperature : 1,
      greedy: options.temperature === 0,
    };
  }

  /** Copies cache rows (src, dst), the first `slots` slots, every layer. */
  copyRows(pairs: [number, number][], slots: number): void {
    if (pairs.length === 0) return;
    const b = this.requireBuffers();
    write(this.device.queue, b.pairs, Uint32Array.from(pairs.flat()));
    this.writeStep({ rows: pairs.length, lora: false, slots, scale: 1, greedy: true });
    const pass = this.openPass();
    const per = this.model.kvHeads * slots * this.model.headDim;
    this.model.layers.forEach((_, i) => {
      const group = this.group(`copy ${i}`, this.tokens.copyRows, () => [
        this.step,
        b.pairs,
        b.keys[i]!,
        b.values[i]!,
      ]);
      dispatch(pass, this.tokens.copyRows, group, Math.ceil(per / 256), pairs.length);
    });
    this.submit(this.closePass());
  }

  /** Workgroups of an attention kernel over rows x heads: a workgroup each, or 64 threads each. */
  private attentionGrid(rows: number, heads: number): [number, number] {
    return this.slices === 1 ? [Math.ceil((rows * heads) / 64), 1] : [rows, heads];
  }

  private decodeTile(rows: number): number {
    return Math.min(TILE_ROWS, 2 ** Math.ceil(Math.log2(Math.max(1, rows))));
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
    const { kvHeads: Hkv, headDim: hd } = this.model;
    const runs = ranges.filter(([start, end]) => end > start);
    const length = runs.reduce((sum, [start, end]) => sum + end - start, 0);
    const out = { keys: [] as tf.Tensor[], values: [] as tf.Tensor[] };
    const made: tf.Tensor[] = [];
    for (let layer = 0; layer < this.model.layers.length; layer++) {
      const k = make([1, Hkv, length, hd]);
      const v = make([1, Hkv, length, hd]);
      made.push(k, v);
      out.keys.push(k);
      out.values.push(v);
    }
    if (length === 0) return out;
    const encoder = this.device.createCommandEncoder();
    for (let layer = 0; layer < this.model.layers.length; layer++) {
      for (const [store, target] of [
        [b.keys, out.keys[layer]!],
        [b.values, out.values[layer]!],
      ] as const) {
        const to = bufferOf(this.backend, target);
        for (let j = 0; j < Hkv; j++) {
          let at = 0;
          for (const [start, end] of runs) {
            encoder.copyBufferToBuffer(
              store[layer]!,
              ((row * Hkv + j) * b.capacity + start) * hd * 4,
              to,
              (j * length + at) * hd * 4,
              (end - start) * hd * 4,
            );
            at += end - start;
          }
        }
      }
    }
    this.submit(encoder);
    return out;
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
    for (const p of this.params) p.destroy();
    this.globals.destroy();
    this.step.destroy();
  }
}
