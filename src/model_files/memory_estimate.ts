// How much memory a model needs to train in the tab, computed from its config.json alone, so the
// page can refuse a model that will not fit BEFORE downloading a gigabyte of weights.
//
// What we count (float32 everywhere, as the loader converts BF16/F16 to float32,
// docs/architecture.md §4):
//   weights      every parameter once (the KL reference is the same weights with adapters off)
//   download     the raw file bytes held while converting (BF16/F16: 2 bytes per parameter)
//   adapters     LoRA A and B on q, k, v, o + AdamW's two moments + gradients (4 copies);
//                in full fine-tuning, a gradient and two moments for every weight
//   kvCache      2 (K and V) × layers × kvHeads × headDim × context × sequences decoded together
//   activations  what the backward pass keeps per layer for the sequences of one micro-batch,
//                plus the attention scores (heads × T × T) and one chunk of logits
// It is an estimate, deliberately on the generous side: refusing up front beats a tab that dies
// halfway through a download with "out of memory".
import { parseModelConfig, type ModelConfig } from './hf_config.ts';
import { readJson, type ModelSource } from './source.ts';

/** Sizes of the run that drive the memory beyond the weights. */
export interface RunShape {
  /** Sequences decoded together (group size × prompts per step). */
  sequences: number;
  /** Tokens of the longest packed sequence (prompt + turns × (generated + observation)). */
  contextTokens: number;
  /** Sequences in one training micro-batch. */
  microBatch: number;
  loraRank: number;
  /**
   * Full fine-tuning: every weight gets a gradient and AdamW's two moments (LoRA settings ignored).
   */
  full?: boolean;
  /** Bytes per parameter of the downloaded files (2 for BF16/F16, 4 for F32). */
  fileBytesPerParameter: number;
}

/** A shape for one prompt group of the default run (G = 4, 3 turns of 128 tokens). */
export const DEFAULT_RUN_SHAPE: RunShape = {
  sequences: 4,
  contextTokens: 1024,
  microBatch: 1,
  loraRank: 8,
  fileBytesPerParameter: 2,
};

/** Memory needed to train, in bytes, by part. */
export interface MemoryEstimate {
  parameters: number;
  weightBytes: number;
  downloadBytes: number;
  adapterBytes: number;
  kvCacheBytes: number;
  activationBytes: number;
  /**
   * The peak: weights + the larger of (download while converting) and (adapters + KV +
   * activations).
   */
  totalBytes: number;
  /** The biggest single weight tensor (a GPU buffer must hold it whole). */
  largestTensorBytes: number;
}

/** What the device can give, as far as the page can tell. */
export interface MemoryBudget {
  bytes: number;
  /** Where the limit comes from, for the refusal message. */
  reason: string;
  /** Largest single buffer (WebGPU's maxStorageBufferBindingSize), when known. */
  maxBufferBytes?: number;
}

const FLOAT32 = 4;

/**
 * Number of parameters of a Llama/Qwen2/Qwen3 decoder with this config (biases, q/k norms and tied
 * embeddings included).
 */
export function countParameters(config: ModelConfig): number {
  const {
    vocabSize: V,
    hiddenSize: D,
    intermediateSize: I,
    numLayers: L,
    numHeads: H,
    numKvHeads: KV,
    headDim: hd,
  } = config;
  const attention =
    D * H * hd +
    2 * D * KV * hd +
    H * hd * D +
    (config.qkvBias ? H * hd + 2 * KV * hd : 0) +
    (config.outputBias ? D : 0);
  const mlp = 3 * D * I + (config.mlpBias ? 2 * I + D : 0);
  const norms = 2 * D + (config.qkNorm ? 2 * hd : 0);
  const embeddings = V * D * (config.tieWordEmbeddings ? 1 : 2);
  return embeddings + L * (attention + mlp + norms) + D;
}

