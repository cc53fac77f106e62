// generate()'s decoding steps on the WebGPU engine (kernels/webgpu/decoding_engine.ts) for a model
// whose frozen weights are 16-bit on the GPU: the engine is built once per model (its pipelines
// and buffers kept), its small parameters refreshed at each generate() (the adapters change
// between updates). Sequence b keeps cache row b for its whole generation; prompts shared by
// several sequences are prefilled once into rows past the sequences' and copied.
//
// The same steps as the reference decoder (decoding.ts): the same places, RoPE tables, masks and
// uniforms from each sequence's stream; sampled on the GPU (wgsl_tokens.ts), one submit and 8
// bytes read back a token.
import * as tf from '@tensorflow/tfjs';
import { emptyTensor } from '../kernels/webgpu/adamw.ts';
import {
  DecodingEngine,
  type EngineLinear,
  type EngineModel,
  type RowPlace,
} from '../kernels/webgpu/decoding_engine.ts';
import type { Packed16 } from '../kernels/webgpu/packed16.ts';
import type { Decoder, Drawn, QueryRows } from './decoding.ts';
import { fastPaths } from './fast_paths.ts';
import { isHalf } from './half_weight.ts';
import type { CausalLM } from './model.ts';
import type { Linear, VocabWeight } from './params.ts';
import type { PrefixEntry } from './prefix_cache.ts';
import type { Rng } from './rng.ts';

const engines = new WeakMap<CausalLM, DecodingEngine | null>();

/** The 16-bit GPU copy of a weight, or null where it is not one. */
function packedOf(weight: VocabWeight): Packed16 | null {
  return isHalf(weight) ? weight.packed : null;
}

/** The engine's view of a model, or null where some weight is not 16-bit on the GPU. */
export function engineModel(model: CausalLM): EngineModel | null {
  const { config, params } = model;
  const embedding = packedOf(params.embedding);
  const head = params.lmHead ? packedOf(params.lmHead) : embedding;
  if (!embedding || !head) return null;
  const linear = (l: Linear): EngineLinear | null => {
    const weight = packedOf(l.weight);
    if (!weight) return null;
    return {
      weight,
      bias: l.bias,
      lora: l.adapter ? { a: l.adapter.a, b: l.adapter.b, scale: l.adapter.scale } : null,
    };
  };
  const layers: EngineModel['layers'] = [];
  for (const layer of params.layers) {
    const p = layer.projections;
    const [q, k, v, o, gate, up, down] = [
      p.q_proj,
      p.k_proj,
      p.v_proj,
      p.o_proj,
      p.gate_proj,
      p.up_proj,
      p.down_proj,
    ].map(linear);
    if (!q || !k || !v || !o || !gate || !up || !down) return null;
    layers.push({
      inputNorm: layer.inputNorm,
      postNorm: layer.postAttentionNorm,
      queryNorm: layer.queryNorm,
      keyNorm: layer.keyNorm,
      q,
      k,
      v,
      o,
      gate,
      up,
      down,
    });
  }
  return {
    kind: embedding.kind,
    width: config.hiddenSize,
    ffn: config.intermediateSize,
    heads: config.numHeads,
    kvHeads: config.numKvHeads,
    headDim: config.headDim,
    vocab: config.vocabSize,
    eps: config.rmsNormEps,
    embedding,
    head,
    finalNorm: params.finalNorm,
    layers,
  };
}

/** The model's decoding engine, made at first use; null where the engine does not serve it. */
export function decodingEngine(model: CausalLM): DecodingEngine | null {
  if (engines.has(model)) return engines.get(model)!;
  const backend = fastPaths.webGpu();
  const description = backend ? engineModel(model) : null;
  const engine = backend && description ? new DecodingEngine(backend, description) : null;
  engines.set(model, engine);
  if (engine) model.onDispose(() => engine.dispose());
  return engine;
}

/**
 * generate()'s decoder on the engine, or null where the engine does not serve the model (a weight
 * not 16-bit on the GPU). Only where the seam answers 'webgpu' (fast_paths.ts decoding()).
 */
