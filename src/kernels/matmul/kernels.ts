// The SIMD matmul kernels on tfjs-wasm's heap (every build, instantiated once per heap), the
// helper threads they share (matmul/threads.ts), and whether each kernel serves the current
// backend. Separate from the tfjs kernels that run them (matmul/tfjs_kernels.ts) and from the
// choice of kernel per product (matmul/dispatch.ts), which both read this state.
import * as tf from '@tensorflow/tfjs';
import { instantiateMatmul, type MatmulKernel } from '../simd/matmul.ts';
import {
  instantiateMatmulAdd,
  instantiateMatmulCausal,
  instantiateMatmulTA,
  type MatmulCausalKernel,
  type MatmulTAKernel,
} from '../simd/matmul_variants.ts';
import { MatmulThreads } from './threads.ts';
import { dotStore } from './decode_products.ts';
import { installWasmOverrides } from '../tfjs/overrides.ts';
import { kernelCounts, switches } from '../switches.ts';
import {
  asWasm,
  byteOffset,
  wasmMemory as memoryOf,
  type WasmBackendLike,
} from '../tfjs/wasm_backend.ts';

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

/** The helper threads now in use, or null (one thread). */
export function matmulThreads(): MatmulThreads | null {
  return threads;
}

/**
 * Splits the SIMD kernel's large products over `helpers` helper threads and the calling thread
 * (matmul/threads.ts; 0: one thread, the default). Resolves to the threads now in use: 1 where
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
 * For matmul/backward_pairs.ts: the kernels on `backend`'s heap and the helper threads (null: one
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

/**
 * The kernels on `backend`'s heap (made once per heap), or null where it exposes no heap or the
 * engine lacks WebAssembly SIMD.
 */
export function kernelsFor(backend: WasmBackendLike): Kernels | null {
  const memory = memoryOf(backend);
  if (!memory) return null;
  if (!kernels.has(memory)) {
    const plain = instantiateMatmul(memory);
    const fused = plain ? instantiateMatmul(memory, true) : null;
    const ta = fused ? instantiateMatmulTA(memory) : null;
    const causal = fused ? instantiateMatmulCausal(memory) : null;
    const add = fused ? instantiateMatmulAdd(memory) : null;
    kernels.set(memory, plain ? { plain, fused, ta, causal, add } : null);
    installWasmOverrides(); // the SIMD transpose and tfjs-wasm's copies (tfjs/overrides.ts)
  }
  return kernels.get(memory) ?? null;
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
