// More cores for the SIMD matmul kernel. tfjs-wasm runs single-threaded here (backend.ts: its
// threaded build breaks under bundling, and tfjs turns threads off in Node), and the kernel works
// in place on tfjs-wasm's heap, which is not shared memory. So each helper thread holds the same
// kernel on a shared WebAssembly.Memory of its own pool: for a large product the calling thread
// computes a first share in place on tfjs's heap, and the rest goes into a queue of blocks
// (matmul/thread_code.ts) whose operands it copies into the pool (A's rows, or whole matrices of a
// batch, and B). Helpers take blocks from the queue; so does the caller once its own share is done,
// computing those in place, and at the end it copies back the blocks of C that helpers computed.
// Every number of C is computed by the same kernel code over the same k order as on one thread, so
// the result is the same bit for bit, however it is split and whoever runs which block.
//
// Where: Node (worker_threads; tests, bench, CLI) and browser workers in a cross-origin-isolated
// page (SharedArrayBuffer). The calling thread blocks in Atomics.wait, which a page's main thread
// may not do: the trainer runs in a worker, and start() refuses where waiting throws.
//
// Decoding's products with few rows (matmul/decode_products.ts) are split too, by columns of C:
// their weights stay resident in the dot store's shared memory, which every helper also maps, so
// only the rows of A go in and every block runs in place. Those products take tens of microseconds,
// less than waking a sleeping thread, so a helper spins for SPIN_MS after each product before it
// sleeps.
//
// This file cuts each kind of product into blocks and lays out their operands in the pool; the
// pool itself (starting the helpers, handing them a queue, waiting) is matmul/thread_pool.ts.
import type { MatmulKernel } from '../simd/matmul.ts';
import { ALL_K, type MatmulCausalKernel, type MatmulTAKernel } from '../simd/matmul_variants.ts';
import type { MatmulTKernel } from '../simd/dot.ts';
import type { DotCall } from './decode_products.ts';
import { CAUSAL, DOT, FUSED, MAX_BLOCKS, PLAIN, TA } from './thread_code.ts';
import { type Block, HelperPool, launchHelpers } from './thread_pool.ts';

/** Products below this many multiply-adds stay on one thread: waking a helper costs ~10-50 µs. */
export const MIN_THREADED_MACS = 1 << 21;

/**
 * Dot products (decoding) below this many multiply-adds stay on one thread. Measured with a
 * spinning helper, through matMul2d, weights in cache: 1 x 256 x 256 takes 6.0 µs alone and 4.6 on
 * two threads, 1 x 256 x 768 14.4 and 9.5, 8 x 256 x 256 24 and 16; at 16k-32k multiply-adds the
 * hand-off costs about what it saves.
 */
export const MIN_THREADED_DOT_MACS = 1 << 15;

/**
 * Blocks per helper in a large product's queue, so the caller can take over a late helper's work in
 * pieces. Decoding's dot products, tens of microseconds each, queue one block per helper: there the
 * extra claims cost more than they save (bench A/B, 1 vs 4 blocks: batch-8 decoding 213 vs 226 ms;
 * a training step 272 vs 266 ms, within noise).
 */
const BLOCKS_PER_HELPER = 4;

/** The operands of one kernel call, as the kernel takes them (byte pointers and strides). */
export interface MatmulCall {
  a: number;
  b: number;
  c: number;
  batch: number;
  m: number;
  k: number;
  n: number;
  strideA: number;
  strideB: number;
}

/**
 * The caller's share [0, first) and the queue's blocks [start, end) of `units` (rows, columns or
 * matrices) split over `parts` threads, `perHelper` blocks for each helper, every boundary a
 * multiple of `unit` (a kernel's tile).
 */
export function shares(
  units: number,
  parts: number,
  unit: number,
  perHelper = BLOCKS_PER_HELPER,
): { first: number; blocks: [number, number][] } {
  const first = Math.min(units, Math.ceil(units / parts / unit) * unit);
  const count = Math.min(MAX_BLOCKS, (parts - 1) * perHelper);
  const size = Math.max(unit, Math.ceil((units - first) / count / unit) * unit);
  const blocks: [number, number][] = [];
  for (let start = first; start < units; start += size)
    blocks.push([start, Math.min(units, start + size)]);
  return { first, blocks };
}

