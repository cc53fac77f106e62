// The training face: log-probabilities of given token ids under the model at a temperature,
// differentiable with respect to the trainable variables (use inside tf.variableGrads).
// The output projection is chunked over positions and recomputed in the backward pass
// (ops.ts logPartition), so full-vocabulary logits never exist for the whole batch; when the
// whole batch is one chunk, its softmax is kept for the backward pass instead.
//
// Shapes: B sequences, T = longest length - 1 predicted positions, N = B * T, C chunk rows,
// D model width, V vocabulary.
import * as tf from '@tensorflow/tfjs';
import { decoderForward } from './decoder.ts';
import { maskBias } from './kv_cache.ts';
import type { CausalLM } from './model.ts';
import { embedColumns, logPartition } from './ops.ts';

/** Options for scoring token ids. */
export interface LogprobOptions {
  /** Softmax temperature, the same as at sampling (> 0). */
  temperature: number;
  /** Most logits held at once, as rows x vocabulary (default 4M floats, 16 MB). */
  chunkElements?: number;
}

/**
 * logprobs[b][t] = log p(ids[b][t+1] | ids[b][0..t]) with logits / temperature, shape (B, T);
 * entries past the end of a shorter sequence are 0. Sequences are right-padded, so no position
 * attends to padding and positions need no shifting.
 */
export function tokenLogprobs(model: CausalLM, ids: number[][], options: LogprobOptions): tf.Tensor2D {
  const { temperature } = options;
  if (!(temperature > 0)) throw new Error(`temperature must be > 0 for scoring, got ${temperature}`);
  model.checkIds(ids);
  const B = ids.length;
  const T = Math.max(...ids.map((seq) => seq.length)) - 1;
  if (T < 1) throw new Error('tokenLogprobs needs at least one sequence of two or more tokens');
  const inputs = new Int32Array(B * T);
  const targets = new Int32Array(B * T);
  const valid = new Float32Array(B * T);
  const positions = new Int32Array(B * T);
  ids.forEach((seq, b) => {
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      positions[i] = t;
      if (t < seq.length) inputs[i] = seq[t]!;
      if (t + 1 < seq.length) {
        targets[i] = seq[t + 1]!;
        valid[i] = 1;
      }
    }
  });
  return tf.tidy(() => {
    const mode = model.forwardMode(true);
    const hidden = decoderForward(
      model,
      { ids: inputs, batch: B, time: T, positions, maskBias: maskBias(1, T, T, (_b, i, j) => j <= i), causal: true },
      mode,
    ); // (N, D)
    const head = (model.params.lmHead ?? model.params.embedding) as tf.Variable;
    const V = model.config.vocabSize;
    const D = model.config.hiddenSize;
    const N = B * T;
    const chunkRows = Math.max(1, Math.floor((options.chunkElements ?? 4 * 1024 * 1024) / V));
    const pieces: tf.Tensor1D[] = [];
    for (let start = 0; start < N; start += chunkRows) {
      const rows = Math.min(chunkRows, N - start);
      const h = rows === N ? hidden : tf.slice(hidden, [start, 0], [rows, D]); // (C, D)
      const targetVectors = embedColumns(head as tf.Tensor2D, tf.tensor1d(targets.subarray(start, start + rows), 'int32'), head.trainable); // (C, D)
      const targetLogit = tf.div(tf.sum(tf.mul(h, targetVectors), -1), temperature); // (C,)
      pieces.push(tf.sub(targetLogit, logPartition(h, head as tf.Tensor2D, temperature, head.trainable, rows === N)));
    }
    const flat = pieces.length === 1 ? pieces[0]! : tf.concat(pieces);
    return tf.reshape(tf.mul(flat, tf.tensor1d(valid)), [B, T]) as tf.Tensor2D;
  });
}
