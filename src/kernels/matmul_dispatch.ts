// Matrix products on WASM: the SIMD kernels of simd_matmul.ts run on tfjs's heap, registered as
// tfjs kernels (so tensors keep their normal lifetime); elsewhere, or without WebAssembly SIMD,
// tf.matMul. Attention's batched, differentiable products build on stridedMatMul
// (attention_products.ts). Where the engine has relaxed SIMD the kernel's
// fused multiply-add build runs, and then the linear layers' 2-D products with many rows take it
// too (matMul2d): a training step is 1.3-1.4x faster than on XNNPACK (bench: train_step_no_fma_ms).
// Their products with few rows (decoding) take a second kernel of simd_matmul.ts, dot products
// against a transposed copy of the weight, kept in decode_products.ts's memory, where the matmul
// helper threads split them by columns (bench: decode_batch8_xnnpack_tok_s, decode_batch*_1thread).
import * as tf from '@tensorflow/tfjs';
import { instantiateMatmul, type MatmulKernel } from './simd_matmul.ts';
import {
  ALL_K,
  instantiateMatmulAdd,
  instantiateMatmulCausal,
  instantiateMatmulTA,
  type MatmulCausalKernel,
  type MatmulTAKernel,
} from './simd_matmul_variants.ts';
import type { MatmulTKernel } from './simd_dot.ts';
import { MatmulThreads } from './matmul_threads.ts';
import { dotStore, rowsOfCopy, transposedWeight, type DotCall } from './decode_products.ts';
import { installWasmOverrides } from './tfjs_wasm_overrides.ts';
import { kernelCounts, switches } from './switches.ts';
import {
  asWasm,
  byteOffset,
  registerWasmKernel,
  wasmMemory as memoryOf,
  type WasmBackendLike,
} from './tfjs_wasm.ts';

/**
 * Both builds of the kernel on one memory, and the transposed-A, causal and accumulating ones; all
 * but `plain` null without relaxed SIMD.
 */
export interface Kernels {
  plain: MatmulKernel;
  fused: MatmulKernel | null;
  ta: MatmulTAKernel | null;
  causal: MatmulCausalKernel | null;
  add: MatmulKernel | null;
}

const kernels = new WeakMap<WebAssembly.Memory, Kernels | null>();
let available: boolean | undefined;

/**
 * Whether stridedMatMul's `causal` attributes take effect (the causal kernel serves the backend,
 * and is on).
 */
export function causalMatMulActive(): boolean {
  return (
    switches.causalSkipping &&
    fusedMultiplyAddActive() &&
    kernelsFor(asWasm(tf.backend()))!.causal !== null
  );
}

let threads: MatmulThreads | null = null;

/**
 * Splits the SIMD kernel's large products over `helpers` helper threads and the calling thread
 * (matmul_threads.ts; 0: one thread, the default). Resolves to the threads now in use: 1 where
 * threads cannot work (no SharedArrayBuffer, a page's main thread, no SIMD). Results are the same
 * bit for bit on any number of threads.
 */
export async function useMatmulThreads(helpers: number): Promise<number> {
  threads?.stop();
  threads = null;
  kernelCounts.splitProducts = 0;
  kernelCounts.takenOver = 0;
  const store = dotStore();
  threads = await MatmulThreads.start(helpers, store?.shared ? store.memory : null);
  return matmulThreadCount();
}

/** Threads the SIMD kernel's large products run on (1 unless useMatmulThreads started helpers). */
export function matmulThreadCount(): number {
  return threads?.threads ?? 1;
}

/**
 * Tests: true makes the helpers hold off taking work, as late helpers would; false lets them go.
 */
export function holdMatmulHelpers(on: boolean): void {
  threads?.hold(on);
}

/**
 * For backward_pairs.ts: the kernels on `backend`'s heap and the helper threads (null: one
 * thread), or null where the fused kernel does not serve (no relaxed SIMD, or turned off).
 */
export function fusedKernels(
  backend: WasmBackendLike,
): { kernels: Kernels; threads: MatmulThreads | null } | null {
  if (!fusedMultiplyAddActive()) return null;
  return {
    kernels: kernelsFor(backend)!,
    threads: threads && threads.threads > 1 ? threads : null,
  };
}

