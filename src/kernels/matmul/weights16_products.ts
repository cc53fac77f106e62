// Products through the frozen 16-bit weights of matmul/weights16.ts, on the dot store's memory
// where the weights are resident and the matmul helper threads map them too: the caller copies A's
// rows in and C's rows out, as for decoding's float32 copies (matmul/decode_products.ts).
//   - few rows (decoding, m <= DOT_MAX_ROWS, x W^T only): `dot16` (simd/dot16.ts), each output a
//     dot product of two contiguous rows, W streamed once; split over the threads by blocks of W's
//     rows.
//   - more rows (prefill, training's forward and its input gradient dy W): `panel16`
//     (simd/panel16.ts), W widened a panel at a time into L1 and 4 x 8 register tiles over A;
//     split over the threads by blocks of A's rows, in rounds whose A and C fit ROUND_BYTES.
// Either way every number of C is computed by the same code in the same order however the
// product is split: threaded results are those of one thread, bit for bit.
//
// Measured at Qwen2.5-0.5B's shapes on the 2-core EPYC VM, quiet (streaming reads 24-31 GB/s on
// one thread, 53 on two; FMA peak ~56 GFLOP/s a thread): a batch-1 decoding step's 169 products
// (988 MB of BF16) 47.7 ms on one thread (20.7 GB/s), 40.0 ms on two (24.7 GB/s: 46% of the
// two-thread floor; 4864 x 896 at 43 GB/s and the 151936 x 896 head at 40, while the small
// products pay ~10-20 us each of hand-off and the 896 x 4864 ones, long rows, scale poorly on
// two threads, 25 GB/s even without tfjs). At m = 512, one thread: x W^T 46-48 GFLOP/s, dy W
// 49-50, the float32 kernel on a widened W 40-50 plus the widening (1-17 ms), XNNPACK 37-39.
import { dotStore } from './decode_products.ts';
import { matmulThreads } from './kernels.ts';
import { DOT16, PANEL16 } from './thread_code.ts';
import type { Block } from './thread_pool.ts';
import { MIN_THREADED_DOT_MACS, shares } from './threads.ts';
import { type Dot16Kernel, dot16Unit, instantiateDot16 } from '../simd/dot16.ts';
import type { HalfKind } from '../simd/half.ts';
import {
  instantiatePanel16,
  PANEL_SCRATCH_BYTES,
  type Panel16Kernel,
  ROWS_ARE_OUTPUTS,
} from '../simd/panel16.ts';
import { switches } from '../switches.ts';
import type { Resident16 } from '../simd/half.ts';

/**
 * Most rows of A a product x W^T runs on dot16 rather than panel16. Measured on 4864 x 896 BF16,
 * one thread, GFLOP/s dot16 vs panel16 (W in cache / not): 8 rows 37 vs 32 / 18 vs 12, 16 rows
 * 36 vs 38 / 25 vs 16, 24 rows 42 vs 41 / 28 vs 25, 64 rows 27 vs 33 / 23 vs 29. 24: the default
 * run's rollout decodes 18 sequences at once, which then take dot16 and matmul/linears16.ts.
 */
export const DOT_MAX_ROWS = 24;

/** Bytes of A and C one round of a panel16 product may hold in the store (the rest waits). */
const ROUND_BYTES = 32 << 20;

/**
 * Most rows of A one panel16 call takes (each call widens all of W): on one thread 32 to 512 rows
 * ran within noise of each other at m = 512; 64 gives the threads blocks to share.
 */
const BLOCK_ROWS = 64;

/** The 16-bit formats, in the order of their kernels' builds (matmul/thread_code.ts). */
export const KINDS: readonly HalfKind[] = ['bf16', 'f16'];

interface Kernels16 {
  dot: Record<HalfKind, Dot16Kernel>;
  panel: Record<HalfKind, Panel16Kernel>;
}

let kernels16: Kernels16 | null | undefined;

/** The 16-bit kernels on the dot store's memory (made once), or null without it. */
export function kernels(): Kernels16 | null {
  if (kernels16 !== undefined) return kernels16;
  const store = dotStore();
  kernels16 = null;
  if (!store) return null;
  const { memory, shared } = store;
  const dot = KINDS.map((kind) => instantiateDot16(memory, kind, shared));
  const panel = KINDS.map((kind) => instantiatePanel16(memory, kind, shared));
  if ([...dot, ...panel].some((kernel) => kernel === null)) return null;
  kernels16 = {
    dot: { bf16: dot[0]!, f16: dot[1]! },
    panel: { bf16: panel[0]!, f16: panel[1]! },
  };
  return kernels16;
}

const megabytes = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;

/** The products' scratch block in the store: A's rows, C's rows, the panels. */
let scratch = { offset: 0, bytes: 0 };

/** The scratch block, grown (in whole megabytes) to at least `bytes`. */
function scratchOf(bytes: number): number {
  if (bytes <= scratch.bytes) return scratch.offset;
  const store = dotStore()!;
  if (scratch.bytes > 0) store.unclaim(scratch.offset, scratch.bytes);
  const size = Math.ceil(bytes / 2 ** 20) * 2 ** 20;
  const offset = store.claim(size);
  scratch = { offset: offset ?? 0, bytes: offset === null ? 0 : size };
  if (offset === null)
    throw new Error(
      `16-bit weights: no room in the store for a product's ${megabytes(size)} of operands`,
    );
  return offset;
}

const align = (bytes: number) => Math.ceil(bytes / 16) * 16;

