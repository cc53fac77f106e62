// What one GRPO step costs, from config.json alone: its floating-point operations and the bytes
// decoding streams, turned into seconds by a device's speed (WASM's calibration in
// step_calibration.ts, WebGPU's probe in src/service/speed_probe.ts), so the page can tell a person,
// before a gigabyte downloads, that a 0.5B model on a laptop CPU takes minutes a step
// (docs/architecture.md §4). No tfjs: it runs anywhere.
//
// Shapes: L layers, D width, I the MLP's width, H query heads, KV key-value heads, hd head width,
// V vocabulary. A token through the model costs 2 FLOPs per weight of its products:
//   Pl = L (D H hd + 2 D KV hd + H hd D + 3 D I)   the layers' products (biases and norms aside)
//   Ph = D V                                       the vocabulary projection (large: Qwen's 151936)
// plus attention, 4 L H hd FLOPs per (query, key) pair (q·k and the weighted sum of v), causal.
//
// A step (every turn runs to its token limit, the worst case, as the memory estimate assumes;
// or, given a GenerationProfile, episodes as long as a model's measured ones):
//   rollout   prefill each prompt once per group, then each later turn's observation; decode
//             turns × tokensPerTurn steps of the whole batch (a profile's decoding steps, its
//             tokens spread over them), each step the larger of its FLOPs over decoding's product
//             speed and its bytes (every weight once, at weightBytes, plus the batch's KV cache)
//             over the bandwidth, plus the step's fixed costs (the sampler's call, and each
//             layer's kernels' calls, which rule at the demo's size); each turn a fixed cost (the
//             sandbox, the chat extended); as many such passes as the waves the rollout runs a
//             large KV cache's episodes in (memory_estimate.ts rolloutSequences)
//   update    the reference pass when β > 0 (a forward, no gradient: 2 Pl T), then per PPO epoch a
//             forward (2 Pl T) and a backward: with LoRA dx only, through the frozen weights
//             (2 Pl T), in full fine-tuning dx and dW (4 Pl T); attention's backward twice its
//             forward; the vocabulary projection recomputed in the backward pass when its logits
//             take more than one chunk (src/model/logprobs.ts), and the layers' forward again
//             where a micro-batch's activations pass their budget (activation_budget.ts). Old
//             log-probs come from the rollout (src/rl/rollout.ts): no pass recomputes them. Each
//             pass over a micro-batch adds a fixed cost a layer.
// Not counted: LoRA's rank-r products (under 1% at rank 8), norms and activations; the fixed
// costs are 0 unless the speed gives them (the probe does not: it measures rates alone).

import type { ModelConfig } from './hf_config.ts';
import { savedActivationBytes } from './activation_budget.ts';
import { countParameters, rolloutSequences } from './memory_estimate.ts';

/** The run's shape as the cost model needs it (src/run/resolve.ts resolveRun makes it). */
export interface StepShape {
  /** Episodes of a step: group size × prompts per step. */
  sequences: number;
  /**
   * A sequence's tokens as the memory estimate counts them (RunShape.contextTokens), which sets how
   * many episodes the rollout keeps under way (memory_estimate.ts rolloutSequences); default
   * sequenceTokens.
   */
  contextTokens?: number;
  /** Prompts per step: each is prefilled once for its group. */
  prompts: number;
  turns: number;
  /** Generated tokens per turn (maxNewTokens). */
  tokensPerTurn: number;
  /** The prompt with the system text and chat markup. */
  promptTokens: number;
  /** What a later turn prefills before it decodes: the observation and its chat markup. */
  observationTokens: number;
  ppoEpochs: number;
  /** Most sequences per training micro-batch (a group's prompt runs once per micro-batch). */
  microBatch: number;
  /** Most rows per micro-batch's forward pass (the shared prompt once, each rest); default none. */
  microBatchTokens?: number;
  /** Full fine-tuning (dW for every weight, AdamW over all of them) rather than LoRA. */
  full: boolean;
  /** A reference pass for the KL term (klCoef > 0). */
  reference: boolean;
  /**
   * Bytes per weight that decoding streams: 2 when frozen weights stay 16-bit (LoRA), 4 for
   * float32 (full fine-tuning). Default: by `full`.
   */
  weightBytes?: number;
  /**
   * A micro-batch whose saved activations would pass this recomputes its layers in the backward
   * pass (activation checkpointing: one more forward); default: never.
   */
  activationBudgetBytes?: number;
  /** Episodes as long as a model's measured ones rather than every turn at its limit. */
  generation?: GenerationProfile;
}