function kernelsFor(backend: WasmBackendLike): Kernels | null {
  const memory = memoryOf(backend);
  if (!memory) return null;
  if (!kernels.has(memory)) {
    const plain = instantiateMatmul(memory);
    const fused = plain ? instantiateMatmul(memory, true) : null;
    const ta = fused ? instantiateMatmulTA(memory) : null;
    const causal = fused ? instantiateMatmulCausal(memory) : null;
    const add = fused ? instantiateMatmulAdd(memory) : null;
    kernels.set(memory, plain ? { plain, fused, ta, causal, add } : null);
    installWasmOverrides(); // the SIMD transpose and tfjs-wasm's copies (tfjs_wasm_overrides.ts)
  }
  return kernels.get(memory) ?? null;
}

const KERNEL = 'AgenticRlSimdStridedMatMul';

/**
 * Attributes of the strided product: C (batch, m, n) = A[i] (m, k) @ B[i] (k, n), strides in
 * floats; `causal` (optional): the causal kernel's mode (1, 2; 0 or absent: none), period, offset.
 */
interface StridedAttrs {
  batch: number;
  m: number;
  k: number;
  n: number;
  strideA: number;
  strideB: number;
  causal?: number;
  period?: number;
  offset?: number;
}

registerWasmKernel(KERNEL, ({ inputs, attrs }, wasm) => {
  const { a, b } = inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
  const {
    batch,
    m,
    k,
    n,
    strideA,
    strideB,
    causal: mode = 0,
    period = 0,
    offset: keyOffset = 0,
  } = attrs as unknown as StridedAttrs;
  const size = (t: tf.TensorInfo) => t.shape.reduce((p, q) => p * q, 1);
  // The last matrix must end inside its operand: the kernel reads raw heap memory.
  if ((batch - 1) * strideA + m * k > size(a) || (batch - 1) * strideB + k * n > size(b)) {
    throw new Error(
      `stridedMatMul: (${batch} x ${m} x ${k}) @ (${k} x ${n}) with strides ${strideA}, ${strideB} reads past operands of ${size(a)} and ${size(b)} numbers`,
    );
  }
  const out = wasm.makeOutput([batch, m, n], 'float32');
  // Offsets are read after makeOutput: the allocation may grow (and move views of) the heap.
  const offset = (t: tf.TensorInfo) => byteOffset(wasm, t);
  const { plain, fused, causal } = kernelsFor(wasm)!;
  const kernel = (switches.fusedMultiplyAdd && fused) || plain;
  const call = {
    a: offset(a),
    b: offset(b),
    c: offset(out),
    batch,
    m,
    k,
    n,
    strideA: strideA * 4,
    strideB: strideB * 4,
  };
  // (not for one column: the plain kernel's matrix-vector path sums in another order)
  if (mode !== 0 && n > 1 && causal && kernel === fused && switches.causalSkipping) {
    const limits: [number, number, number] = [mode, period, keyOffset];
    if (!threads?.run(causal, true, memoryOf(wasm)!, call, limits))
      causal(call.a, call.b, call.c, batch, m, k, n, call.strideA, call.strideB, ...limits);
    return out;
  }
  if (!threads?.run(kernel, kernel === fused, memoryOf(wasm)!, call))
    kernel(call.a, call.b, call.c, batch, m, k, n, call.strideA, call.strideB);
  return out;
});

const KERNEL_PAIR = 'AgenticRlSimdMatMulPair';

registerWasmKernel(KERNEL_PAIR, ({ inputs }, wasm) => {
  const { a1, b1, a2, b2 } = inputs as Record<'a1' | 'b1' | 'a2' | 'b2', tf.TensorInfo>;
  const [m, k1] = a1.shape as [number, number];
  const [k2, n] = [a2.shape[1]!, b1.shape[1]!];
  if (b1.shape[0] !== k1 || a2.shape[0] !== m || b2.shape[0] !== k2 || b2.shape[1] !== n)
    throw new Error(
      `matMulPair: shapes ${a1.shape} @ ${b1.shape} + ${a2.shape} @ ${b2.shape} do not fit`,
    );
  const out = wasm.makeOutput([m, n], 'float32');
  const at = (t: tf.TensorInfo) => byteOffset(wasm, t);
  const { fused, add } = kernelsFor(wasm)!;
  const call = { a: at(a1), b: at(b1), c: at(out), batch: 1, m, k: k1, n, strideA: 0, strideB: 0 };
  if (!threads?.run(fused!, true, memoryOf(wasm)!, call))
    fused!(call.a, call.b, call.c, 1, m, k1, n, 0, 0);
  add!(at(a2), at(b2), at(out), 1, m, k2, n, 0, 0); // C += a2 @ b2, on this thread (k2 is a LoRA rank)
  return out;
});

