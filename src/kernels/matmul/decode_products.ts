// Decoding's linear-layer products, C = A W^T, on the dot-product kernel (simd/dot.ts
// matmulT), with each weight's transposed copy resident in a WebAssembly.Memory of our own rather
// than on tfjs's heap. Why a memory of our own: it can be shared, so the matmul helper threads
// (matmul/threads.ts) read the same copies and each computes a block of C's columns; a product
// then costs a copy of A in (a few KB) and of C out, not of the weights. Where shared memory is
// unavailable (a page that is not cross-origin isolated) the memory is plain and the products run
// on the calling thread, as before.
//
// Layout of the memory: a scratch block for A and C at the start (regrown as products need), then
// the copies. A copy is made once per weight and remade in place when the weight is assigned new
// values (AdamW: a new dataId, same size); space of released copies is reused first-fit, merged
// with released neighbours. Frozen 16-bit weights (matmul/weights16.ts) live here too, outside the
// copies' budget (claim/unclaim).
//
// The module keeps one store for the process (dotStore()), and the functions matmul/dispatch.ts's
// matMul2d and embeddingRows use on it: transposedWeight, rowsOfCopy, and the release and stats.
import * as tf from '@tensorflow/tfjs';
import { instantiateMatmulT, type MatmulTKernel } from '../simd/dot.ts';
import { asWasm, byteOffset, registerWasmKernel, wasmMemory } from '../tfjs/wasm_backend.ts';

/**
 * Largest memory (pages of 64 KB), the first the engine accepts: 4 GB, room for a 0.5B model's
 * frozen 16-bit weights (~1 GB, matmul/weights16.ts) beside the copies' budget and scratch; else 1
 * GB, else 128 MB (a 32-bit engine cannot reserve 4 GB). A shared memory reserves its maximum as
 * address space up front, not as memory: only the pages grown into are committed.
 */
const MAX_PAGES_TRIED = [65536, 16384, 2048];

/** A weight's transposed copy, valid while the weights it was made from keep their data. */
interface Copy {
  sources: tf.Variable[];
  dataIds: object[];
  offset: number;
  numbers: number;
}

/** A block of the memory: byte offset and size (multiples of 16). */
interface Block {
  offset: number;
  bytes: number;
}

/** One product on the store's memory: byte offsets of A (m, k), W (n, k) and C (m, n). */
export interface DotCall {
  a: number;
  w: number;
  c: number;
  m: number;
  k: number;
  n: number;
}

/**
 * Runs `call` split over threads with `kernel` as the caller's share, or returns false having done
 * nothing.
 */
export type DotSplitter = (kernel: MatmulTKernel, call: DotCall) => boolean;

const align = (bytes: number) => Math.ceil(bytes / 16) * 16;

export class DotStore {
  private readonly copies = new Map<number, Copy>();
  private free: Block[] = [];
  private top = 16; // bytes; offset 0 stays unused
  private scratch: Block = { offset: 0, bytes: 0 };
  /** Numbers held by the copies. */
  numbers = 0;

  /** Bytes of the blocks claim() gave out (16-bit resident weights), not counting the copies. */
  claimed = 0;

  private constructor(
    readonly memory: WebAssembly.Memory,
    /** Whether the memory is shared (helper threads can use it). */
    readonly shared: boolean,
    private readonly kernel: MatmulTKernel,
    /** Most numbers the copies may hold. */
    private readonly budget: number,
    /** Largest size of the memory, in pages of 64 KB. */
    readonly maxPages: number,
  ) {}

  /**
   * A store on a shared memory where the engine allows one, else a plain one; null without relaxed
   * SIMD.
   */
  static create(budget: number): DotStore | null {
    const tries = MAX_PAGES_TRIED.flatMap((maximum) =>
      typeof SharedArrayBuffer !== 'undefined'
        ? [
            { maximum, shared: true },
            { maximum, shared: false },
          ]
        : [{ maximum, shared: false }],
    );
    for (const { maximum, shared } of tries) {
      let memory: WebAssembly.Memory;
      try {
        memory = new WebAssembly.Memory({ initial: 1, maximum, shared });
      } catch {
        continue;
      }
      const kernel = instantiateMatmulT(memory, shared);
      return kernel ? new DotStore(memory, shared, kernel, budget, maximum) : null;
    }
    return null;
  }

  /**
   * A block of `bytes` outside the copies' budget, for the frozen 16-bit weights and their
   * products' scratch (matmul/weights16.ts); null past the memory's maximum.
   */
  claim(bytes: number): number | null {
    const offset = this.allocate(bytes);
    if (offset !== null) this.claimed += align(bytes);
    return offset;
  }

  /** Gives back a block claim() gave (its space is reused). */
  unclaim(offset: number, bytes: number): void {
    this.claimed -= align(bytes);
    this.giveBack({ offset, bytes: align(bytes) });
  }

  /** How many copies there are and the numbers they hold. */
  stats(): { copies: number; numbers: number } {
    return { copies: this.copies.size, numbers: this.numbers };
  }