/** A product through a resident weight: C (m, n) = A (m, k) @ W^T (ROWS_ARE_OUTPUTS) or A @ W. */
export interface Product {
  w: Resident16;
  layout: number;
  m: number;
  k: number;
  n: number;
}

/**
 * Runs `product` with A at float `aIndex` of `heap()` and C to float `cIndex` (views made fresh:
 * heaps move).
 */
export function run(
  product: Product,
  heap: () => Float32Array,
  aIndex: number,
  cIndex: number,
): void {
  const { w, layout, m, k, n } = product;
  const memory = dotStore()!.memory;
  const threads = threadsFor(m * k * n);
  const kind = KINDS.indexOf(w.kind);
  if (layout === ROWS_ARE_OUTPUTS && m <= DOT_MAX_ROWS) {
    runDots([w], m, heap, aIndex, [cIndex]);
    return;
  }
  const kernel = kernels()!.panel[w.kind];
  const parts = threads?.threads ?? 1;
  // rows a round: A and C within ROUND_BYTES, a multiple of 4
  const roundRows = Math.min(m, Math.max(4, Math.floor(ROUND_BYTES / ((k + n) * 4) / 4) * 4));
  const blockRows = Math.max(4, Math.min(BLOCK_ROWS, Math.ceil(roundRows / parts / 4) * 4));
  const blockCount = Math.ceil(roundRows / blockRows);
  const a = scratchOf(
    align(roundRows * k * 4) + align(roundRows * n * 4 + 32) + blockCount * PANEL_SCRATCH_BYTES,
  );
  const c = a + align(roundRows * k * 4);
  const panels = c + align(roundRows * n * 4 + 32);
  for (let start = 0; start < m; start += roundRows) {
    const rows = Math.min(roundRows, m - start);
    new Float32Array(memory.buffer, a, rows * k).set(
      heap().subarray(aIndex + start * k, aIndex + (start + rows) * k),
    );
    const calls = Array.from({ length: Math.ceil(rows / blockRows) }, (_, b) => {
      const from = b * blockRows;
      const count = Math.min(blockRows, rows - from);
      const scratchAt = panels + b * PANEL_SCRATCH_BYTES;
      return [a + from * k * 4, w.offset, c + from * n * 4, count, k, n, scratchAt, layout];
    });
    const call = (args: number[]) => kernel(...(args as Parameters<Panel16Kernel>));
    const queue = calls
      .slice(1)
      .map((args): Block => ({ args, build: PANEL16 + kind, here: () => call(args) }));
    if (queue.length === 0 || !threads?.runOnDotMemory(() => call(calls[0]!), queue))
      for (const args of calls) call(args);
    heap().set(new Float32Array(memory.buffer, c, rows * n), cIndex + start * n);
  }
}

/** The helper threads (null: one thread), for products of at least MIN_THREADED_DOT_MACS. */
function threadPool() {
  const pool = switches.dotProductThreads ? matmulThreads() : null;
  return pool && pool.threads > 1 ? pool : null;
}

/** The helper threads for a product of `macs` multiply-adds, or null: one thread. */
function threadsFor(macs: number) {
  return macs >= MIN_THREADED_DOT_MACS ? threadPool() : null;
}

/**
 * x W^T for every W of `weights` (each (n_i, k), the same k) with x the same m <= DOT_MAX_ROWS rows
 * at float `aIndex` of `heap()`, C_i to float `cIndices[i]`: on dot16, x copied in once and every
 * product's blocks handed to the threads at once (one hand-off for a layer's q, k and v, or its
 * gate and up). Each product split as run() splits it alone: the same bits.
 */
export function runDots(
  weights: readonly Resident16[],
  m: number,
  heap: () => Float32Array,
  aIndex: number,
  cIndices: readonly number[],
): void {
  const k = weights[0]!.cols;
  if (m > DOT_MAX_ROWS || weights.some((w) => w.cols !== k))
    throw new Error(`runDots: ${m} rows (at most ${DOT_MAX_ROWS}) or weights of unequal widths`);
  const memory = dotStore()!.memory;
  const outputs = weights.map((w) => align(m * w.rows * 4));
  const a = scratchOf(align(m * k * 4) + outputs.reduce((sum, bytes) => sum + bytes, 0));
  new Float32Array(memory.buffer, a, m * k).set(heap().subarray(aIndex, aIndex + m * k));
  const own: (() => void)[] = [];
  const queue: Block[] = [];
  const whole: (() => void)[] = [];
  let c = a + align(m * k * 4);
  weights.forEach((w, i) => {
    const [n, at] = [w.rows, c];
    const kernel = kernels()!.dot[w.kind];
    const threads = threadsFor(m * k * n);
    const { first, blocks } = shares(n, threads?.threads ?? 1, dot16Unit(m), 1);
    for (const [start, end] of blocks) {
      const args = [a, w.offset + start * k * 2, at + start * 4, m, k, end - start, n];
      queue.push({
        args,
        build: DOT16 + KINDS.indexOf(w.kind),
        here: () => kernel(...(args as Parameters<Dot16Kernel>)),
      });
    }
    own.push(() => kernel(a, w.offset, at, m, k, blocks.length > 0 ? first : n, n));
    whole.push(() => kernel(a, w.offset, at, m, k, n, n));
    c += outputs[i]!;
  });
  const pool = queue.length > 0 ? threadPool() : null;
  if (!pool?.runOnDotMemory(() => own.forEach((call) => call()), queue))
    whole.forEach((call) => call());
  c = a + align(m * k * 4);
  weights.forEach((w, i) => {
    heap().set(new Float32Array(memory.buffer, c, m * w.rows), cIndices[i]!);
    c += outputs[i]!;
  });
}