/** LoRA parameters on the attention projections q, k, v, o of every layer. */
export function countLoraParameters(config: ModelConfig, rank: number): number {
  const { hiddenSize: D, numLayers: L, numHeads: H, numKvHeads: KV, headDim: hd } = config;
  const perProjection = (inputs: number, outputs: number) => rank * (inputs + outputs);
  return L * (perProjection(D, H * hd) + 2 * perProjection(D, KV * hd) + perProjection(H * hd, D));
}

/** Estimates the memory to load and train `config` with a run of shape `run`. */
export function estimateMemory(
  config: ModelConfig,
  run: RunShape = DEFAULT_RUN_SHAPE,
): MemoryEstimate {
  const {
    vocabSize: V,
    hiddenSize: D,
    intermediateSize: I,
    numLayers: L,
    numHeads: H,
    numKvHeads: KV,
    headDim: hd,
  } = config;
  const parameters = countParameters(config);
  const weightBytes = parameters * FLOAT32;
  const downloadBytes = parameters * run.fileBytesPerParameter;
  // LoRA: parameters, gradients, AdamW m and v; full: gradients and moments of every weight
  const adapterBytes = run.full
    ? parameters * FLOAT32 * 3
    : countLoraParameters(config, run.loraRank) * FLOAT32 * 4;
  const T = run.contextTokens;
  const kvCacheBytes = 2 * L * KV * hd * T * run.sequences * FLOAT32;
  // Per token and layer the backward pass keeps roughly: the residual input, two norms, the
  // attention output, q/k/v, the MLP's gate and up; plus per sequence and layer the softmaxed
  // scores.
  const perTokenLayer = 4 * D + (H + 2 * KV) * hd + 2 * I;
  const logitsChunk = Math.min(T, 256) * V; // log-probs are computed in chunks of positions
  const activationBytes =
    run.microBatch * (L * (T * perTokenLayer + H * T * T) + 2 * logitsChunk) * FLOAT32;
  const largestTensorBytes = Math.max(V * D, D * I, D * H * hd) * FLOAT32;
  const training = adapterBytes + kvCacheBytes + activationBytes;
  return {
    parameters,
    weightBytes,
    downloadBytes,
    adapterBytes,
    kvCacheBytes,
    activationBytes,
    totalBytes: weightBytes + Math.max(downloadBytes, training),
    largestTensorBytes,
  };
}

/** What the page knows about the device (all optional: unknown means "do not limit on it"). */
export interface DeviceFacts {
  backend: 'webgpu' | 'wasm' | 'cpu';
  /** navigator.deviceMemory (GiB, rounded down and capped at 8 by browsers). */
  deviceMemoryGiB?: number | null;
  /** The WebGPU adapter's maxStorageBufferBindingSize. */
  maxBufferBytes?: number | null;
}

const GiB = 1024 ** 3;

/**
 * The memory budget a backend offers. WASM is 32-bit: its heap cannot pass 4 GiB whatever the RAM.
 */
export function memoryBudget(device: DeviceFacts): MemoryBudget {
  const ram =
    device.deviceMemoryGiB && device.deviceMemoryGiB > 0 ? device.deviceMemoryGiB * GiB : null;
  // A tab can use only part of the RAM; browsers report deviceMemory capped at 8 GiB, so it only
  // ever lowers the limit on small devices.
  const ramShare =
    ram !== null
      ? {
          bytes: 0.6 * ram,
          reason: `about 60% of this device's ${device.deviceMemoryGiB} GiB of RAM`,
        }
      : null;
  const base =
    device.backend === 'wasm'
      ? { bytes: 4 * GiB, reason: 'the 4 GiB heap limit of WebAssembly' }
      : device.backend === 'webgpu'
        ? { bytes: 8 * GiB, reason: 'a typical GPU memory budget of 8 GiB' }
        : { bytes: 4 * GiB, reason: 'a typical browser tab limit of 4 GiB' };
  const chosen = ramShare && ramShare.bytes < base.bytes ? ramShare : base;
  const budget: MemoryBudget = { ...chosen };
  if (device.backend === 'webgpu' && device.maxBufferBytes)
    budget.maxBufferBytes = device.maxBufferBytes;
  return budget;
}