/** A pool of helper threads for the matmul kernel; see the file comment. */
export class MatmulThreads extends HelperPool {
  /**
   * Starts `helpers` helper threads (the caller is one more), or returns null where threads cannot
   * work (no shared memory, waiting not allowed, WebAssembly SIMD missing) or helpers <= 0.
   * `dotMemory`: the dot store's memory (matmul/decode_products.ts), when it is shared; with it the
   * helpers also take decoding's products (splitDot).
   */
  static async start(
    helpers: number,
    dotMemory: WebAssembly.Memory | null = null,
  ): Promise<MatmulThreads | null> {
    const parts = await launchHelpers(helpers, dotMemory);
    return parts && new MatmulThreads(...parts);
  }

  /**
   * Runs `call` split over the caller and the helpers, `kernel` being the caller's kernel on the
   * heap `heap` (tfjs's memory) and `fused` which build the helpers use. `causal`: the causal
   * kernel's (mode, period, offset), `kernel` then being it; split by whole matrices only (a share
   * of rows would start mid-period). Returns false, having done nothing, for a product it does not
   * split (small, or strided other than packed); the caller then runs it on one thread.
   */
  run(
    kernel: MatmulKernel | MatmulCausalKernel,
    fused: boolean,
    heap: WebAssembly.Memory,
    call: MatmulCall,
    causal: [number, number, number] | null = null,
  ): boolean {
    const { batch, m, k, n } = call;
    if (
      this.broken ||
      batch * m * k * n < MIN_THREADED_MACS ||
      (causal && (batch === 1 || !this.causal))
    )
      return false;
    // One matrix: split its rows (multiples of 4, the kernel's row block). Several: split the
    // batch, when the matrices are packed (A every m * k numbers, B every k * n or one shared B).
    const byRows = batch === 1;
    if (
      !byRows &&
      (call.strideA !== m * k * 4 || (call.strideB !== 0 && call.strideB !== k * n * 4))
    )
      return false;
    const { first, blocks } = shares(byRows ? m : batch, this.helpers.length + 1, byRows ? 4 : 1);
    if (blocks.length === 0) return false;
    const sharedB = byRows || call.strideB === 0;
    // per unit (row or matrix): numbers of A, of B (unless shared), of C
    const [unitA, unitB, unitC] = byRows ? [k, 0, n] : [m * k, sharedB ? 0 : k * n, m * n];
    const [a0, b0, c0] = [call.a / 4, call.b / 4, call.c / 4];
    // pool layout (floats): one B if shared, then per block its A, its B (unless shared), its C
    let cursor = sharedB ? k * n : 0;
    const layout = blocks.map(([start, end]) => {
      const count = end - start;
      const a = cursor;
      cursor += count * unitA;
      const b = sharedB ? 0 : cursor;
      cursor += count * unitB;
      const c = cursor;
      cursor += count * unitC;
      return { start, count, a, b, c };
    });
    if (!this.reserve(cursor * 4)) return false;
    const source = new Float32Array(heap.buffer);
    const pool = new Float32Array(this.memory.buffer);
    if (sharedB) pool.set(source.subarray(b0, b0 + k * n), 0);
    const build = causal ? CAUSAL : fused ? FUSED : PLAIN;
    const limits = causal ?? [];
    const queue = layout.map(({ start, count, a, b, c }): Block => {
      pool.set(source.subarray(a0 + start * unitA, a0 + (start + count) * unitA), a);
      if (!sharedB) pool.set(source.subarray(b0 + start * unitB, b0 + (start + count) * unitB), b);
      const args = byRows
        ? [a * 4, b * 4, c * 4, 1, count, k, n, 0, 0]
        : [a * 4, b * 4, c * 4, count, m, k, n, m * k * 4, sharedB ? 0 : k * n * 4];
      return {
        args: [...args, ...limits],
        build,
        here: () => this.inPlace(kernel, call, byRows, start, count, limits),
        back: () =>
          new Float32Array(heap.buffer).set(
            pool.subarray(c, c + count * unitC),
            c0 + start * unitC,
          ),
      };
    });
    this.share(() => this.inPlace(kernel, call, byRows, 0, first, limits), queue);
    return true;
  }

  /** Units [start, start + count) of a run() product, in place on the caller's heap. */
  private inPlace(
    kernel: MatmulKernel | MatmulCausalKernel,
    call: MatmulCall,
    byRows: boolean,
    start: number,
    count: number,
    limits: number[],
  ): void {
    const { a, b, c, m, k, n, strideA, strideB } = call;
    if (byRows)
      (kernel as MatmulKernel)(a + start * k * 4, b, c + start * n * 4, 1, count, k, n, 0, 0);
    else
      (kernel as (...args: number[]) => void)(
        a + start * strideA,
        b + start * strideB,
        c + start * m * n * 4,
        count,
        m,
        k,
        n,
        strideA,
        strideB,
        ...limits,
      );
  }