/**
 * a1 @ b1 + a2 @ b2 with no gradient of its own (inside customGrad: LoRA's y = x W + (s x A) B and
 * its dx): where matMul2d takes the fused kernel for both products, one kernel whose second
 * product adds into the first's result (simd_matmul_variants.ts matmulAdd), the same bits as
 * tf.add(matMul2d(a1, b1), matMul2d(a2, b2)) without the add's pass over (m, n); else exactly that.
 */
export function matMulPair(
  a1: tf.Tensor2D,
  b1: tf.Tensor2D,
  a2: tf.Tensor2D,
  b2: tf.Tensor2D,
): tf.Tensor2D {
  const [m, k1] = a1.shape;
  const [k2, n] = [a2.shape[1], b1.shape[1]];
  const fits =
    switches.pairKernel &&
    !tf.engine().isTapeOn() &&
    fusedMultiplyAddActive() &&
    kernelsFor(asWasm(tf.backend()))!.add !== null &&
    m >= LINEAR_MIN_ROWS &&
    k1 * n <= LINEAR_MAX_B &&
    k2 * n <= LINEAR_MAX_B &&
    !(b1 instanceof tf.Variable && m <= DOT_MAX_ROWS && tf.engine().state.gradientDepth === 0);
  if (!fits) return tf.tidy(() => tf.add(matMul2d(a1, b1), matMul2d(a2, b2)));
  return tf.engine().runKernel(KERNEL_PAIR, { a1, b1, a2, b2 }) as tf.Tensor2D;
}

const KERNEL_TA = 'AgenticRlSimdMatMulTA';

registerWasmKernel(KERNEL_TA, ({ inputs }, wasm) => {
  const { a, b } = inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
  const [k, m] = a.shape as [number, number];
  const n = b.shape[1]!;
  if (a.shape.length !== 2 || b.shape.length !== 2 || b.shape[0] !== k)
    throw new Error(
      `matMulTransposeA: shapes ${a.shape} and ${b.shape} do not multiply as a^T @ b`,
    );
  const out = wasm.makeOutput([m, n], 'float32');
  const scratch = wasm.makeOutput([k, 4], 'float32'); // the kernel's packed block of A
  const ta = kernelsFor(wasm)!.ta!;
  const call = {
    a: byteOffset(wasm, a),
    b: byteOffset(wasm, b),
    c: byteOffset(wasm, out),
    m,
    k,
    n,
    scratch: byteOffset(wasm, scratch),
  };
  if (!threads?.runTA(ta, memoryOf(wasm)!, call))
    ta(call.a, call.b, call.c, m, k, n, m, call.scratch, ALL_K);
  wasm.disposeData(scratch.dataId);
  return out;
});

const KERNEL_T = 'AgenticRlSimdMatMulT';

/**
 * Attributes of the dot product: the weight's copy in the dot store (byte offset), its rows and
 * columns.
 */
interface DotAttrs {
  w: number;
  n: number;
  k: number;
}

registerWasmKernel(KERNEL_T, ({ inputs, attrs }, wasm) => {
  const { a } = inputs as { a: tf.TensorInfo };
  const { w, n, k } = attrs as unknown as DotAttrs;
  const [m, ka] = a.shape as [number, number];
  if (a.shape.length !== 2 || ka !== k)
    throw new Error(`matMulTransposed: shape ${a.shape} does not multiply a weight of ${k} x ${n}`);
  const out = wasm.makeOutput([m, n], 'float32');
  const heap = () => new Float32Array(memoryOf(wasm)!.buffer);
  const pool = switches.dotProductThreads ? threads : null;
  const split = pool
    ? (kernel: MatmulTKernel, call: DotCall) => pool.splitDot(kernel, call)
    : undefined;
  dotStore()!.product(
    heap,
    byteOffset(wasm, a) / 4,
    m,
    k,
    w,
    n,
    heap,
    byteOffset(wasm, out) / 4,
    split,
  );
  return out;
});

/**
 * a (m, k) @ W for the (k, n) weight whose transposed copy sits at byte `w` of the dot store: the
 * dot-product kernel.
 */
