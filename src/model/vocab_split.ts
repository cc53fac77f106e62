// The token embedding and the output head split by vocabulary into chunks (D, Vc), so no single
// buffer passes WebGPU's default maxStorageBufferBindingSize (128 MiB, which the spec guarantees
// every adapter offers): Qwen2.5's 151936 x 896 float32 embedding (545 MB) becomes 5 chunks of
// ~109 MB. The same split on every backend, so a model computes the same way everywhere and a
// full-mode checkpoint's per-chunk names (`model.embed_tokens.weight#0`, …) fit any device. Frozen
// 16-bit weights (half_weight.ts, wasm only) are never split.
//
// Every use works chunk by chunk: the lookup gathers each chunk's rows for the ids that fall in it
// and masks the others (no read-back of the ids, which WebGPU's software adapter cannot do
// synchronously); the logits are the chunks' products side by side; the training head's
// log-partition combines the chunks' log-sum-exp values, so each chunk's own softmax and gradient
// (ops.ts logPartition) stay as they are.
//
// Shapes: N rows (tokens), C chunk rows, D model width, V vocabulary, Vc a chunk's vocabulary,
// k chunks.
import * as tf from '@tensorflow/tfjs';
import { fastPaths } from './fast_paths.ts';
import { embeddingRows, matMul2d } from '../kernels/matmul/dispatch.ts';
import { customOp } from './custom_op.ts';
import type { HalfWeight } from './half_weight.ts';
import { embedColumns, logPartition, permute, sumTensors } from './ops.ts';

/** WebGPU's default maxStorageBufferBindingSize, the largest buffer every adapter binds. */
export const DEFAULT_BUFFER_LIMIT_BYTES = 128 * 1024 * 1024;

let limitSetting = DEFAULT_BUFFER_LIMIT_BYTES;

/** Sets the largest float32 weight kept as one tensor (tests set it low); null: the default. */
export function setBufferLimitBytes(bytes: number | null): void {
  if (bytes !== null && !(bytes >= 4))
    throw new Error(`buffer limit must be >= 4 bytes, got ${bytes}`);
  limitSetting = bytes ?? DEFAULT_BUFFER_LIMIT_BYTES;
}

/**
 * The largest float32 weight kept as one tensor: the setting, or on WebGPU the device's
 * maxStorageBufferBindingSize (or maxBufferSize) when smaller.
 */
export function bufferLimitBytes(): number {
  const limits = fastPaths.gpuLimits();
  if (!limits) return limitSetting;
  return Math.min(
    limitSetting,
    limits.maxStorageBufferBindingSize ?? Infinity,
    limits.maxBufferSize ?? Infinity,
  );
}

/** Throws with a clear message when a float32 weight would pass the buffer limit. */
export function assertFitsBuffer(name: string, numbers: number): void {
  const limit = bufferLimitBytes();
  if (numbers * 4 <= limit) return;
  throw new Error(
    `${name} is ${mebibytes(numbers * 4)} as float32, more than the ${mebibytes(limit)} ` +
      'one buffer may hold here; only the embedding and the output head are split by vocabulary. ' +
      'Fix: pick a smaller model.',
  );
}

function mebibytes(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(bytes < 2 ** 20 ? 3 : 0)} MiB`;
}

/**
 * Widths of the vocabulary chunks of a (D, V) float32 matrix under `limitBytes`, or null when it
 * fits whole: as few chunks as fit, of near-equal width (a multiple of 8 where that still fits),
 * the last one the rest.
 */
export function vocabChunkWidths(
  vocab: number,
  depth: number,
  limitBytes: number,
): number[] | null {
  if (vocab * depth * 4 <= limitBytes) return null;
  const most = Math.floor(limitBytes / (4 * depth));
  if (most < 1)
    throw new Error(`a buffer limit of ${limitBytes} bytes holds no column of ${depth} float32s`);
  const even = Math.ceil(vocab / Math.ceil(vocab / most));
  const width = Math.ceil(even / 8) * 8 <= most ? Math.ceil(even / 8) * 8 : even;
  const widths: number[] = [];
  for (let start = 0; start < vocab; start += width) widths.push(Math.min(width, vocab - start));
  return widths;
}

/** A (D, V) matrix (the embedding, or lm_head) held as float32 variables (D, Vc) side by side. */
export class VocabSplit {
  /** The first vocabulary id of each chunk. */
  readonly offsets: number[];

  constructor(
    /** The checkpoint's tensor name, e.g. model.embed_tokens.weight. */
    readonly name: string,
    readonly chunks: tf.Variable[],
  ) {
    let start = 0;
    this.offsets = chunks.map((chunk) => {
      const offset = start;
      start += chunk.shape[1]!;
      return offset;
    });
  }

  /**
   * From the checkpoint's rows (V, D) (Hugging Face layout), one chunk at a time: the whole
   * matrix never exists as one tensor.
   */
  static fromRows(
    name: string,
    rows: Float32Array,
    depth: number,
    widths: number[],
    trainable: boolean,
  ): VocabSplit {
    let start = 0;
    const chunks = widths.map((width) => {
      const piece = rows.subarray(start * depth, (start + width) * depth);
      start += width;
      const value = tf.tidy(() => tf.transpose(tf.tensor2d(piece, [width, depth]))); // (D, Vc)
      const variable = tf.variable(value, trainable);
      value.dispose();
      return variable;
    });
    return new VocabSplit(name, chunks);
  }

  /** (D, V), as the unsplit matrix. */
  get shape(): [number, number] {
    const vocab = this.chunks.reduce((sum, chunk) => sum + chunk.shape[1]!, 0);
    return [this.chunks[0]!.shape[0]!, vocab];
  }

  /** Whether the chunks train (full fine-tuning); all of them alike. */
  get trainable(): boolean {
    return this.chunks[0]!.trainable;
  }

  /** The name of chunk `index` among variables by name: `<name>#<index>`. */
  chunkName(index: number): string {
    return `${this.name}#${index}`;
  }
}