/**
 * A device's speed: calibrated against measured steps (step_calibration.ts, WASM) or measured by
 * the probe (src/service/speed_probe.ts, WebGPU). The fixed costs are 0 unless given.
 */
export interface DeviceSpeed {
  /** Dense products of prefill and the update, GFLOP/s. */
  gflops: number;
  /** Streaming read from memory, GB/s (1e9 bytes). */
  bandwidthGBs: number;
  /** Decoding's products, GFLOP/s (default gflops). */
  decodeGflops?: number;
  /** Fixed seconds of one decoding step of the batch (the sampler's call, the step's set-up). */
  decodeStepSeconds?: number;
  /** Fixed seconds a layer adds to one decoding step (its kernels' calls, whatever the rows). */
  decodeLayerSeconds?: number;
  /** Fixed seconds a layer adds to one forward or backward pass of an update's micro-batch. */
  passLayerSeconds?: number;
  /** Seconds a turn adds: the sandbox runs the batch's programs, the chat is extended. */
  turnSeconds?: number;
}

/**
 * How long episodes really are, where known (the demo model's own, measured): the estimate then
 * counts these rather than every turn at its token limit.
 */
export interface GenerationProfile {
  /** Turns an episode takes, on average. */
  turns: number;
  /** Tokens an episode generates over all its turns, on average. */
  tokens: number;
  /** Decoding steps a GRPO step's rollout runs (its longest episodes set them). */
  decodeSteps: number;
}

/** A step's cost: seconds by phase and the FLOPs they count. */
export interface StepCost {
  seconds: number;
  rolloutSeconds: number;
  updateSeconds: number;
  /** FLOPs of the whole step (rollout + update). */
  flops: number;
  rolloutFlops: number;
  updateFlops: number;
  /** Weight bytes one decoding step streams (every product's weights once): per token at batch 1. */
  decodeWeightBytes: number;
}

/** Numbers of logits per chunk of the vocabulary projection (logprobs.ts chunkElements). */
const HEAD_CHUNK_ELEMENTS = 4 * 1024 * 1024;
/** The KV cache is float32: 4 bytes a number. */
const KV_BYTES = 4;
/** AdamW in full fine-tuning: reads w, g, m, v and writes w, m, v, 4 bytes each, per weight. */
const ADAMW_BYTES_PER_WEIGHT = 7 * 4;

/** Weights of the layers' products: Pl = L (D H hd + 2 D KV hd + H hd D + 3 D I). */
export function layerProductWeights(config: ModelConfig): number {
  const { hiddenSize: D, intermediateSize: I, numLayers: L, numHeads: H } = config;
  const { numKvHeads: KV, headDim: hd } = config;
  return L * (D * H * hd + 2 * D * KV * hd + H * hd * D + 3 * D * I);
}

/** Weights of the vocabulary projection: Ph = D V. */
export function headWeights(config: ModelConfig): number {
  return config.hiddenSize * config.vocabSize;
}

/** FLOPs of attention per (query, key) pair over all layers: 4 L H hd. */
function attentionPerPair(config: ModelConfig): number {
  return 4 * config.numLayers * config.numHeads * config.headDim;
}

/** (query, key) pairs of `n` new tokens after `past` cached ones, causal: n past + n (n + 1) / 2. */
export function causalPairs(n: number, past: number): number {
  return n * past + (n * (n + 1)) / 2;
}

/**
 * Tokens of a sequence: the prompt, every turn, the observations between; at its longest, or on
 * average where the shape has a generation profile.
 */
