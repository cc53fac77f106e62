// Frozen weights kept 16 bits a number (BF16, or F16 for F16 checkpoints), as the checkpoint ships
// them, resident in the dot store's memory (matmul/decode_products.ts) and widened to float32
// inside our kernels as they are read: half the bytes of float32 weights, and no second full-size
// copy. A 0.5B model's weights are ~1 GB this way, which is why that memory may grow to 4 GB. This
// file keeps the residents and registers the tfjs kernels; the products run in
// matmul/weights16_products.ts. Rows of the embedding and whole matrices are widened in JavaScript
// (a shift for BF16, a table of the 65536 patterns for F16), straight into the output tensor on
// tfjs's heap.
import * as tf from '@tensorflow/tfjs';
import { dotStore } from './decode_products.ts';
import { type HalfKind, halfToFloatBits, type Resident16 } from '../simd/half.ts';
import { ROWS_ARE_INPUTS, ROWS_ARE_OUTPUTS } from '../simd/panel16.ts';
import {
  asWasm,
  byteOffset,
  registerWasmKernel,
  wasmMemory,
  type WasmBackendLike,
} from '../tfjs/wasm_backend.ts';
import { KINDS, kernels, run } from './weights16_products.ts';

export type { HalfKind } from '../simd/half.ts';
export { DOT_MAX_ROWS } from './weights16_products.ts';

export type { Resident16 } from '../simd/half.ts';

/** Bytes left after each weight: a panel16 load of a row's last 8 numbers may read past it. */
const SLACK = 16;

/** Whether the 16-bit path is available (wasm backend with the dot store / relaxed SIMD). */
export function resident16Active(): boolean {
  return tf.getBackend() === 'wasm' && !!wasmMemory(asWasm(tf.backend())) && kernels() !== null;
}

const residents = new Map<number, Resident16>();
let residentBytes = 0;

const megabytes = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;

/**
 * Copies `bits` (rows*cols raw 16-bit values as shipped in safetensors, little endian) into the
 * store; throws a clear error past the memory's maximum.
 */
export function storeResident16(
  bits: Uint16Array,
  rows: number,
  cols: number,
  kind: HalfKind,
): Resident16 {
  if (!resident16Active())
    throw new Error(
      'storeResident16: 16-bit weights need the wasm backend with relaxed SIMD (resident16Active() is false); load float32 weights instead',
    );
  if (!(Number.isInteger(rows) && rows > 0 && Number.isInteger(cols) && cols > 0))
    throw new Error(`storeResident16: ${rows} x ${cols} is not a matrix shape`);
  if (bits.length !== rows * cols)
    throw new Error(`storeResident16: ${bits.length} values for a ${rows} x ${cols} matrix`);
  if (!KINDS.includes(kind)) throw new Error(`storeResident16: unknown kind ${kind}`);
  const store = dotStore()!;
  const bytes = rows * cols * 2;
  const offset = store.claim(bytes + SLACK);
  if (offset === null)
    throw new Error(
      `storeResident16: no room for a ${rows} x ${cols} ${kind} matrix (${megabytes(bytes)}): the 16-bit weights' memory holds at most ${megabytes(store.maxPages * 65536)}, and ${megabytes(residentBytes)} of 16-bit weights are already there. Fix: a smaller model, or release the previous one's weights first`,
    );
  new Uint16Array(store.memory.buffer, offset, rows * cols).set(bits);
  const weight: Resident16 = Object.freeze({ offset, rows, cols, kind });
  residents.set(offset, weight);
  residentBytes += bytes;
  return weight;
}

/** Frees the weight's space in the store (its offset is reused); a second release does nothing. */
export function releaseResident16(w: Resident16): void {
  if (residents.get(w.offset) !== w) return;
  residents.delete(w.offset);
  residentBytes -= w.rows * w.cols * 2;
  dotStore()!.unclaim(w.offset, w.rows * w.cols * 2 + SLACK);
}

