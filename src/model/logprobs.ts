// The training face: log-probabilities of given token ids under the model at a temperature,
// differentiable with respect to the trainable variables (use inside tf.variableGrads).
// The output projection is chunked over positions and recomputed in the backward pass
// (ops.ts logPartition), so full-vocabulary logits never exist for the whole batch; when the
// whole batch is one chunk, its softmax is kept for the backward pass instead.
//
// A shared prefix (`sharedPrefix`, e.g. a GRPO group's prompt): its tokens run once, in the same
// forward pass as the sequences' own rows (decoder.ts ForwardInput.prefix), and every sequence's
// remaining tokens attend to its keys and values (repeated over the batch, so the gradient sums
// over the sequences, as autograd does for the prefix run B times). The prompt is about half of a
// default-run step's tokens, so this skips most of that work.
//
// Shapes: B sequences, T = longest length - 1 predicted positions, N = B * T, C chunk rows,
// D model width, V vocabulary.
import * as tf from '@tensorflow/tfjs';
import { decoderForward } from './decoder.ts';
import { splitRows } from '../kernels/heap_copies.ts';
import { fastPaths } from './fast_paths.ts';
import { maskBias } from './kv_cache.ts';
import type { CausalLM } from './model.ts';
import type { HalfWeight } from './half_weight.ts';
import { headColumns, headLogPartition, type VocabSplit } from './vocab_split.ts';

/** Options for scoring token ids. */
export interface LogprobOptions {
  /** Softmax temperature, the same as at sampling (> 0). */
  temperature: number;
  /** Most logits held at once, as rows x vocabulary (default 4M floats, 16 MB). */
  chunkElements?: number;
  /**
   * s >= 1: the first s tokens are the same in every sequence and their log-probs are not wanted
   * (columns 0 .. s-1, predicting tokens 1 .. s, come back 0): they run once for the batch.
   * Every sequence must be longer than s. 0 (default): every sequence runs whole.
   */
  sharedPrefix?: number;
  /**
   * Gradient checkpointing: each layer keeps only its input for the backward pass and runs again
   * there (recompute.ts); the same numbers, for one more forward pass of the layers.
   */
  recompute?: boolean;
}

/**
 * logprobs[b][t] = log p(ids[b][t+1] | ids[b][0..t]) with logits / temperature, shape (B, T);
 * entries past the end of a shorter sequence are 0. Sequences are right-padded, so no position
 * attends to padding and positions need no shifting.
 */
export function tokenLogprobs(
  model: CausalLM,
  ids: number[][],
  options: LogprobOptions,
): tf.Tensor2D {
  const { temperature } = options;
  if (!(temperature > 0))
    throw new Error(`temperature must be > 0 for scoring, got ${temperature}`);
  model.checkIds(ids);
  const B = ids.length;
  const T = Math.max(...ids.map((seq) => seq.length)) - 1;
  if (T < 1) throw new Error('tokenLogprobs needs at least one sequence of two or more tokens');
  const s =
    fastPaths.sharedPrefixes() === 'shared' ? checkedPrefix(ids, options.sharedPrefix ?? 0) : 0;
  const Tc = T - s; // positions each sequence runs itself: s .. T-1
  // the forward's rows: the prefix's s, then each sequence's Tc (targets and valid: those Tc only)
  const inputs = new Int32Array(s + B * Tc);
  const positions = new Int32Array(s + B * Tc);
  for (let t = 0; t < s; t++) [inputs[t], positions[t]] = [ids[0]![t]!, t];
  const targets = new Int32Array(B * Tc);
  const valid = new Float32Array(B * Tc);
  ids.forEach((seq, b) => {
    for (let t = s; t < T; t++) {
      const i = b * Tc + t - s;
      positions[s + i] = t;
      if (t < seq.length) inputs[s + i] = seq[t]!;
      if (t + 1 < seq.length) {
        targets[i] = seq[t + 1]!;
        valid[i] = 1;
      }
    }
  });
  return tf.tidy(() => {
    const mode = model.forwardMode(true);
    const prefix =
      s > 0 ? { length: s, maskBias: maskBias(1, s, s, (_b, i, j) => j <= i) } : undefined;
    const rows = decoderForward(
      model,
      {
        ids: inputs,
        batch: B,
        time: Tc,
        positions,
        maskBias: maskBias(1, Tc, s + Tc, (_b, i, j) => j <= i + s),
        causal: true,
        prefix,
        recompute: options.recompute ?? false,
      },
      mode,
    ); // (s + B * Tc, D)
    const hidden = s > 0 ? splitRows(rows, s)[1] : rows; // (B * Tc, D): the prefix predicts no wanted token
    const head = model.params.lmHead ?? model.params.embedding;
    const V = model.config.vocabSize;
    const D = model.config.hiddenSize;
    const N = B * Tc;
    const chunkRows = Math.max(1, Math.floor((options.chunkElements ?? 4 * 1024 * 1024) / V));
    const pieces: tf.Tensor1D[] = [];
    for (let start = 0; start < N; start += chunkRows) {
      const rows = Math.min(chunkRows, N - start);
      const h = rows === N ? hidden : tf.slice(hidden, [start, 0], [rows, D]); // (C, D)
      const targetVectors = headColumns(
        head as tf.Tensor2D | HalfWeight | VocabSplit,
        tf.tensor1d(targets.subarray(start, start + rows), 'int32'),
        head.trainable,
      ); // (C, D)
      const targetLogit = tf.div(tf.sum(tf.mul(h, targetVectors), -1), temperature); // (C,)
      pieces.push(
        tf.sub(
          targetLogit,
          headLogPartition(
            h,
            head as tf.Tensor2D | HalfWeight | VocabSplit,
            temperature,
            head.trainable,
            rows === N,
          ),
        ),
      );
    }
    const flat = pieces.length === 1 ? pieces[0]! : tf.concat(pieces);
    const own = tf.reshape(tf.mul(flat, tf.tensor1d(valid)), [B, Tc]) as tf.Tensor2D;
    return s > 0 ? tf.concat([tf.zeros([B, s]), own], 1) : own;
  });
}

/** `prefix` when every sequence starts with those tokens and is longer; else a clear error. */
function checkedPrefix(ids: number[][], prefix: number): number {
  if (!Number.isInteger(prefix) || prefix < 0)
    throw new Error(`sharedPrefix must be a whole number >= 0, got ${prefix}`);
  if (prefix === 0) return 0;
  const first = ids[0]!;
  ids.forEach((seq, b) => {
    if (seq.length <= prefix)
      throw new Error(`sharedPrefix ${prefix}: sequence ${b} has only ${seq.length} tokens`);
    for (let t = 0; t < prefix; t++) {
      if (seq[t] !== first[t])
        throw new Error(
          `sharedPrefix ${prefix}: sequence ${b} differs from sequence 0 at token ${t}`,
        );
    }
  });
  return prefix;
}
