// How much memory a model needs to train in the tab, computed from its config.json alone, so the
// page (and `cli train`) can refuse a model that will not fit BEFORE downloading a gigabyte of
// weights. It counts what the code allocates, in the WebAssembly memories (src/kernels/heap_usage.ts:
// tfjs's heap, the dot store, the helper threads' pool), checked against their measured peak by the
// bench's `scale` section (docs/performance.md):
//   weights      frozen matrices 16-bit as shipped (half_weight.ts: LoRA or inference on wasm or
//                webgpu with a BF16/F16 checkpoint), else float32; norms and biases float32
//   download     the raw file bytes, held in JavaScript memory while loading
//   adapters     LoRA's A and B on the run's target projections, their gradients and AdamW's two
//                moments; in full fine-tuning a gradient and two moments for every weight
//   rollout      the KV cache of the sequences decoding at once (every sequence of a step, or as
//                many as ROLLOUT_KV_BUDGET_BYTES holds: rolloutSequences) at the full context: a turn's
//                batch cache takes the previous turn's per-sequence caches in, and gives them
//                back, a layer at a time (sample.ts, prefix_cache.ts, KvCache.split); a prefill
//                chunk's attention scores and their softmax over the whole context; the logits of
//                a decoding step
//   update       one micro-batch's saved activations (activation_budget.ts, with layer recompute
//                when they pass the run's budget), the backward pass's working set beside them,
//                and the 16-bit products' scratch
// The rollout and the update do not overlap, so the larger counts. Every turn is assumed to run to
// its token limit, a worst case.
import { savedActivationBytes } from './activation_budget.ts';
import { parseModelConfig, type ModelConfig } from './hf_config.ts';
import { readJson, type ModelSource } from './source.ts';

/** The seven projections LoRA can adapt. */
const ALL_TARGETS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];