/** Bytes the resident 16-bit weights hold in all (memory accounting). */
export function resident16Bytes(): number {
  return residentBytes;
}

/**
 * Throws unless `w` is a weight storeResident16 returned and not yet released (a released one's
 * space may hold another weight by now).
 */
export function checkLive(w: Resident16, caller: string): void {
  if (residents.get(w.offset) !== w)
    throw new Error(`${caller}: the 16-bit weight (${w.rows} x ${w.cols}) has been released`);
}

const KERNEL_PRODUCT = 'AgenticRlWeights16Product';
const KERNEL_ROWS = 'AgenticRlWeights16Rows';
const KERNEL_WIDEN = 'AgenticRlWeights16Widen';

/** A resident weight as kernel attributes (plus the product's layout, or widen's transposition). */
interface WeightAttrs {
  offset: number;
  rows: number;
  cols: number;
  kind: HalfKind;
  layout?: number;
  transposed?: boolean;
}

const weightOf = ({ offset, rows, cols, kind }: WeightAttrs): Resident16 => ({
  offset,
  rows,
  cols,
  kind,
});

/** Fresh views of tfjs's heap. */
const heapOf = (wasm: WasmBackendLike) => ({
  floats: () => new Float32Array(wasmMemory(wasm)!.buffer),
  words: () => new Uint32Array(wasmMemory(wasm)!.buffer),
});

registerWasmKernel(KERNEL_PRODUCT, ({ inputs, attrs }, wasm) => {
  const { x } = inputs as { x: tf.TensorInfo };
  const w = weightOf(attrs as unknown as WeightAttrs);
  const layout = (attrs as unknown as WeightAttrs).layout!;
  const name = layout === ROWS_ARE_OUTPUTS ? 'productT16' : 'product16';
  const [k, n] = layout === ROWS_ARE_OUTPUTS ? [w.cols, w.rows] : [w.rows, w.cols];
  if (x.shape.length !== 2 || x.shape[1] !== k || x.dtype !== 'float32')
    throw new Error(
      `${name}: a ${x.dtype} (${x.shape}) does not multiply a ${w.rows} x ${w.cols} weight${layout === ROWS_ARE_OUTPUTS ? "'s transpose" : ''} (want float32 (m, ${k}))`,
    );
  const m = x.shape[0]!;
  const out = wasm.makeOutput([m, n], 'float32');
  if (m > 0)
    run(
      { w, layout, m, k, n },
      heapOf(wasm).floats,
      byteOffset(wasm, x) / 4,
      byteOffset(wasm, out) / 4,
    );
  return out;
});

let f16Table: Uint32Array | null = null;

/** dst[d ..] = the float32 bits of `count` 16-bit numbers from src[s ..]. */
function widenRun(
  kind: HalfKind,
  src: Uint16Array,
  s: number,
  dst: Uint32Array,
  d: number,
  count: number,
): void {
  if (kind === 'bf16') {
    for (let i = 0; i < count; i++) dst[d + i] = src[s + i]! << 16;
    return;
  }
  f16Table ??= Uint32Array.from({ length: 65536 }, (_, h) => halfToFloatBits('f16', h));
  const table = f16Table;
  for (let i = 0; i < count; i++) dst[d + i] = table[src[s + i]!]!;
}

registerWasmKernel(KERNEL_ROWS, ({ inputs, attrs }, wasm) => {
  const { ids } = inputs as { ids: tf.TensorInfo };
  const w = weightOf(attrs as unknown as WeightAttrs);
  if (ids.shape.length !== 1) throw new Error(`rows16: ids of shape (${ids.shape}), not (N)`);
  const picks = Array.from(wasm.readSync(ids.dataId));
  for (const id of picks)
    if (!(Number.isInteger(id) && id >= 0 && id < w.rows))
      throw new Error(`rows16: token id ${id} is not in [0, ${w.rows - 1}]`);
  const out = wasm.makeOutput([picks.length, w.cols], 'float32');
  const src = new Uint16Array(dotStore()!.memory.buffer);
  const dst = heapOf(wasm).words();
  const at = byteOffset(wasm, out) / 4;
  picks.forEach((id, i) =>
    widenRun(w.kind, src, w.offset / 2 + id * w.cols, dst, at + i * w.cols, w.cols),
  );
  return out;
});

