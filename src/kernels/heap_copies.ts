// Copies inside the wasm heap, and the differentiable joins and splits built on them: a shared
// prefix's rows and keys (decoder.ts ForwardInput.prefix) and the in-place KV cache's slots
// (kv_cache.ts). On wasm, tfjs's slice, split, tile and the gradient of a concat that is not along
// the first axis run a JavaScript loop over every number; a copy here is one copyWithin per
// contiguous run. Off wasm (or without our kernels) the joins and splits are tfjs's ops.
import * as tf from '@tensorflow/tfjs';
import { simdMatMulActive, wasmHeap } from './matmul/kernels.ts';
import { registerWasmKernel } from './tfjs/wasm_backend.ts';

/**
 * A float32 tensor of the given shape whose values are whatever the wasm allocator left there (wasm
 * only).
 */
const UNFILLED = 'AgenticRlUnfilled';
registerWasmKernel(UNFILLED, ({ attrs }, wasm) =>
  wasm.makeOutput((attrs as unknown as { shape: number[] }).shape, 'float32'),
);

/**
 * x (1, ...) repeated `batch` times along axis 0, differentiable: the gradient sums the copies'.
 * For a shared prefix's keys and values (decoder.ts ForwardInput.prefix); tf.tile took ~4 ms for a
 * 110-token prefix's keys of the demo model on wasm, and its gradient more.
 */
export function repeatBatch(x: tf.Tensor, batch: number): tf.Tensor {
  return tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const input = args[0] as tf.Tensor;
    return {
      value: tf.concat(new Array<tf.Tensor>(batch).fill(input), 0),
      gradFunc: (dy: tf.Tensor) => tf.reshape(tf.sum(tf.reshape(dy, [batch, -1]), 0), input.shape),
    };
  })(x);
}

/**
 * concat([a, b], 2) of (B, H, Sa, hd) and (B, H, Sb, hd), differentiable: a shared prefix's keys
 * before each sequence's own. On wasm both ways are copies inside the heap (joined): tfjs's
 * gradient (a split, tf.slice per piece) ran a JavaScript loop over every number of the 4-D
 * gradient.
 */
export function concatTime(a: tf.Tensor, b: tf.Tensor): tf.Tensor {
  if (!simdMatMulActive()) return tf.concat([a, b], 2);
  const [B, H, Sa, hd] = a.shape as [number, number, number, number];
  return joined(a, b, B * H, [B, H, Sa + b.shape[2]!, hd]);
}

/**
 * x (N, D) as its first `first` rows and the rest, differentiable: a shared prefix's rows and the
 * sequences' (decoder.ts ForwardInput.prefix). On wasm each part is one copy inside the heap (and
 * its gradient one into zeros), where tf.split's slices took ~0.4 ms for 700 x 192.
 */
export function splitRows(x: tf.Tensor2D, first: number): [tf.Tensor2D, tf.Tensor2D] {
  if (!simdMatMulActive())
    return tf.split(x, [first, x.shape[0] - first], 0) as [tf.Tensor2D, tf.Tensor2D];
  return [rowRange(x, 0, first), rowRange(x, first, x.shape[0] - first)];
}

/**
 * Rows [start, start + count) of x (N, D); the gradient is dy in those rows of zeros (wasm only).
 */
function rowRange(x: tf.Tensor2D, start: number, count: number): tf.Tensor2D {
  const D = x.shape[1];
  const take = (input: tf.Tensor) => {
    const out = unfilled([count, D]);
    copySlices(input, start * D, 0, out, 0, 0, 1, count * D);
    return out as tf.Tensor2D;
  };
  if (!tf.engine().isTapeOn()) return take(x);
  return tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => ({
    value: take(args[0] as tf.Tensor),
    gradFunc: (dy: tf.Tensor) => {
      // zeros outside the rows, set in the heap (tf.zeros builds them in JavaScript and uploads
      // them)
      const dx = unfilled(x.shape);
      const heap = wasmHeap();
      const at = heap.index(dx);
      heap.floats.fill(0, at, at + start * D);
      heap.floats.fill(0, at + (start + count) * D, at + x.size);
      copySlices(dy, 0, 0, dx, start * D, 0, 1, count * D);
      return dx;
    },
  }))(x) as tf.Tensor2D;
}

/**
 * concat([a, b], 0) of (Na, D) and (Nb, D), differentiable (the gradient splits); see splitRows.
 */
export function concatRows(a: tf.Tensor2D, b: tf.Tensor2D): tf.Tensor2D {
  if (!simdMatMulActive()) return tf.concat([a, b], 0);
  return joined(a, b, 1, [a.shape[0] + b.shape[0], a.shape[1]]) as tf.Tensor2D;
}

/**
 * a and b, each `outer` runs of numbers, joined run by run into a tensor of `shape` (run i of a,
 * then run i of b), differentiable: the gradient splits dy's runs back. Copies inside the heap.
 */
function joined(a: tf.Tensor, b: tf.Tensor, outer: number, shape: number[]): tf.Tensor {
  const [ra, rb] = [a.size / outer, b.size / outer];
  const join = (x: tf.Tensor, y: tf.Tensor) => {
    const out = unfilled(shape);
    copySlices(x, 0, ra, out, 0, ra + rb, outer, ra);
    copySlices(y, 0, rb, out, ra, ra + rb, outer, rb);
    return out;
  };
  if (!tf.engine().isTapeOn()) return join(a, b);
  return tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => ({
    value: join(args[0] as tf.Tensor, args[1] as tf.Tensor),
    gradFunc: (dy: tf.Tensor) => {
      const [da, db] = [unfilled(a.shape), unfilled(b.shape)];
      copySlices(dy, 0, ra + rb, da, 0, ra, outer, ra);
      copySlices(dy, ra, ra + rb, db, 0, rb, outer, rb);
      return [da, db];
    },
  }))(a, b);
}

/**
 * A float32 tensor of `shape` whose values are whatever the wasm allocator left there (wasm only).
 */
export function unfilled(shape: number[]): tf.Tensor {
  return tf.engine().runKernel(UNFILLED, {}, { shape } as unknown as tf.NamedAttrMap) as tf.Tensor;
}

/**
 * Copies `count` runs of `length` floats inside the wasm heap: run i starts at `fromOffset + i *
 * fromStride` in `from` and lands at `toOffset + i * toStride` in `to` (offsets in floats).
 */
export function copySlices(
  from: tf.Tensor,
  fromOffset: number,
  fromStride: number,
  to: tf.Tensor,
  toOffset: number,
  toStride: number,
  count: number,
  length: number,
): void {
  const heap = wasmHeap(); // a fresh view: earlier allocations may have grown the heap
  const source = heap.index(from) + fromOffset;
  const target = heap.index(to) + toOffset;
  for (let i = 0; i < count; i++) {
    const start = source + i * fromStride;
    heap.floats.copyWithin(target + i * toStride, start, start + length);
  }
}