export function productOnCopy(a: tf.Tensor2D, w: number, n: number, k: number): tf.Tensor2D {
  const attrs: DotAttrs = { w, n, k };
  return tf.engine().runKernel(KERNEL_T, { a }, attrs as unknown as tf.NamedAttrMap) as tf.Tensor2D;
}

/**
 * C[i] = A[i] @ B[i] for i < batch, where matrix i of A starts `strideA` numbers after matrix i - 1
 * (likewise B): reads the first rows of every (b, h) slice of a preallocated KV cache without a
 * copy. Wasm kernel only (check simdMatMulActive()); no gradient.
 */
export function stridedMatMul(a: tf.Tensor, b: tf.Tensor, attrs: StridedAttrs): tf.Tensor3D {
  return tf
    .engine()
    .runKernel(KERNEL, { a, b }, attrs as unknown as tf.NamedAttrMap) as tf.Tensor3D;
}

/**
 * The wasm heap as floats (a fresh view: allocations may grow the heap) and the float index where
 * a tensor's data starts. For code that writes tensors it owns in place (the KV cache).
 */
export function wasmHeap(): { floats: Float32Array; index(t: tf.Tensor): number } {
  const backend = asWasm(tf.backend());
  const memory = memoryOf(backend);
  if (!memory) throw new Error('wasmHeap: the wasm backend exposes no memory');
  return { floats: new Float32Array(memory.buffer), index: (t) => byteOffset(backend, t) / 4 };
}

/** Whether the SIMD kernel serves the current backend (wasm with WebAssembly SIMD). */
export function simdMatMulActive(): boolean {
  if (!switches.simdMatMul || tf.getBackend() !== 'wasm') return false;
  if (available === undefined) available = kernelsFor(asWasm(tf.backend())) !== null;
  return available;
}

/**
 * Whether the dot-product kernel serves products with few rows (relaxed SIMD, and not turned off).
 */
export function dotProductActive(): boolean {
  return switches.dotProductKernel && fusedMultiplyAddActive() && dotStore() !== null;
}

/** Whether the kernel's relaxed-SIMD (fused multiply-add) build serves the current backend. */
export function fusedMultiplyAddActive(): boolean {
  return (
    switches.fusedMultiplyAdd &&
    simdMatMulActive() &&
    kernelsFor(asWasm(tf.backend()))!.fused !== null
  );
}

/**
 * Largest right operand (k * n numbers) matMul2d sends to the kernel: 2 MB, this CPU's L2. The
 * kernel streams all of B for every 4 rows of A, without XNNPACK's packing and cache blocking,
 * so a larger B (a 150k-token vocabulary projection) stays on XNNPACK.
 */
const LINEAR_MAX_B = 1 << 19;

/**
 * Whether matMul2d runs a product with a right operand of k x n (and at least LINEAR_MIN_ROWS
 * rows) on the fused kernel: callers that can choose the layout of a product pick the one it takes.
 */
export function kernelTakes(k: number, n: number): boolean {
  return k * n <= LINEAR_MAX_B && fusedMultiplyAddActive();
}

/**
 * Fewest rows of A for which matMul2d uses the kernel. With few rows each product streams the
 * weights from memory once, and XNNPACK's packed weights stream faster (measured on 256 x 768
 * weights not in cache: XNNPACK 24 vs 19 GFLOP/s at 8 rows, even at 32, the kernel 1.2-1.5x
 * ahead from 64 rows on). So decoding stays on XNNPACK and training and prefill take the kernel.
 */
export const LINEAR_MIN_ROWS = 64;

/**
 * Most rows for which a product outside a gradient computation (prefill, scoring without a
 * gradient) takes the dot-product kernel rather than the fused one. Measured on the bench model's
 * 29 products with the helper thread: 64 rows 7.1 vs 9.8 ms, 128 rows 12.0 vs 14.2, 512 rows 49.7
 * vs 52.8 (one thread: 11.4 vs 12.6, 22.8 vs 24.2, 93.8 vs 89.6). The resident copies save the
 * fused kernel's per-call copy of the weight into the helper's memory. A training step's products
 * stay on the fused kernel: its weights change every step, and their copies would be remade each
 * time.
 */
const DOT_MAX_ROWS = 128;