/** Side of the square blocks a transposed widening goes by (both in cache). */
const TRANSPOSE_BLOCK = 64;

registerWasmKernel(KERNEL_WIDEN, ({ attrs }, wasm) => {
  const w = weightOf(attrs as unknown as WeightAttrs);
  const { rows, cols, kind } = w;
  const transposed = (attrs as unknown as WeightAttrs).transposed!;
  const out = wasm.makeOutput(transposed ? [cols, rows] : [rows, cols], 'float32');
  const src = new Uint16Array(dotStore()!.memory.buffer);
  const dst = heapOf(wasm).words();
  const [s, d] = [w.offset / 2, byteOffset(wasm, out) / 4];
  if (!transposed) {
    widenRun(kind, src, s, dst, d, rows * cols);
    return out;
  }
  const block = new Uint32Array(TRANSPOSE_BLOCK * TRANSPOSE_BLOCK);
  for (let r0 = 0; r0 < rows; r0 += TRANSPOSE_BLOCK)
    for (let c0 = 0; c0 < cols; c0 += TRANSPOSE_BLOCK) {
      const [height, width] = [
        Math.min(TRANSPOSE_BLOCK, rows - r0),
        Math.min(TRANSPOSE_BLOCK, cols - c0),
      ];
      for (let r = 0; r < height; r++)
        widenRun(kind, src, s + (r0 + r) * cols + c0, block, r * TRANSPOSE_BLOCK, width);
      for (let c = 0; c < width; c++)
        for (let r = 0; r < height; r++)
          dst[d + (c0 + c) * rows + r0 + r] = block[r * TRANSPOSE_BLOCK + c]!;
    }
  return out;
});

const attrsOf = (w: Resident16, extra: Partial<WeightAttrs>): tf.NamedAttrMap =>
  ({
    offset: w.offset,
    rows: w.rows,
    cols: w.cols,
    kind: w.kind,
    ...extra,
  }) as unknown as tf.NamedAttrMap;

/**
 * x (m, cols) @ W^T -> (m, rows), float32 tfjs tensor on wasm, no gradient recorded (a plain
 * kernel, like productOnCopy).
 */
export function productT16(x: tf.Tensor2D, w: Resident16): tf.Tensor2D {
  checkLive(w, 'productT16');
  return tf
    .engine()
    .runKernel(KERNEL_PRODUCT, { x }, attrsOf(w, { layout: ROWS_ARE_OUTPUTS })) as tf.Tensor2D;
}

/** g (m, rows) @ W -> (m, cols): the input gradient through a frozen linear layer, dx = dy W. */
export function product16(g: tf.Tensor2D, w: Resident16): tf.Tensor2D {
  checkLive(w, 'product16');
  return tf
    .engine()
    .runKernel(KERNEL_PRODUCT, { x: g }, attrsOf(w, { layout: ROWS_ARE_INPUTS })) as tf.Tensor2D;
}

/**
 * Rows `ids` of W widened to float32, (N, cols): the embedding lookup. Clear error for an id
 * outside [0, rows).
 */
export function rows16(ids: tf.Tensor1D, w: Resident16): tf.Tensor2D {
  checkLive(w, 'rows16');
  return tf.engine().runKernel(KERNEL_ROWS, { ids }, attrsOf(w, {})) as tf.Tensor2D;
}

/** The whole matrix widened to a float32 tensor (rows, cols), or transposed (cols, rows). */
export function widen16(w: Resident16, transposed: boolean): tf.Tensor2D {
  checkLive(w, 'widen16');
  return tf.engine().runKernel(KERNEL_WIDEN, {}, attrsOf(w, { transposed })) as tf.Tensor2D;
}
