// Replacements for five tfjs-wasm 4.22 kernels that cost a training step time for no numeric
// reason, registered in front of the originals (the kernel registry is how tfjs lets a backend's
// kernels be replaced) the first time our wasm kernels are used (matmul/kernels.ts kernelsFor):
// - Transpose goes number by number through a generic N-dimensional loop; every transpose that
//   swaps the last two axes of a float32 tensor (after dropping axes of size 1, as tfjs-wasm does),
//   or two adjacent axes before trailing ones of a multiple of 4 numbers (attention's head
//   layout), autograd's included, takes a SIMD kernel of simd/transpose.ts instead, the same bits.
// - Identity (tf.clone, and the clone autograd makes of every tensor a gradient saves: ~320 per
//   training step of the bench model, 7.7 ms) and Cast to the same dtype (the multiply gradient
//   casts its operands to float32: 85 per step, 1.9 ms) copy the data. The cpu and webgpu
//   backends, and tfjs-wasm's own Reshape, share it by reference count instead. tfjs never writes
//   a tensor after making it (our KV cache writes only into buffers it owns and never clones), so
//   the copies cost only time and memory. A cast to another dtype still converts.
// - Max over the last axis (the output head's row maxima) runs at ~1.3 ns a number; simd/max.ts's
//   kernel takes float32 rows at memory speed (NaN: see there).
// - GatherV2 runs a generic C++ loop with index arithmetic per number: 3.5 ms to pick 512
//   columns of the bench model's 256 x 2000 embedding (twice per step: the input tokens and the
//   targets), and as much per row-gather. Here it is a JavaScript loop over the heap: whole
//   slices copied with copyWithin when each index picks a contiguous run, one number at a time
//   when it picks a column. Same numbers (a copy), and the same error for an index out of range.
import * as tf from '@tensorflow/tfjs';
import { instantiateTranspose } from '../simd/transpose.ts';
import { simdMaxModule, type RowMaxKernel } from '../simd/max.ts';
import {
  asWasm,
  byteOffset,
  heapModule,
  wasmMemory,
  type WasmBackendLike,
} from './wasm_backend.ts';
import { kernelCounts, switches } from '../switches.ts';

let installed = false;

/**
 * Registers the replacements for the wasm backend (once; a no-op where the originals are missing).
 */
export function installWasmOverrides(): void {
  if (installed) return;
  installed = true;
  replace('Transpose', ({ inputs, backend, attrs }) =>
    switches.simdTranspose
      ? simdTranspose(
          (inputs as { x: tf.TensorInfo }).x,
          (attrs as { perm: number[] }).perm,
          asWasm(backend),
        )
      : null,
  );
  replace('Identity', ({ inputs, backend }) =>
    shareData((inputs as { x: tf.TensorInfo }).x, asWasm(backend)),
  );
  replace('Cast', ({ inputs, backend, attrs }) => {
    const x = (inputs as { x: tf.TensorInfo }).x;
    return (attrs as { dtype: tf.DataType }).dtype === x.dtype
      ? shareData(x, asWasm(backend))
      : null;
  });
  replace('Max', ({ inputs, backend, attrs }) => {
    const x = (inputs as { x: tf.TensorInfo }).x;
    const { reductionIndices, keepDims } = attrs as {
      reductionIndices: number | number[];
      keepDims: boolean;
    };
    const axes = (Array.isArray(reductionIndices) ? reductionIndices : [reductionIndices]).map(
      (axis) => (axis < 0 ? axis + x.shape.length : axis),
    );
    if (
      x.dtype !== 'float32' ||
      axes.length !== 1 ||
      axes[0] !== x.shape.length - 1 ||
      x.shape[axes[0]]! === 0
    )
      return null;
    return rowMax(x, keepDims, asWasm(backend));
  });
  replace('GatherV2', ({ inputs, backend, attrs }) => {
    const { x, indices } = inputs as { x: tf.TensorInfo; indices: tf.TensorInfo };
    const { axis, batchDims } = attrs as { axis: number; batchDims: number };
    if (batchDims !== 0 || x.dtype !== 'float32' || indices.dtype !== 'int32') return null;
    return gather(x, indices, axis < 0 ? axis + x.shape.length : axis, asWasm(backend));
  });
}

/** Where a wrapper registered by replace() keeps the kernel it stands in front of. */
const ORIGINAL = Symbol.for('agentic-rl.tfjs-wasm-override-original');
type Wrapped = tf.KernelConfig & { [ORIGINAL]?: tf.KernelConfig };

/**
 * Puts `ours` in front of tfjs-wasm's kernel `name`; where `ours` returns null the original runs.
 * A wrapper already there (this module evaluated again over the same tfjs, as test files sharing
 * tfjs do) is taken off first: one wrapper, reading this copy's switches, never a stack of them.
 */
