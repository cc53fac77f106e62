// How many bytes one training micro-batch keeps for its backward pass, from the model's config
// alone (no tfjs), so the update can decide per micro-batch whether to recompute each decoder layer
// in the backward pass (gradient checkpointing, src/model/recompute.ts), and the memory estimate
// can count activations as the code keeps them.
//
// What is counted is what the forward pass's ops save() (float32, distinct buffers once: a tensor
// saved by several ops, or a reshape of it, is one buffer); test/model_files/activation_budget.test.ts
// checks it against the buffers on tfjs's tape on wasm (within 1%, 3% recomputed). Per layer and
// row: the layer's input and the post-attention residual (RMSNorm's inputs and its 1/rms; the
// residual adds), the normed rows the projections read, LoRA's scale x A (N, r) per adapted
// projection, a bias add's input (and, for float32 LoRA beside a bias, its separate ops' x W and
// update), the query, key and value rows as projected (the head reshape's input) and after RoPE
// (the products' inputs), the query scaled by 1/sqrt(hd), the attention context before and after
// its transpose, the o_proj and MLP outputs (the residual adds), gate and up (SwiGLU), and their
// product (down_proj's input); per layer, the attention scores and their softmax, each heads x rows
// x keys. Once per micro-batch: RoPE's tables, the last layer's output and the output head's rows
// (final norm, target vectors, their product), one chunk of logits, and with recompute the masks.
//
// Not counted: the backward pass's own memory. tfjs keeps the gradient of every intermediate
// until its backward pass ends, about as much again as what is saved; with recompute, only one
// layer's intermediates at a time (recompute.ts).
//
// The micro-batch's shape (sequences, a shared prompt run once) changes the count a little; without
// it, the count is that of a batch without a shared prompt.
import type { ModelConfig } from './hf_config.ts';

/**
 * How the model trains: every weight, or LoRA on some projections with the frozen weights in
 * float32 or kept 16-bit (src/model/half_weight.ts).
 */
export type TrainingShape =
  | { kind: 'full' }
  | { kind: 'lora'; rank: number; targets: readonly string[]; frozen16: boolean };

/** The run's default at scale: LoRA rank 8 on all seven projections, frozen weights 16-bit. */
const DEFAULT_TRAINING: TrainingShape = {
  kind: 'lora',
  rank: 8,
  targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
  frozen16: true,
};

/** Logits held at once by the output head (src/model/logprobs.ts chunkElements' default). */
const CHUNK_ELEMENTS = 4 * 1024 * 1024;
const FLOAT = 4;

/** What else decides the count besides rows and keys. */
export interface ActivationShape {
  /** Default: LoRA rank 8 on every projection over 16-bit frozen weights. */
  training?: TrainingShape;
  /**
   * The micro-batch's sequences and the prompt tokens they share, run once (update.ts
   * microBatches). Default: no shared prompt.
   */
  batch?: { sequences: number; shared: number };
}

/**
 * Bytes one micro-batch of `rows` forward rows attending up to `keys` keys keeps for the backward
 * pass; with `recompute`, one layer's input per layer plus one layer's full set while it
 * recomputes.
 */
export function savedActivationBytes(
  config: ModelConfig,
  rows: number,
  keys: number,
  recompute: boolean,
  shape: ActivationShape = {},
): number {
  const { hiddenSize: D, numHeads: H, numLayers: L, headDim: hd, vocabSize: V } = config;
  const kv = config.numKvHeads * hd;
  const { sequences = 1, shared: s = 0 } = shape.batch ?? {};
  const training = shape.training ?? DEFAULT_TRAINING;
  // a shared prompt's rows attend its s keys, the others `keys`: the scores and their softmax
  const attended = s > 0 ? s * s + (rows - s) * keys : rows * keys;
  // with a shared prompt: its keys and values (s rows) and each sequence's joined to them
  // (sequences x keys) in place of the rows' own after RoPE or the transpose; o_proj's input
  // joined from the prompt's rows and the rest
  const oSaved = training.kind === 'full' || training.targets.includes('o_proj');
  const joined =
    s > 0
      ? 2 * kv * (s + sequences * keys - rows) +
        (oSaved ? rows * H * hd : 0) +
        (config.qkNorm ? rows * (H * hd + kv) : 0) // normed q and k, then split
      : 0;
  const layer = rows * layerFloatsPerRow(config, training) + joined + 2 * H * attended;
  const own = rows - s; // the rows whose log-probs are wanted
  // RoPE's cos, sin (and, with a prompt, the slices of both) and -sin; the ids; the last layer's
  // output (final norm's input) and its 1/rms; the head's rows, a chunk of them, the target vectors
  // and their product; one chunk of logits
  const once =
    rows * ((s > 0 ? 5 : 3) * hd + 1) +
    rows * (D + 1) +
    own * (4 * D + 1) +
    Math.min(own, Math.floor(CHUNK_ELEMENTS / V)) * V;
  // recomputed layers keep their input each, and the masks for the recomputation
  const mask = (keys - s) * keys + s * s;
  const layers = recompute ? L * rows * D + layer - rows * D + mask : L * layer;
  return FLOAT * (layers + once);
}

/** Floats one layer saves per row, attention scores aside. */
function layerFloatsPerRow(config: ModelConfig, training: TrainingShape): number {
  const { hiddenSize: D, intermediateSize: F, numHeads: H, numKvHeads: Hkv, headDim: hd } = config;
  const lora = training.kind === 'lora' ? training : null;
  const adapted = (...targets: string[]) => !lora || targets.some((t) => lora.targets.includes(t));
  // beyond its input: a bias add's input; LoRA's scale x A (N, r); and a float32 LoRA projection
  // with a bias (src/model/linear.ts's separate ops) keeps x W, x W + b and the update besides
  const projection = (target: string, out: number, bias: boolean) => {
    if (!lora || !adapted(target)) return bias ? out : 0;
    if (bias && !lora.frozen16) return 3 * out + 2 * lora.rank;
    return lora.rank + (bias ? out : 0);
  };
  const [q, kv] = [H * hd, Hkv * hd];
  let floats = D + 1; // the layer's input and its 1/rms
  if (adapted('q_proj', 'k_proj', 'v_proj')) floats += D; // normed rows into q, k, v
  floats += projection('q_proj', q, config.qkvBias);
  floats += projection('k_proj', kv, config.qkvBias) + projection('v_proj', kv, config.qkvBias);
  if (config.qkNorm) floats += q + kv + H + Hkv; // the normed heads of q and k, their 1/rms
  floats += 3 * q; // query: projected, after RoPE, scaled by 1/sqrt(hd)
  floats += 4 * kv; // keys and values: projected, and after RoPE or the transpose
  floats += 2 * q; // the context, before and after its transpose
  floats += projection('o_proj', D, config.outputBias);
  floats += 2 * D + 1; // attention's output (residual add), its sum (post-attention norm), 1/rms
  if (adapted('gate_proj', 'up_proj')) floats += D; // normed rows into gate and up
  floats += projection('gate_proj', F, config.mlpBias) + projection('up_proj', F, config.mlpBias);
  floats += 2 * F; // gate and up (SwiGLU)
  if (adapted('down_proj')) floats += F; // silu(gate) up, down_proj's input
  floats += projection('down_proj', D, config.mlpBias);
  floats += D; // the MLP's output (residual add)
  return floats;
}