  /**
   * The byte offset of the copy kept under `key` (a tensor id), `numbers` long and made from
   * `sources` by `fill` (which writes the copy into the view it is given) when there is none or a
   * source was assigned since; null when the budget is spent.
   */
  weight(
    key: number,
    sources: tf.Variable[],
    numbers: number,
    fill: (into: Float32Array) => void,
  ): number | null {
    const entry = this.copies.get(key);
    if (
      entry &&
      entry.numbers === numbers &&
      sources.every(
        (source, i) => source === entry.sources[i] && source.dataId === entry.dataIds[i],
      )
    )
      return entry.offset;
    for (const [id, other] of this.copies)
      if (other.sources.some((source) => source.isDisposed)) this.release(id);
    const current = this.copies.get(key); // (unless a source was disposed)
    let offset = current?.numbers === numbers ? current.offset : null; // same size: remade in place
    if (offset === null) {
      if (current) this.release(key);
      if (this.numbers + numbers > this.budget) return null;
      offset = this.allocate(numbers * 4);
      if (offset === null) return null;
      this.numbers += numbers;
    }
    fill(new Float32Array(this.memory.buffer, offset, numbers));
    this.copies.set(key, {
      sources,
      dataIds: sources.map((source) => source.dataId),
      offset,
      numbers,
    });
    return offset;
  }

  /** Drops the copy of the weight with this id (if any); its space is reused. */
  release(id: number): void {
    const entry = this.copies.get(id);
    if (!entry) return;
    this.copies.delete(id);
    this.numbers -= entry.numbers;
    this.giveBack({ offset: entry.offset, bytes: align(entry.numbers * 4) });
  }

  /**
   * Returns a block to the free list, merged with free neighbours, and lowers the top when it ends
   * there: a released gigabyte of 16-bit weights must be reusable whole, in any split.
   */
  private giveBack(block: Block): void {
    const blocks = [...this.free, block].sort((x, y) => x.offset - y.offset);
    const merged: Block[] = [];
    for (const next of blocks) {
      const last = merged[merged.length - 1];
      if (last && last.offset + last.bytes === next.offset) last.bytes += next.bytes;
      else merged.push({ ...next });
    }
    const last = merged[merged.length - 1];
    if (last && last.offset + last.bytes === this.top) {
      this.top = last.offset;
      merged.pop();
    }
    this.free = merged;
  }

  /** The ids of the weights with copies. */
  ids(): number[] {
    return [...this.copies.keys()];
  }

  /**
   * out[outIndex ..] = A @ W^T, A being m x k numbers at `source[aIndex ..]` and W the copy at byte
   * `w` (n rows of k): A is copied in, the product runs (split by `split` when it takes it, else
   * here), C is copied out. `source` and `out` are views the caller made fresh (heaps move).
   */
  product(
    source: () => Float32Array,
    aIndex: number,
    m: number,
    k: number,
    w: number,
    n: number,
    out: () => Float32Array,
    outIndex: number,
    split?: DotSplitter,
  ): void {
    const bytesA = align(m * k * 4);
    const need = bytesA + m * n * 4;
    if (need > this.scratch.bytes) {
      if (this.scratch.bytes > 0) this.giveBack(this.scratch);
      const offset = this.allocate(align(need));
      if (offset === null)
        throw new Error(`dot products: no room for a ${m} x ${k} x ${n} product's operands`);
      this.scratch = { offset, bytes: align(need) };
    }
    const a = this.scratch.offset;
    const c = a + bytesA;
    new Float32Array(this.memory.buffer, a, m * k).set(source().subarray(aIndex, aIndex + m * k));
    if (!split?.(this.kernel, { a, w, c, m, k, n })) this.kernel(a, w, c, m, k, n, n);
    out().set(new Float32Array(this.memory.buffer, c, m * n), outIndex);
  }

  /**
   * Rows `ids` of the copy at byte `w` (rows of `width` numbers) into out[outIndex ..], one after
   * the other: decoding's embedding lookup on the embedding's transposed copy, whole rows instead
   * of one number per row of the (D, V) table.
   */
  rows(w: number, width: number, ids: Int32Array, out: Float32Array, outIndex: number): void {
    const source = new Float32Array(this.memory.buffer);
    const start = w / 4;
    ids.forEach((id, i) =>
      out.set(source.subarray(start + id * width, start + (id + 1) * width), outIndex + i * width),
    );
  }

  /**
   * A block of `bytes` (first fit among released blocks, else at the top, growing the memory); null
   * past the maximum.
   */
  private allocate(bytes: number): number | null {
    bytes = align(bytes);
    const i = this.free.findIndex((block) => block.bytes >= bytes);
    if (i >= 0) {
      const block = this.free[i]!;
      if (block.bytes === bytes) this.free.splice(i, 1);
      else this.free[i] = { offset: block.offset + bytes, bytes: block.bytes - bytes };
      return block.offset;
    }
    const end = this.top + bytes;
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      const pages = Math.ceil((end - have) / 65536);
      if (have / 65536 + pages > this.maxPages) return null;
      try {
        this.memory.grow(pages);
      } catch {
        return null; // the engine could not commit the pages (out of memory)
      }
    }
    const offset = this.top;
    this.top = end;
    return offset;
  }
}