/** Whether a weight is split by vocabulary. */
export function isSplit(weight: unknown): weight is VocabSplit {
  return weight instanceof VocabSplit;
}

/**
 * Rows (N, D) for `ids` (N): each chunk's columns for the ids inside it, zero rows for the others,
 * summed (one nonzero term a row, so exactly the unsplit lookup). With `differentiable`, each
 * trainable chunk gets its gradient (ops.ts embedColumns; the masked rows scatter zeros).
 */
export function splitColumns(
  split: VocabSplit,
  ids: tf.Tensor1D,
  differentiable: boolean,
): tf.Tensor2D {
  return tf.tidy(() => {
    const pieces = split.chunks.map((chunk, c) => {
      const start = tf.scalar(split.offsets[c]!, 'int32');
      const end = tf.scalar(split.offsets[c]! + chunk.shape[1]!, 'int32');
      const inside = tf.logicalAnd(tf.greaterEqual(ids, start), tf.less(ids, end)); // (N,)
      const local = tf.where(inside, tf.sub(ids, start), tf.zerosLike(ids)) as tf.Tensor1D;
      const table = chunk as tf.Tensor2D;
      const rows = differentiable
        ? embedColumns(table, local, chunk.trainable)
        : (embeddingRows(table, local) ??
          permute(tf.gather(table, local, 1) as tf.Tensor2D, [1, 0])); // (N, D)
      return tf.mul(rows, tf.reshape(tf.cast(inside, 'float32'), [-1, 1])) as tf.Tensor2D;
    });
    return sumTensors(pieces);
  });
}

/** Logits (N, V) for hidden rows (N, D): the chunks' products side by side. */
export function splitLogits(split: VocabSplit, hidden: tf.Tensor2D): tf.Tensor2D {
  return tf.tidy(() =>
    tf.concat(
      split.chunks.map((chunk) => matMul2d(hidden, chunk as tf.Tensor2D)),
      1,
    ),
  );
}

/**
 * logPartition (ops.ts) over a split head: each chunk's log-sum-exp (its own custom gradient to h
 * and, when trainable, to the chunk), combined as log Σ_c exp(lse_c), whose gradient weighs chunk
 * c by exp(lse_c - lse): its share of the softmax's mass.
 */
export function splitLogPartition(
  h: tf.Tensor2D,
  split: VocabSplit,
  temperature: number,
  trainable: boolean,
  keepSoftmax = false,
): tf.Tensor1D {
  const parts = split.chunks.map((chunk) =>
    logPartition(h, chunk as tf.Tensor2D, temperature, trainable, keepSoftmax),
  ); // k x (C,)
  const combine = customOp(([values], save) => {
    const value = tf.logSumExp(values!, 1); // (C,)
    save([values!, value]);
    return {
      value,
      gradFunc: (dy, [xs, lse]) =>
        tf.mul(tf.exp(tf.sub(xs!, tf.reshape(lse!, [-1, 1]))), tf.reshape(dy, [-1, 1])), // (C, k)
    };
  });
  return combine(tf.stack(parts, 1)) as tf.Tensor1D;
}

/** The head's columns for `ids` (ops.ts embedColumns), chunk by chunk for a split head. */
export function headColumns(
  head: tf.Tensor2D | HalfWeight | VocabSplit,
  ids: tf.Tensor1D,
  trainable: boolean,
): tf.Tensor2D {
  return isSplit(head) ? splitColumns(head, ids, true) : embedColumns(head, ids, trainable);
}

/** The head's log-partition (ops.ts logPartition), chunk by chunk for a split head. */
export function headLogPartition(
  h: tf.Tensor2D,
  head: tf.Tensor2D | HalfWeight | VocabSplit,
  temperature: number,
  trainable: boolean,
  keepSoftmax = false,
): tf.Tensor1D {
  return isSplit(head)
    ? splitLogPartition(h, head, temperature, trainable, keepSoftmax)
    : logPartition(h, head, temperature, trainable, keepSoftmax);
}