export function sequenceTokens(shape: StepShape): number {
  const g = shape.generation;
  if (g) return shape.promptTokens + g.tokens + Math.max(0, g.turns - 1) * shape.observationTokens;
  return (
    shape.promptTokens +
    shape.turns * shape.tokensPerTurn +
    (shape.turns - 1) * shape.observationTokens
  );
}

/** Parts of `count` things, each 1 but the last its fraction: 2.5 gives 1, 1, 0.5. */
function parts(count: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(Math.min(1, count - i));
  return out;
}

/**
 * The rollout: prefill (compute-bound) and decoding steps, each the slower of compute and
 * streaming plus its fixed costs; seconds and FLOPs. Every turn runs to its limit unless the
 * shape has a generation profile: then its turns, tokens and decoding steps, spread evenly.
 */
function rolloutCost(config: ModelConfig, shape: StepShape, speed: DeviceSpeed) {
  const Pl = layerProductWeights(config);
  const Ph = headWeights(config);
  const pair = attentionPerPair(config);
  const { sequences, tokensPerTurn: N, promptTokens: P, observationTokens: O } = shape;
  const g = shape.generation;
  const turns = g ? g.turns : shape.turns;
  const tokens = g ? g.tokens / g.turns : N; // a sequence's tokens a turn
  const steps = g ? g.decodeSteps / g.turns : N; // the batch's decoding steps a turn
  const weightBytes = shape.weightBytes ?? (shape.full ? 4 : 2);
  const kvPerToken = 2 * config.numLayers * config.numKvHeads * config.headDim * KV_BYTES;
  const flopsPerSecond = speed.gflops * 1e9;
  const decodePerSecond = (speed.decodeGflops ?? speed.gflops) * 1e9;
  const bytesPerSecond = speed.bandwidthGBs * 1e9;
  const fixed = (speed.decodeStepSeconds ?? 0) + config.numLayers * (speed.decodeLayerSeconds ?? 0);
  // prefill: each prompt once (its group shares it), then each later turn's observation
  let prefill = shape.prompts * (2 * Pl * P + pair * causalPairs(P, 0));
  // a model with a large KV cache decodes its episodes in waves of at most `live`: every wave
  // streams the weights for each of its tokens
  const live = rolloutSequences(config, sequences, shape.contextTokens ?? sequenceTokens(shape));
  const waves = Math.ceil(sequences / live);
  const batch = sequences / waves;
  const rows = (batch * tokens) / steps; // rows a decoding step: all, when every turn runs out
  let decode = 0;
  let decodeSeconds = 0;
  parts(turns).forEach((turnWeight, turn) => {
    const past = P + turn * (tokens + O); // tokens before this turn's observation
    if (turn > 0)
      prefill += turnWeight * sequences * (2 * Pl * O + pair * causalPairs(O, past - O));
    parts(steps).forEach((stepWeight, i) => {
      const keys = past + ((i + 1) * tokens) / steps; // this token attends to all so far and itself
      const flops = rows * (2 * (Pl + Ph) + pair * keys);
      const bytes = (Pl + Ph) * weightBytes + rows * keys * kvPerToken;
      const weight = turnWeight * stepWeight * waves;
      decode += weight * flops;
      decodeSeconds += weight * (fixed + Math.max(flops / decodePerSecond, bytes / bytesPerSecond));
    });
    decodeSeconds += turnWeight * (speed.turnSeconds ?? 0);
  });
  return {
    flops: prefill + decode,
    seconds: prefill / flopsPerSecond + decodeSeconds,
    decodeWeightBytes: (Pl + Ph) * weightBytes,
  };
}

/**
 * The update: the reference pass and `ppoEpochs` forward and backward passes over every
 * sequence, each micro-batch's pass with its fixed cost a layer; seconds and FLOPs.
 */