  /**
   * Splits C (m, n) = A^T @ B, A stored (k, m) on tfjs's heap (matmulTA), by rows of C: a block's
   * share of A is a block of A's stored columns, read in place from a copy of all of A (lda = m); B
   * goes in whole. `kernel` is the caller's matmulTA on `heap`. Returns false, having done nothing,
   * when the helpers lack the kernel, the product is small, or it has under 64 rows (LoRA's
   * factors: copying B then costs about what the helper saves); the caller then runs it alone.
   */
  runTA(
    kernel: MatmulTAKernel,
    heap: WebAssembly.Memory,
    call: { a: number; b: number; c: number; m: number; k: number; n: number; scratch: number },
  ): boolean {
    const { m, k, n } = call;
    if (this.broken || !this.ta || m * k * n < MIN_THREADED_MACS || m < 64) return false;
    const { first, blocks } = shares(m, this.helpers.length + 1, 4);
    if (blocks.length === 0) return false;
    // pool layout (floats): B, A, then per block its rows of C and its scratch
    let cursor = k * n + k * m;
    const layout = blocks.map(([start, end]) => {
      const count = end - start;
      const a = k * n + start; // the block's first column of A (A's rows are m apart)
      const c = cursor;
      cursor += count * n;
      const scratch = cursor;
      cursor += k * 4;
      return { start, count, a, c, scratch };
    });
    if (!this.reserve(cursor * 4)) return false;
    const source = new Float32Array(heap.buffer);
    const pool = new Float32Array(this.memory.buffer);
    const [a0, b0, c0] = [call.a / 4, call.b / 4, call.c / 4];
    pool.set(source.subarray(b0, b0 + k * n), 0);
    // all of A in one copy, each block reading its columns in place: a copy of the blocks' columns
    // alone took a JavaScript loop over each number (~0.1 ms of a 1 ms product)
    pool.set(source.subarray(a0, a0 + k * m), k * n);
    const queue = layout.map(({ start, count, a, c, scratch }): Block => {
      return {
        args: [a * 4, 0, c * 4, count, k, n, m, scratch * 4, ALL_K],
        build: TA,
        here: () =>
          kernel(
            call.a + start * 4,
            call.b,
            call.c + start * n * 4,
            count,
            k,
            n,
            m,
            call.scratch,
            ALL_K,
          ),
        back: () =>
          new Float32Array(heap.buffer).set(pool.subarray(c, c + count * n), c0 + start * n),
      };
    });
    this.share(() => kernel(call.a, call.b, call.c, first, k, n, m, call.scratch, ALL_K), queue);
    return true;
  }

  /**
   * Splits C[i] (m, n) = A[i]^T @ B[i] for i < batch (matmulTA with `kOffset`, each A[i] stored
   * (k, m), packed matrices on tfjs's heap) by whole matrices: the caller's first share in place,
   * the rest one matrix a block on copies in the pool. Returns false, having done nothing, when the
   * helpers lack the kernel, the product is small, or the pool cannot hold it.
   */
  runTABatch(
    kernel: MatmulTAKernel,
    heap: WebAssembly.Memory,
    call: {
      a: number;
      b: number;
      c: number;
      batch: number;
      m: number;
      k: number;
      n: number;
      scratch: number;
      kOffset: number;
    },
  ): boolean {
    const { batch, m, k, n, kOffset } = call;
    if (this.broken || !this.ta || batch < 2 || batch * m * k * n < MIN_THREADED_MACS) return false;
    const first = Math.ceil(batch / (this.helpers.length + 1));
    const [unitA, unitB, unitC] = [k * m, k * n, m * n];
    const here = (i: number) =>
      kernel(
        call.a + i * unitA * 4,
        call.b + i * unitB * 4,
        call.c + i * unitC * 4,
        m,
        k,
        n,
        m,
        call.scratch,
        kOffset,
      );
    // pool layout (floats): per matrix its A, B, C and scratch
    const size = unitA + unitB + unitC + k * 4;
    if (batch - first > MAX_BLOCKS || !this.reserve((batch - first) * size * 4)) return false;
    const source = new Float32Array(heap.buffer);
    const pool = new Float32Array(this.memory.buffer);
    const queue = Array.from({ length: batch - first }, (_, q): Block => {
      const i = first + q;
      const [a, b, c, scratch] = [
        q * size,
        q * size + unitA,
        q * size + unitA + unitB,
        q * size + unitA + unitB + unitC,
      ];
      pool.set(source.subarray(call.a / 4 + i * unitA, call.a / 4 + (i + 1) * unitA), a);
      pool.set(source.subarray(call.b / 4 + i * unitB, call.b / 4 + (i + 1) * unitB), b);
      return {
        args: [a * 4, b * 4, c * 4, m, k, n, m, scratch * 4, kOffset],
        build: TA,
        here: () => here(i),
        back: () =>
          new Float32Array(heap.buffer).set(pool.subarray(c, c + unitC), call.c / 4 + i * unitC),
      };
    });
    this.share(() => {
      for (let i = 0; i < first; i++) here(i);
    }, queue);
    return true;
  }

