// The policy's model: a Llama / Qwen2 / Qwen3 decoder loaded from a Hugging Face folder, with two
// faces over one set of weights: sampling with a KV cache (sample.ts) and differentiable token
// log-probs (logprobs.ts). LoRA adapters can be switched off to get the base model back.
import * as tf from '@tensorflow/tfjs';
import { readWeightFiles } from '../model_files/weight_files.ts';
import { parseModelConfig, type ModelConfig } from '../model_files/hf_config.ts';
import { decoderForward, outputLogits, type DecoderParts, type ForwardMode } from './decoder.ts';
import { maskBias } from './kv_cache.ts';
import { validateLoraConfig, type LoraConfig } from './lora.ts';
import {
  adapterVariables,
  attachAdapters,
  baseVariables,
  disposeParams,
  loadParams,
  type DecoderParams,
  type WeightSource,
} from './params.ts';
import { Rope } from './rope.ts';
import { fastPaths } from './fast_paths.ts';
import { readJson, type ModelSource } from '../model_files/source.ts';

/** Which weights train: none (inference), all of them (tiny models), or LoRA adapters only. */
export type TrainingMode = { kind: 'none' } | { kind: 'full' } | { kind: 'lora'; lora: LoraConfig };

/** Options for loading a model. */
export interface LoadOptions {
  training?: TrainingMode;
  onProgress?: (loadedBytes: number, totalBytes: number | null) => void;
}

/** A causal language model with its weights on the active tfjs backend. */
export class CausalLM implements DecoderParts {
  readonly rope: Rope;
  private adaptersOn = true;
  private readonly releases: (() => void)[] = [];

  private constructor(
    readonly config: ModelConfig,
    readonly params: DecoderParams,
    readonly training: TrainingMode,
  ) {
    this.rope = new Rope(config);
  }

  /** Loads config.json and the safetensors weights from a source. */
  static async load(source: ModelSource, options: LoadOptions = {}): Promise<CausalLM> {
    const config = parseModelConfig(
      await readJson(source, 'config.json'),
      `${source.name}/config.json`,
    );
    const weights = await readWeightFiles(source, options.onProgress);
    return CausalLM.fromWeights(config, weights, options.training);
  }

  /** Builds a model from HF-layout tensors already in memory (tests, generated models). */
  static fromWeights(
    config: ModelConfig,
    weights: WeightSource,
    training: TrainingMode = { kind: 'none' },
  ): CausalLM {
    if (training.kind === 'lora') validateLoraConfig(training.lora);
    // frozen base weights stay 16-bit where the checkpoint ships them so and the kernels exist:
    // the dot store on wasm, GPU buffers on webgpu
    const half = training.kind !== 'full' && fastPaths.weights16() !== 'float32';
    const params = loadParams(config, weights, training.kind === 'full', half);
    if (training.kind === 'lora') attachAdapters(params, training.lora);
    return new CausalLM(config, params, training);
  }

  /**
   * Whether LoRA adapters take part in forward passes (true unless inside withAdaptersDisabled).
   */
  get adaptersEnabled(): boolean {
    return this.adaptersOn;
  }

  /**
   * Runs `fn` with the adapters switched off: the base model, i.e. the KL reference. Works for
   * synchronous and asynchronous functions (the switch stays off until the promise settles).
   */
  withAdaptersDisabled<T>(fn: () => T): T {
    const previous = this.adaptersOn;
    this.adaptersOn = false;
    let result: T;
    try {
      result = fn();
    } catch (error) {
      this.adaptersOn = previous;
      throw error;
    }
    if (result instanceof Promise) {
      return result.finally(() => {
        this.adaptersOn = previous;
      }) as T;
    }
    this.adaptersOn = previous;
    return result;
  }

  /** The forward mode for the current adapter switch. */
  forwardMode(differentiable: boolean): ForwardMode {
    return { differentiable, adapters: this.adaptersOn };
  }

  /** Variables the optimizer updates, by name: every weight (full) or the LoRA factors (lora). */
  trainableVariables(): Map<string, tf.Variable> {
    if (this.training.kind === 'full') return baseVariables(this.params);
    if (this.training.kind === 'lora') return adapterVariables(this.params);
    return new Map();
  }

  /** Float32 logits (T, V) of one sequence, every position (the CLI's `logits` command). */
  logits(ids: number[]): Float32Array[] {
    this.checkIds([ids]);
    const T = ids.length;
    const rows = tf.tidy(() => {
      const hidden = decoderForward(
        this,
        {
          ids: Int32Array.from(ids),
          batch: 1,
          time: T,
          positions: ids.map((_, t) => t),
          maskBias: maskBias(1, T, T, (_b, i, j) => j <= i),
          causal: true,
        },
        this.forwardMode(false),
      );
      return outputLogits(this.params, hidden);
    });
    const data = rows.dataSync() as Float32Array;
    rows.dispose();
    const V = this.config.vocabSize;
    return ids.map((_, t) => data.slice(t * V, (t + 1) * V));
  }

  /** Throws a clear error for empty sequences or ids outside the vocabulary. */
  checkIds(sequences: number[][]): void {
    const V = this.config.vocabSize;
    sequences.forEach((ids, index) => {
      if (ids.length === 0) throw new Error(`sequence ${index} is empty`);
      const bad = ids.find((id) => !Number.isInteger(id) || id < 0 || id >= V);
      if (bad !== undefined)
        throw new Error(`sequence ${index} has token id ${bad} outside the vocabulary [0, ${V})`);
      if (ids.length > this.config.maxPositions) {
        throw new Error(
          `sequence ${index} has ${ids.length} tokens, more than max_position_embeddings ${this.config.maxPositions}`,
        );
      }
    });
  }

  /** Runs `release` when the model is disposed (what others keep for it: a decoding engine). */
  onDispose(release: () => void): void {
    this.releases.push(release);
  }

  /** Frees all weights. */
  dispose(): void {
    for (const release of this.releases.splice(0)) release();
    disposeParams(this.params);
    this.rope.dispose();
  }
}