export function gpuDecoder(
  model: CausalLM,
  shape: { sequences: number; prompts: number; positions: number; capacity: number },
): Decoder | null {
  const engine = decodingEngine(model);
  return engine ? new GpuDecoder(model, engine, shape) : null;
}

class GpuDecoder implements Decoder {
  /** Cache row of each batch row (sequences keep theirs; rows leave the batch). */
  private rows: number[];
  /** Row of the positions each sequence samples from next (prefill's last; then its own). */
  private gather: Uint32Array | null = null;
  private readonly sharing: boolean;

  constructor(
    private readonly model: CausalLM,
    private readonly engine: DecodingEngine,
    private readonly shape: {
      sequences: number;
      prompts: number;
      positions: number;
      capacity: number;
    },
  ) {
    this.sharing = shape.prompts < shape.sequences;
    this.rows = Array.from({ length: shape.sequences }, (_, b) => b);
    engine.begin(
      Math.max(shape.positions, shape.sequences),
      shape.sequences,
      shape.sequences + (this.sharing ? shape.prompts : 0),
      shape.capacity,
    );
  }

  preload(entries: (PrefixEntry | null)[], base: number): void {
    entries.forEach((entry, b) => {
      if (!entry) return;
      this.engine.preload(b, entry.keys, entry.values, base - entry.ids.length);
      // copied (submitted): the entry's tensors can go (generate() disposes entries again)
      tf.dispose([...entry.keys, ...entry.values]);
    });
  }

  async prefill(rows: QueryRows, last: boolean): Promise<void> {
    // a prompt shared by several sequences is prefilled in a row of its own past theirs
    const places = this.sharing
      ? rows.places.map((p): RowPlace => ({ ...p, cacheRow: this.shape.sequences + p.cacheRow }))
      : rows.places;
    this.engine.prefill(rows.ids, places, this.model.rope.interleaved(rows.positions), {
      lora: this.model.adaptersEnabled,
      temperature: this.temperature,
    });
    if (last) {
      // each prompt's last position feeds its first token
      this.lastTime = rows.time;
      this.gather = Uint32Array.from(
        { length: rows.batch },
        (_, u) => u * rows.time + rows.time - 1,
      );
    }
  }

  /** Positions a prompt had in the last prefill call. */
  private lastTime = 1;

  expand(rowOf: number[], slots: number): void {
    this.engine.copyRows(
      rowOf.map((u, b) => [this.shape.sequences + u, b]),
      slots,
    );
    const time = this.lastTime;
    this.gather = Uint32Array.from(rowOf, (u) => u * time + time - 1);
  }

  async sample(live: number[], temperature: number, streams: Rng[]): Promise<Drawn[]> {
    const uniforms = Float32Array.from(live, (index) =>
      temperature > 0 ? streams[index]!.uniform() : 0,
    );
    const gather = this.gather ?? Uint32Array.from(live, (_, row) => row);
    this.gather = null;
    this.temperature = temperature;
    const { ids, logprobs } = await this.engine.sample(gather, uniforms, {
      lora: this.model.adaptersEnabled,
      temperature,
    });
    return Array.from(ids, (id, row) => ({ id, logprob: logprobs[row]! }));
  }

  async decode(rows: QueryRows): Promise<void> {
    this.engine.recordDecode(rows.ids, rows.places, this.model.rope.interleaved(rows.positions), {
      lora: this.model.adaptersEnabled,
      temperature: this.temperature,
    });
  }

  /** The temperature sample() last used (recordDecode writes it into the step's uniforms). */
  private temperature = 1;

  retire(
    taken: { row: number; ranges: [number, number][] }[],
    kept: number[],
  ): { keys: tf.Tensor[]; values: tf.Tensor[] }[] {
    const backend = fastPaths.webGpu()!;
    const parts = taken.map(({ row, ranges }) =>
      this.engine.extract(this.rows[row]!, ranges, (shape) => emptyTensor(backend, shape)),
    );
    this.rows = kept.map((row) => this.rows[row]!);
    return parts;
  }

  dispose(): void {
    this.engine.abandon();
  }
}