function updateCost(config: ModelConfig, shape: StepShape, speed: DeviceSpeed) {
  const Pl = layerProductWeights(config);
  const Ph = headWeights(config);
  const pair = attentionPerPair(config);
  const T = sequenceTokens(shape);
  const P = shape.promptTokens;
  const group = Math.max(1, Math.round(shape.sequences / shape.prompts));
  // A micro-batch of a group's samples runs their prompt once (src/rl/micro_batches.ts), within
  // microBatch sequences and microBatchTokens rows.
  let size = Math.max(1, Math.min(shape.microBatch, group));
  while (size > 1 && P + size * (T - P) > (shape.microBatchTokens ?? Infinity)) size--;
  const shared = size > 1;
  const microBatches = shape.prompts * Math.ceil(group / size);
  const promptRuns = shared ? microBatches : shape.sequences;
  const rows = promptRuns * P + shape.sequences * (T - P);
  const pairs = promptRuns * causalPairs(P, 0) + shape.sequences * causalPairs(T - P, P);
  // log-probs are read from the first generated token on where the prompt is shared, else for all
  const headRows = shared ? shape.sequences * (T - P) : rows;
  const headChunked = (headRows / microBatches) * config.vocabSize > HEAD_CHUNK_ELEMENTS;
  const recompute =
    shape.activationBudgetBytes !== undefined &&
    savedActivationBytes(config, rows / microBatches, T, false, {
      ...(shape.full ? { training: { kind: 'full' } as const } : {}),
      batch: { sequences: size, shared: shared ? P - 1 : 0 },
    }) > shape.activationBudgetBytes;

  const layersForward = 2 * Pl * rows + pair * pairs;
  const forward = layersForward + 2 * Ph * headRows;
  const backward =
    (shape.full ? 4 : 2) * Pl * rows + // dx (and dW) through every product
    2 * pair * pairs + // attention's backward: twice its forward
    (shape.full ? 4 : 2) * Ph * headRows + // the vocabulary projection's dx (and dW)
    (headChunked ? 2 * Ph * headRows : 0) + // its logits recomputed chunk by chunk
    (recompute ? layersForward : 0); // activation checkpointing: the layers' forward again
  const flops = (shape.reference ? forward : 0) + shape.ppoEpochs * (forward + backward);
  const optimizerBytes = shape.full
    ? shape.ppoEpochs * ADAMW_BYTES_PER_WEIGHT * countParameters(config)
    : 0;
  // passes over each micro-batch: the reference's forward, and per epoch a forward, a backward
  // and, with recomputation, the forward again
  const passes = (shape.reference ? 1 : 0) + shape.ppoEpochs * (recompute ? 3 : 2);
  const fixed = passes * microBatches * config.numLayers * (speed.passLayerSeconds ?? 0);
  return {
    flops,
    seconds: flops / (speed.gflops * 1e9) + optimizerBytes / (speed.bandwidthGBs * 1e9) + fixed,
  };
}

/**
 * Seconds a GRPO step of `shape` takes with `config` on a device of `speed`: FLOPs over the
 * product speed, and decoding's streamed bytes over the bandwidth where those are slower (the file
 * comment gives the formula).
 */
export function estimateStepSeconds(
  config: ModelConfig,
  shape: StepShape,
  speed: DeviceSpeed,
): StepCost {
  if (!(speed.gflops > 0) || !(speed.bandwidthGBs > 0))
    throw new Error(`estimateStepSeconds: speeds must be positive, got ${JSON.stringify(speed)}`);
  const rollout = rolloutCost(config, shape, speed);
  const update = updateCost(config, shape, speed);
  return {
    seconds: rollout.seconds + update.seconds,
    rolloutSeconds: rollout.seconds,
    updateSeconds: update.seconds,
    flops: rollout.flops + update.flops,
    rolloutFlops: rollout.flops,
    updateFlops: update.flops,
    decodeWeightBytes: rollout.decodeWeightBytes,
  };
}

/** A duration as the page says it: "0.8 s", "42 s", "3.5 min", "2.1 h". */
export function formatDuration(seconds: number): string {
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 90 * 60) return `${(seconds / 60).toFixed(seconds < 600 ? 1 : 0)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