/**
 * Most numbers the transposed copies may hold in all: 8M (32 MB). A model up to ~8M parameters
 * (the demo model, the benchmark's) decodes all on the dot-product kernel; a larger one gets
 * copies for its first weights only and keeps XNNPACK for the rest, rather than doubling its
 * weights' memory (memory_estimate.ts's generous margins absorb the 32 MB).
 */
const TRANSPOSED_BUDGET = 1 << 23;

let store: DotStore | null | undefined;

/**
 * The store of decoding's transposed weight copies, made at first use; null without relaxed SIMD.
 */
export function dotStore(): DotStore | null {
  if (store === undefined) store = DotStore.create(TRANSPOSED_BUDGET);
  return store;
}

/**
 * The byte offset in the store of the weight `w` (k, n) transposed to (n, k), made once on the wasm
 * backend and reused until the variable is assigned new values (AdamW, loading: a new dataId) or
 * disposed; null when the budget is spent.
 */
export function transposedWeight(w: tf.Variable): number | null {
  return dotStore()!.weight(w.id, [w], w.size, (into) =>
    copyInto(into, () => tf.transpose(w as tf.Tensor2D)),
  ); // the SIMD transpose (tfjs/overrides.ts)
}

/**
 * The byte offset in the store of a LoRA layer's merged weight (w + scale a b)^T, (n, k) for w
 * (k, n), a (k, r) and b (r, n): decoding then runs one product a layer instead of five ops (the
 * base product, x a, the scale, (x a) b, the sum), at the cost of a second copy of w. Kept under
 * b's id and remade when any of the three is assigned (an optimizer step: new dataIds); null when
 * the budget is spent.
 */
export function mergedTransposedWeight(
  w: tf.Variable,
  a: tf.Variable,
  b: tf.Variable,
  scale: number,
): number | null {
  return dotStore()!.weight(b.id, [w, a, b], w.size, (into) =>
    copyInto(into, () => tf.transpose(tf.add(w, tf.mul(tf.matMul(a, b), scale)) as tf.Tensor2D)),
  );
}

/** Writes the tensor `make` returns (on the wasm backend) into `into`, then frees it. */
function copyInto(into: Float32Array, make: () => tf.Tensor): void {
  const copy = tf.tidy(make);
  const backend = asWasm(tf.backend());
  const start = byteOffset(backend, copy) / 4;
  into.set(new Float32Array(wasmMemory(backend)!.buffer).subarray(start, start + copy.size));
  copy.dispose();
}

/**
 * Drops the transposed copies of these weights (all, when none are given): a model calls it when
 * it is disposed. Copies of weights disposed otherwise go at the next copy made.
 */
export function releaseTransposedWeights(weights?: readonly tf.Tensor[]): void {
  if (!store) return;
  for (const id of weights ? weights.map((w) => w.id) : store.ids()) store.release(id);
}

/** How many transposed weight copies exist and the numbers they hold (tests, memory accounting). */
export function transposedWeightStats(): { copies: number; numbers: number } {
  return store?.stats() ?? { copies: 0, numbers: 0 };
}

const KERNEL_ROWS = 'AgenticRlDotStoreRows';

/**
 * Attributes of a row lookup: the table's copy in the store (byte offset), its rows (V) and width
 * (D).
 */
interface RowsAttrs {
  w: number;
  rows: number;
  width: number;
}

registerWasmKernel(KERNEL_ROWS, ({ inputs, attrs }, wasm) => {
  const { ids } = inputs as { ids: tf.TensorInfo };
  const { w, rows, width } = attrs as unknown as RowsAttrs;
  const picks = Int32Array.from(wasm.readSync(ids.dataId) as Int32Array);
  for (const id of picks)
    if (!(id >= 0 && id < rows))
      throw new Error(`embedding lookup: token id ${id} is not in [0, ${rows - 1}]`);
  const out = wasm.makeOutput([picks.length, width], 'float32');
  dotStore()!.rows(
    w,
    width,
    picks,
    new Float32Array(wasmMemory(wasm)!.buffer),
    byteOffset(wasm, out) / 4,
  );
  return out;
});

/**
 * Rows `ids` of the copy at byte `w` (a (rows, width) table's transposed copy) as a (N, width)
 * tensor on wasm.
 */
export function rowsOfCopy(ids: tf.Tensor1D, w: number, rows: number, width: number): tf.Tensor2D {
  const attrs: RowsAttrs = { w, rows, width };
  return tf
    .engine()
    .runKernel(KERNEL_ROWS, { ids }, attrs as unknown as tf.NamedAttrMap) as tf.Tensor2D;
}