function replace(
  name: string,
  ours: (args: Parameters<tf.KernelFunc>[0]) => tf.TensorInfo | null,
): void {
  const registered = tf.getKernel(name, 'wasm') as Wrapped | undefined;
  if (!registered) return;
  const original = registered[ORIGINAL] ?? registered;
  tf.unregisterKernel(name, 'wasm');
  const wrapper: Wrapped = {
    ...original,
    kernelFunc: (args) =>
      (switches.tfjsWasmOverrides ? ours(args) : null) ?? original.kernelFunc(args),
  };
  Object.defineProperty(wrapper, ORIGINAL, { value: original });
  tf.registerKernel(wrapper);
}

const transposeKernels = new WeakMap<WebAssembly.Memory, ReturnType<typeof instantiateTranspose>>();

/**
 * The SIMD transpose when `perm` (axes of size 1 dropped) swaps two adjacent axes and keeps the
 * rest in place: the last two (the 4 x 4 block kernel), or two before a run of trailing axes of a
 * multiple of 4 numbers (the block-copy kernel); else null.
 */
function simdTranspose(
  x: tf.TensorInfo,
  perm: number[],
  backend: WasmBackendLike,
): tf.TensorInfo | null {
  if (x.dtype !== 'float32') return null;
  const kept = x.shape.map((_, axis) => axis).filter((axis) => x.shape[axis] !== 1);
  const moved = perm.filter((axis) => x.shape[axis] !== 1);
  const n = kept.length;
  const p = moved.findIndex((axis, i) => axis !== kept[i]); // the first of the two swapped axes
  if (n < 2 || p < 0 || p > n - 2 || moved[p] !== kept[p + 1] || moved[p + 1] !== kept[p])
    return null;
  for (let a = p + 2; a < n; a++) if (moved[a] !== kept[a]) return null;
  const size = (axes: number[]) => axes.reduce((q, axis) => q * x.shape[axis]!, 1);
  const inner = size(kept.slice(p + 2));
  if (inner !== 1 && inner % 4 !== 0) return null;
  const memory = wasmMemory(backend);
  if (!memory) return null;
  if (!transposeKernels.has(memory)) transposeKernels.set(memory, instantiateTranspose(memory));
  const kernels = transposeKernels.get(memory);
  if (!kernels) return null;
  const [batch, rows, columns] = [
    size(kept.slice(0, p)),
    x.shape[kept[p]!]!,
    x.shape[kept[p + 1]!]!,
  ];
  const out = backend.makeOutput(
    perm.map((axis) => x.shape[axis]!),
    'float32',
  );
  const [from, to] = [byteOffset(backend, x), byteOffset(backend, out)]; // after the allocation
  if (inner === 1) kernels.transpose(from, to, batch, rows, columns);
  else kernels.blocks(from, to, batch, rows, columns, inner);
  kernelCounts.simdTransposes++;
  return out;
}

/**
 * The largest number of each row of x (over its last axis), by simd/max.ts's kernel; null without
 * WebAssembly SIMD.
 */
function rowMax(
  x: tf.TensorInfo,
  keepDims: boolean,
  backend: WasmBackendLike,
): tf.TensorInfo | null {
  const kernel = heapModule(backend, 'rowMax', simdMaxModule)?.rowMax as RowMaxKernel | undefined;
  if (!kernel) return null;
  kernelCounts.simdMaxes++;
  const cols = x.shape[x.shape.length - 1]!;
  const out = backend.makeOutput([...x.shape.slice(0, -1), ...(keepDims ? [1] : [])], 'float32');
  kernel(byteOffset(backend, x), byteOffset(backend, out), product(x.shape) / cols, cols); // offsets after the allocation
  return out;
}

function shareData(x: tf.TensorInfo, backend: WasmBackendLike): tf.TensorInfo | null {
  if (x.dtype === 'string') return null;
  backend.incRef(x.dataId);
  return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
}

const product = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);

/** out[o, i, :] = x[o, indices[i], :], with x viewed as (outer, dim, inner). */
function gather(
  x: tf.TensorInfo,
  indices: tf.TensorInfo,
  axis: number,
  backend: WasmBackendLike,
): tf.TensorInfo {
  const dim = x.shape[axis]!;
  const outer = product(x.shape.slice(0, axis));
  const inner = product(x.shape.slice(axis + 1));
  const picks = Int32Array.from(backend.readSync(indices.dataId));
  for (const index of picks) {
    if (!(index >= 0 && index < dim))
      throw new Error(`GatherV2: the index value ${index} is not in [0, ${dim - 1}]`);
  }
  const out = backend.makeOutput(
    [...x.shape.slice(0, axis), ...indices.shape, ...x.shape.slice(axis + 1)],
    'float32',
  );
  // views after makeOutput: an allocation may grow the heap
  const source = backend.typedArrayFromHeap(x) as Float32Array;
  const target = backend.typedArrayFromHeap(out) as Float32Array;
  const count = picks.length;
  if (inner === 1) {
    for (let o = 0; o < outer; o++) {
      const from = o * dim;
      const to = o * count;
      for (let i = 0; i < count; i++) target[to + i] = source[from + picks[i]!]!;
    }
  } else {
    for (let o = 0; o < outer; o++) {
      for (let i = 0; i < count; i++) {
        const from = (o * dim + picks[i]!) * inner;
        target.set(source.subarray(from, from + inner), (o * count + i) * inner);
      }
    }
  }
  return out;
}