/** Bytes as a short human string ("1.9 GB"). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

/** Parameters as a short human string ("135M", "494M", "2.1M"). */
export function formatParameters(count: number): string {
  if (count >= 1e9) return `${(count / 1e9).toFixed(1)}B`;
  if (count >= 1e6) return `${count >= 1e8 ? (count / 1e6).toFixed(0) : (count / 1e6).toFixed(1)}M`;
  if (count >= 1e3) return `${(count / 1e3).toFixed(0)}K`;
  return String(count);
}

/** How an estimate compares with a budget. */
export type MemoryFit = 'fits' | 'tight' | 'too_large';

/**
 * Whether the estimate fits the budget, with a message saying why and what to do. `too_large`
 * (refuse before downloading) only for what is certain: loading alone exceeds the budget, or one
 * tensor exceeds the largest GPU buffer. `tight`: it loads, but training at these settings may run
 * out of memory (the activation part assumes every turn runs to its token limit, a worst case).
 */
export function memoryVerdict(
  estimate: MemoryEstimate,
  budget: MemoryBudget,
  name: string,
): { fit: MemoryFit; message: string } {
  const need =
    `${name} needs up to ${formatBytes(estimate.totalBytes)} to train at these settings (${formatParameters(estimate.parameters)} parameters: ` +
    `${formatBytes(estimate.weightBytes)} of float32 weights + up to ${formatBytes(estimate.totalBytes - estimate.weightBytes)} for the run)`;
  const smaller = 'Fix: choose a smaller model (SmolLM2-135M-Instruct or the demo model)';
  if (budget.maxBufferBytes !== undefined && estimate.largestTensorBytes > budget.maxBufferBytes) {
    return {
      fit: 'too_large',
      message:
        `${name} is too large for this GPU: its biggest weight is ${formatBytes(estimate.largestTensorBytes)}, but one GPU buffer ` +
        `can hold at most ${formatBytes(budget.maxBufferBytes)}. ${smaller}, or the WASM backend.`,
    };
  }
  const loadBytes = estimate.weightBytes + estimate.downloadBytes;
  if (loadBytes > budget.bytes) {
    return {
      fit: 'too_large',
      message: `${name} cannot even load here: ${formatBytes(loadBytes)} while converting its weights, over ${formatBytes(budget.bytes)}, ${budget.reason}. ${smaller}.`,
    };
  }
  if (estimate.totalBytes > budget.bytes) {
    return {
      fit: 'tight',
      message:
        `${need}, over ${formatBytes(budget.bytes)}, ${budget.reason}: long episodes may run out of memory. ` +
        'If they do, lower Micro-batch, Tokens per turn or Turns.',
    };
  }
  return {
    fit: 'fits',
    message: `${need}; the budget is ${formatBytes(budget.bytes)} (${budget.reason}).`,
  };
}

/** Bytes per parameter of the weight files, from config.json's torch_dtype (BF16 when unsaid). */
export function fileBytesPerParameter(configJson: unknown): number {
  const dtype = (configJson as { torch_dtype?: unknown } | null)?.torch_dtype;
  return dtype === 'float32' ? 4 : 2;
}

/**
 * Reads only config.json from `source` (a few KB, even from the hub) and estimates the memory.
 * Rejects with parseModelConfig's message when the architecture is unsupported.
 */
export async function estimateFromSource(
  source: ModelSource,
  run: Omit<RunShape, 'fileBytesPerParameter'>,
): Promise<{ config: ModelConfig; estimate: MemoryEstimate }> {
  const json = await readJson(source, 'config.json');
  const config = parseModelConfig(json, `${source.name}/config.json`);
  return {
    config,
    estimate: estimateMemory(config, {
      ...run,
      fileBytesPerParameter: fileBytesPerParameter(json),
    }),
  };
}
