// Frozen 16-bit weights on the GPU as the checkpoint ships them: BF16 or F16 numbers two a u32
// word, rows padded to a whole word, held as int32 tfjs tensors (so tfjs's memory accounting and
// disposal cover them, and both the decoding engine and the training kernels bind the same
// buffers). A matrix past the 128 MiB one buffer may bind by default (an embedding of 151,936
// tokens) is split into row chunks, each its own tensor.
import * as tf from '@tensorflow/tfjs';
import type { HalfKind } from './wgsl_common.ts';

/** Bytes one WebGPU storage binding may hold by default (maxStorageBufferBindingSize). */
export const GPU_BINDING_LIMIT = 128 * 2 ** 20;

/** One chunk of rows of a packed matrix. */
export interface Packed16Chunk {
  /** (rows, ceil(cols / 2)) int32: each word two 16-bit numbers, the lower column in the low half. */
  tensor: tf.Tensor2D;
  /** First row of the chunk in the matrix. */
  start: number;
  rows: number;
}

/** A frozen (rows, cols) 16-bit matrix on the GPU. */
export interface Packed16 {
  kind: HalfKind;
  rows: number;
  cols: number;
  chunks: Packed16Chunk[];
}

/** Rows per chunk so a chunk's words fit `limit` bytes. */
export function chunkRows(rows: number, cols: number, limit = GPU_BINDING_LIMIT): number {
  const rowBytes = Math.ceil(cols / 2) * 4;
  return Math.max(1, Math.min(rows, Math.floor(limit / rowBytes)));
}

/**
 * Uploads a (rows, cols) matrix of 16-bit numbers (row-major, as in a safetensors file) to the
 * active backend as packed words, in chunks of at most `limit` bytes.
 */
export function packed16(
  bits: Uint16Array,
  rows: number,
  cols: number,
  kind: HalfKind,
  limit = GPU_BINDING_LIMIT,
): Packed16 {
  if (bits.length !== rows * cols)
    throw new Error(`packed16: ${bits.length} numbers for a ${rows} x ${cols} matrix`);
  const words = Math.ceil(cols / 2);
  const per = chunkRows(rows, cols, limit);
  const chunks: Packed16Chunk[] = [];
  for (let start = 0; start < rows; start += per) {
    const count = Math.min(per, rows - start);
    let data: Int32Array;
    if (cols % 2 === 0) {
      // the file's bytes are already the packed words
      const slice = bits.subarray(start * cols, (start + count) * cols);
      data = new Int32Array(
        slice.buffer.slice(slice.byteOffset, slice.byteOffset + slice.byteLength),
      );
    } else {
      const padded = new Uint16Array(count * words * 2);
      for (let r = 0; r < count; r++)
        padded.set(bits.subarray((start + r) * cols, (start + r + 1) * cols), r * words * 2);
      data = new Int32Array(padded.buffer);
    }
    // kept: a weight lives until disposePacked16, even when built inside a tf.tidy
    chunks.push({
      tensor: tf.keep(tf.tensor2d(data, [count, words], 'int32')),
      start,
      rows: count,
    });
  }
  return { kind, rows, cols, chunks };
}

/** Bytes a packed matrix holds on the GPU. */
export function packed16Bytes(matrix: Packed16): number {
  return matrix.chunks.reduce((sum, c) => sum + c.tensor.size * 4, 0);
}

/** Frees a packed matrix's tensors. */
export function disposePacked16(matrix: Packed16): void {
  for (const chunk of matrix.chunks) chunk.tensor.dispose();
}