  /**
   * Runs two independent products at once instead of splitting each: `own` (the caller's, in place
   * on tfjs's heap) while one helper computes C (m, n) = A^T @ B (matmulTA, A stored (k, m) and B
   * (k, n) on `heap`, copied into the pool whole) as one block, copying its C back after; if no
   * helper claims the block the caller runs it in place (`kernel`, with `call.scratch`). For the
   * backward pass of a linear layer, dx = dy W^T beside dW = x^T dy: equal work, and no product
   * split (whose copies and hand-offs cost ~15% of a step's products). Returns false, having done
   * nothing, when the helpers lack the kernel or the pool cannot hold the operands.
   */
  runBeside(
    own: () => void,
    kernel: MatmulTAKernel,
    heap: WebAssembly.Memory,
    call: { a: number; b: number; c: number; m: number; k: number; n: number; scratch: number },
  ): boolean {
    const { m, k, n } = call;
    if (this.broken || !this.ta) return false;
    // pool layout (floats): B, A, C, scratch
    const [b, a, c, scratch] = [0, k * n, k * n + k * m, k * n + k * m + m * n];
    if (!this.reserve((scratch + k * 4) * 4)) return false;
    const source = new Float32Array(heap.buffer);
    const pool = new Float32Array(this.memory.buffer);
    pool.set(source.subarray(call.b / 4, call.b / 4 + k * n), b);
    pool.set(source.subarray(call.a / 4, call.a / 4 + k * m), a);
    this.share(own, [
      {
        args: [a * 4, b * 4, c * 4, m, k, n, m, scratch * 4, ALL_K],
        build: TA,
        here: () => kernel(call.a, call.b, call.c, m, k, n, m, call.scratch, ALL_K),
        back: () => new Float32Array(heap.buffer).set(pool.subarray(c, c + m * n), call.c / 4),
      },
    ]);
    return true;
  }

  /**
   * Splits a dot product C (m, n) = A W^T, all on the dot store's memory, by blocks of C's
   * columns (W's rows): `kernel` is the caller's matmulT on that memory. Returns false, having done
   * nothing, when the helpers lack the dot kernel or the product is small (MIN_THREADED_DOT_MACS).
   */
  splitDot(kernel: MatmulTKernel, { a, w, c, m, k, n }: DotCall): boolean {
    if (this.broken || !this.dot || m * k * n < MIN_THREADED_DOT_MACS) return false;
    // the kernel's tile width in columns, so no block starts mid-tile
    const { first, blocks } = shares(n, this.helpers.length + 1, m >= 4 ? 2 : 4, 1);
    if (blocks.length === 0) return false;
    const queue = blocks.map(([start, end]): Block => {
      const args = [a, w + start * k * 4, c + start * 4, m, k, end - start, n];
      return { args, build: DOT, here: () => kernel(...(args as Parameters<MatmulTKernel>)) };
    });
    this.share(() => kernel(a, w, c, m, k, first, n), queue);
    return true;
  }

  /**
   * Runs `own` (the caller's share) and the kernel calls `queue` (on the dot store's memory, builds
   * DOT16 / PANEL16 of the 16-bit weights, matmul/weights16.ts, which cuts the product) over the
   * caller and the helpers. Returns false, having done nothing, when the helpers lack those kernels
   * or the queue is longer than MAX_BLOCKS.
   */
  runOnDotMemory(own: () => void, queue: Block[]): boolean {
    if (this.broken || !this.dot16 || queue.length > MAX_BLOCKS) return false;
    this.share(own, queue);
    return true;
  }
}