/** Sizes of the run that drive the memory beyond the weights. */
export interface RunShape {
  /** Sequences decoded together (group size × prompts per step). */
  sequences: number;
  /** Tokens of the longest packed sequence (prompt + turns × (generated + observation)). */
  contextTokens: number;
  /** Sequences in one training micro-batch. */
  microBatch: number;
  /** Most forward rows of one micro-batch (run config microBatchTokens; default 4096). */
  microBatchTokens?: number;
  /** Saved activations past which layers are recomputed (default 512 MB). */
  activationBudgetBytes?: number;
  loraRank: number;
  /** LoRA's target projections (default all seven). */
  loraTargets?: readonly string[];
  /**
   * Full fine-tuning: every weight gets a gradient and AdamW's two moments (LoRA settings ignored).
   */
  full?: boolean;
  /** Bytes per parameter of the downloaded files (2 for BF16/F16, 4 for F32). */
  fileBytesPerParameter: number;
  /**
   * Whether frozen weights stay 16-bit (wasm and webgpu; default: a 16-bit checkpoint, not full).
   */
  sixteenBit?: boolean;
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
  /** Whether the frozen weights are counted 16-bit. */
  sixteenBit: boolean;
  /** Full fine-tuning (every weight float32, with a gradient and two moments). */
  full: boolean;
  weightBytes: number;
  downloadBytes: number;
  adapterBytes: number;
  kvCacheBytes: number;
  /** A step's sequences (RunShape.sequences). */
  sequences: number;
  /** Sequences the rollout keeps at once (rolloutSequences): the step's, or fewer for a large KV cache. */
  rolloutSequences: number;
  /** The rollout's part: the KV cache, a prefill chunk's attention, a step's logits. */
  rolloutBytes: number;
  activationBytes: number;
  /** The update's part: activations, the backward's working set, the products' scratch. */
  updateBytes: number;
  /** Whether one micro-batch's activations pass the budget, so layers are recomputed. */
  recompute: boolean;
  /** The peak: weights + adapters + the larger of the rollout and the update + runtime. */
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
 * The backward pass's working set beside the saved activations: the gradients in flight and the
 * recomputed layer's intermediates, as a share of what is saved. Measured by the bench's scale
 * section at the Qwen2.5-0.5B shape (the default run, layers recomputed): tfjs's heap peaked at
 * 1799 MB in the update for 1326 MB saved and 67 MB of adapters (docs/performance.md).
 */
const BACKWARD_FACTOR = 0.25;
/**
 * The most KV cache the rollout keeps at once, every sequence at the full context (float32 in
 * tfjs's heap): past it, the rollout runs a step's episodes a few at a time (rolloutSequences).
 * Half the 4 GiB WebAssembly heap: the rest holds the prefill's attention, the logits and the
 * adapters, and the weights have a memory of their own. Qwen3-0.6B's cache is 229 KB a token
 * (8 key/value heads of 128, 28 layers): the default run's 18 sequences of ~1,250 tokens would
 * need 5.1 GB, and ran out of the heap before this cap.
 */
export const ROLLOUT_KV_BUDGET_BYTES = 2 * 2 ** 30;
/** Prompt positions per prefill call (sample.ts's default prefillChunk, which the rollout uses). */
const PREFILL_CHUNK = 128;
/** tfjs-wasm's runtime, the kernels' modules and scratch, the helper threads' pool at rest. */
const RUNTIME_BYTES = 64 * 2 ** 20;

/**
 * Number of parameters of a Llama/Qwen2/Qwen3 decoder with this config (biases, q/k norms and tied
 * embeddings included).
 */
export function countParameters(config: ModelConfig): number {
  return matrixParameters(config) + vectorParameters(config);
}

/** The parameters of the 2-D weights (projections, embedding, untied head). */
function matrixParameters(config: ModelConfig): number {
  const { vocabSize: V, hiddenSize: D, intermediateSize: I, numLayers: L } = config;
  const { numHeads: H, numKvHeads: KV, headDim: hd } = config;
  const attention = 2 * D * H * hd + 2 * D * KV * hd;
  const embeddings = V * D * (config.tieWordEmbeddings ? 1 : 2);
  return embeddings + L * (attention + 3 * D * I);
}

/** The parameters of the 1-D weights (norms, biases), float32 always. */
function vectorParameters(config: ModelConfig): number {
  const { hiddenSize: D, intermediateSize: I, numLayers: L } = config;
  const { numHeads: H, numKvHeads: KV, headDim: hd } = config;
  const biases =
    (config.qkvBias ? H * hd + 2 * KV * hd : 0) +
    (config.outputBias ? D : 0) +
    (config.mlpBias ? 2 * I + D : 0);
  return L * (biases + 2 * D + (config.qkNorm ? 2 * hd : 0)) + D;
}

/** LoRA parameters (A and B) on the `targets` projections of every layer (default all seven). */
export function countLoraParameters(
  config: ModelConfig,
  rank: number,
  targets: readonly string[] = ALL_TARGETS,
): number {
  const { hiddenSize: D, intermediateSize: I, numLayers: L } = config;
  const [q, kv] = [config.numHeads * config.headDim, config.numKvHeads * config.headDim];
  const sizes: Record<string, [number, number]> = {
    q_proj: [D, q],
    k_proj: [D, kv],
    v_proj: [D, kv],
    o_proj: [q, D],
    gate_proj: [D, I],
    up_proj: [D, I],
    down_proj: [I, D],
  };
  let perLayer = 0;
  for (const target of targets) {
    const size = sizes[target];
    if (size) perLayer += rank * (size[0] + size[1]);
  }
  return L * perLayer;
}

/** KV-cache bytes of one token: keys and values of every layer, float32. */
export function kvBytesPerToken(config: ModelConfig): number {
  return 2 * config.numLayers * config.numKvHeads * config.headDim * FLOAT32;
}

/**
 * Sequences the rollout keeps at once (src/rl/rollout.ts maxSequences): all `sequences` of a step
 * when their KV cache at `contextTokens` fits `budget`, else as many as it holds (at least one).
 */
export function rolloutSequences(
  config: ModelConfig,
  sequences: number,
  contextTokens: number,
  budget = ROLLOUT_KV_BUDGET_BYTES,
): number {
  const fit = Math.floor(budget / (kvBytesPerToken(config) * contextTokens));
  return Math.max(1, Math.min(sequences, fit));
}

/** Estimates the memory to load and train `config` with a run of shape `run`. */
export function estimateMemory(
  config: ModelConfig,
  run: RunShape = DEFAULT_RUN_SHAPE,
): MemoryEstimate {
  const { vocabSize: V, hiddenSize: D, intermediateSize: I, numHeads: H } = config;
  const parameters = countParameters(config);
  const full = run.full ?? false;
  const sixteenBit = run.sixteenBit ?? (run.fileBytesPerParameter === 2 && !full);
  const weightBytes =
    (sixteenBit ? 2 : FLOAT32) * matrixParameters(config) + FLOAT32 * vectorParameters(config);
  const downloadBytes = parameters * run.fileBytesPerParameter;
  const targets = run.loraTargets ?? ALL_TARGETS;
  // LoRA: parameters, gradients, AdamW m and v; full: gradients and moments of every weight
  const adapterBytes = full
    ? parameters * FLOAT32 * 3
    : countLoraParameters(config, run.loraRank, targets) * FLOAT32 * 4;
  const T = run.contextTokens;
  const live = rolloutSequences(config, run.sequences, T);
  const kvCacheBytes = kvBytesPerToken(config) * T * live;
  // a later turn prefills every sequence's new tokens, a chunk at a time, against its whole cache
  const attentionBytes = 2 * live * H * Math.min(PREFILL_CHUNK, T) * T * FLOAT32;
  const rolloutBytes = kvCacheBytes + attentionBytes + 2 * live * V * FLOAT32;
  // one micro-batch: its sequences' rows, at most microBatchTokens
  const rows = Math.min(run.microBatch * T, run.microBatchTokens ?? 4096);
  const training = full
    ? ({ kind: 'full' } as const)
    : ({ kind: 'lora', rank: run.loraRank, targets, frozen16: sixteenBit } as const);
  const plain = savedActivationBytes(config, rows, T, false, { training });
  const recompute = plain > (run.activationBudgetBytes ?? 512 * 2 ** 20);
  const activationBytes = recompute
    ? savedActivationBytes(config, rows, T, true, { training })
    : plain;
  const scratch = sixteenBit ? rows * (D + I) * FLOAT32 : 0; // a 16-bit product's operands
  const updateBytes = activationBytes * (1 + BACKWARD_FACTOR) + scratch;
  const largestTensorBytes = Math.max(V * D, D * I) * (sixteenBit ? 2 : FLOAT32);
  return {
    parameters,
    sixteenBit,
    full,
    weightBytes,
    downloadBytes,
    adapterBytes,
    kvCacheBytes,
    sequences: run.sequences,
    rolloutSequences: live,
    rolloutBytes,
    activationBytes,
    updateBytes,
    recompute,
    totalBytes: weightBytes + adapterBytes + Math.max(rolloutBytes, updateBytes) + RUNTIME_BYTES,
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
    `${formatBytes(estimate.weightBytes)} of ${estimate.sixteenBit ? '16-bit' : 'float32'} weights + up to ${formatBytes(estimate.totalBytes - estimate.weightBytes)} for the run)`;
  const smaller = estimate.full
    ? 'Full fine-tuning keeps every weight float32 with its gradient and two AdamW moments (16 bytes a parameter), for small models. Fix: LoRA (frozen weights stay 16-bit), or a smaller model (SmolLM2-135M-Instruct or the demo model)'
    : 'Fix: choose a smaller model (SmolLM2-135M-Instruct or the demo model)';
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
      message: `${name} cannot even load here: ${formatBytes(loadBytes)} while ${estimate.sixteenBit ? 'reading its 16-bit weights into place' : 'converting its weights to float32'}, over ${formatBytes(budget.bytes)}, ${budget.reason}. ${smaller}.`,
    };
  }
  // the rollout keeps fewer sequences at once than the step has when their KV cache is large
  const { sequences, rolloutSequences: live } = estimate;
  const few =
    live < sequences
      ? ` The rollout samples ${live} of the ${sequences} episodes at a time, as many as ${formatBytes(ROLLOUT_KV_BUDGET_BYTES)} of KV cache holds.`
      : '';
  if (estimate.totalBytes > budget.bytes) {
    // what to lower depends on the larger part: the rollout (the KV cache of the sequences sampled
    // at once) or the update (a micro-batch's activations)
    const advice =
      estimate.rolloutBytes > estimate.updateBytes
        ? `If they do, lower Tokens per turn or Turns (the ${live} sequences sampled at once have up to ${formatBytes(estimate.kvCacheBytes)} of KV cache).`
        : 'If they do, lower Micro-batch, Tokens per turn or Turns.';
    return {
      fit: 'tight',
      message: `${need}, over ${formatBytes(budget.bytes)}, ${budget.reason}: long episodes may run out of memory. ${advice}${few}`,
    };
  }
  return {
    fit: 'fits',
    message: `${need}; the budget is ${formatBytes(budget.bytes)} (${budget.reason}).${few}`,
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