/**
 * Smallest weight (k * n numbers) that gets a transposed copy for the dot-product kernel: smaller
 * ones (LoRA's rank-8 factors) cost little either way and would only churn the copies.
 */
export const TRANSPOSED_MIN = 1 << 14;

/**
 * Columns `ids` of the embedding `table` (D, V) as rows (N, D), read from its transposed copy in
 * the dot store (made once, like a weight's): whole rows of the copy rather than one number from
 * each of D rows of the table (~30 ns each, a cache miss apiece). For decoding: null under a
 * gradient computation, off wasm, without the dot-product kernel, for a table that is not a
 * variable or when the copies' budget is spent; the caller then gathers from the table.
 */
export function embeddingRows(table: tf.Tensor2D, ids: tf.Tensor1D): tf.Tensor2D | null {
  if (!(table instanceof tf.Variable) || tf.engine().state.gradientDepth > 0 || !dotProductActive())
    return null;
  const [width, rows] = table.shape;
  const copy = transposedWeight(table);
  if (copy === null) return null;
  return rowsOfCopy(ids, copy, rows, width);
}

/**
 * a (m, k) @ b (k, n) with no gradient of its own, for the linear layers' forward and backward
 * products (inside customGrad, or with no gradient recorded). On wasm with relaxed SIMD: with at
 * least LINEAR_MIN_ROWS rows and b fitting in L2, the fused kernel; with fewer rows (decoding), or
 * up to DOT_MAX_ROWS outside a gradient computation (prefill), and b a model weight (a
 * tf.Variable), the dot-product kernel on b's transposed copy, which streams the weights once and
 * in order (1.5x XNNPACK at 8 rows; bench decode_batch8_tok_s). Otherwise tf.matMul (XNNPACK), so
 * without relaxed SIMD nothing changes.
 */
export function matMul2d(a: tf.Tensor2D, b: tf.Tensor2D): tf.Tensor2D {
  const [m, k] = a.shape;
  const n = b.shape[1];
  if (tf.engine().isTapeOn() || !fusedMultiplyAddActive()) return tf.matMul(a, b);
  if (b.shape[0] !== k)
    throw new Error(`matMul2d: shapes ${a.shape} and ${b.shape} do not multiply`);
  // A customGrad's forward runs with the tape paused, so a training step is told by its gradient
  // depth.
  const decoding = m <= DOT_MAX_ROWS && tf.engine().state.gradientDepth === 0;
  if (m < LINEAR_MIN_ROWS || decoding) {
    const transposed =
      b instanceof tf.Variable && k * n >= TRANSPOSED_MIN && dotProductActive()
        ? transposedWeight(b)
        : null;
    if (transposed !== null) {
      return productOnCopy(a, transposed, n, k);
    }
    if (m < LINEAR_MIN_ROWS) return tf.matMul(a, b);
  }
  if (k * n > LINEAR_MAX_B) return tf.matMul(a, b);
  return tf.tidy(
    () =>
      tf.reshape(stridedMatMul(a, b, { batch: 1, m, k, n, strideA: 0, strideB: 0 }), [
        m,
        n,
      ]) as tf.Tensor2D,
  );
}

/**
 * a^T @ b for a (k, m), b (k, n), with no gradient of its own: the linear layers' weight gradients
 * x^T @ dy. The transposed-A kernel reads a as stored instead of transposing it first, for a b
 * within L2 (as matMul2d) or any b when m < 64: LoRA's factor gradients (x A)^T dy, rank 8 by
 * N tokens, which XNNPACK (matMul2d's choice for few rows) took 4.7 ms for at 8 x 1924 x 576,
 * packing the fresh b every call, against ~1.1 ms here. Otherwise matMul2d(a^T, b).
 */
export function matMulTransposeA(a: tf.Tensor2D, b: tf.Tensor2D): tf.Tensor2D {
  const [k, m] = a.shape;
  const n = b.shape[1];
  const direct =
    switches.transposeAKernel &&
    !tf.engine().isTapeOn() &&
    fusedMultiplyAddActive() &&
    kernelsFor(asWasm(tf.backend()))!.ta !== null &&
    (m < LINEAR_MIN_ROWS || k * n <= LINEAR_MAX_B) &&
    b.shape[0] === k;
  if (!direct) return tf.tidy(() => matMul2d(tf.transpose(a), b));
  return tf.engine().runKernel(KERNEL_TA, { a, b }) as tf.Tensor2D;
}
