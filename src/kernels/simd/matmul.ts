// Batched matrix product C[b] = A[b] @ B[b] as a WebAssembly SIMD kernel that works in place on
// tfjs-wasm's own heap. Why: tfjs-wasm hands a batched matMul (attention's Q K^T and P V, and
// their gradients) to a scalar C++ loop at ~2 GFLOP/s; only 2-D products reach XNNPACK. This
// kernel imports the backend's WebAssembly.Memory, so it reads the operands and writes the
// result where tfjs keeps them, with no copy. Measured in `npm run bench` (attention_matmul_*).
//
// Shapes: A (batch, M, K), B (batch or 1, K, N), C (batch, M, N), all row-major float32.
// The product is tiled in blocks of R = 4 rows by 8 columns (two f32x4 vectors): per step of k,
// 4 broadcast loads of A and 2 vector loads of B feed 8 multiply-adds held in registers.
// A matrix-vector product (N = 1: decoding's scores K q^T, one query per key head) would fill one
// column of each tile, so it has its own path: 4 rows of A at a time, each a SIMD dot product
// with the contiguous vector B (4 lanes of K per step), summed across lanes at the end.
// Where the engine has relaxed SIMD (Chromium since 114; Node 20 behind
// --experimental-wasm-relaxed-simd), a second build of the kernel uses f32x4.relaxed_madd, a fused
// multiply-add on CPUs with FMA: ~1.3x the throughput of separate multiply and add. XNNPACK in
// tfjs-wasm 4.22 has no relaxed-SIMD build, so with it this kernel also beats XNNPACK on the
// linear layers' products with many rows (training, prefill; matmul/dispatch.ts matMul2d).
// simd/dot.ts holds `matmulT`, C = A W^T with W stored (N, K): for the linear layers' products with
// few rows (decoding), where streaming the weights dominates. The same body's transposed-A, causal
// and accumulating builds are in simd/matmul_variants.ts, the NT kernel in simd/matmul_nt.ts.
// This file holds the kernel's module and its binding to a memory; the body is emitted by
// simd/matmul_body.ts (the loops) and simd/matmul_tiles.ts (the register tiles).
import { moduleBytes } from '../wasm/assembler.ts';
import { matmulBody } from './matmul_body.ts';

/**
 * The kernel's module bytes (small: well under the 4 KB limit for synchronous compiles); `fma`: the
 * relaxed-SIMD build; `shared`: importing a shared memory (matmul/threads.ts's helper threads).
 */
export function simdMatmulModule(fma = false, shared = false): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'matmul', params: 9, body: matmulBody(fma) }], shared);
}

/**
 * The kernel bound to a memory: matmul(a, b, c, batch, M, K, N, strideA, strideB), byte pointers.
 */
export type MatmulKernel = (
  a: number,
  b: number,
  c: number,
  batch: number,
  m: number,
  k: number,
  n: number,
  strideA: number,
  strideB: number,
) => void;

/**
 * Instantiates the kernel on `memory`, or returns null where WebAssembly SIMD (or, for `fma`,
 * relaxed SIMD) is unavailable.
 */
export function instantiateMatmul(memory: WebAssembly.Memory, fma = false): MatmulKernel | null {
  return exported(simdMatmulModule(fma), memory, 'matmul') as MatmulKernel | null;
}

/**
 * Instantiates module `bytes` on `memory` and returns its export `name`, or null where the engine
 * cannot validate it.
 */
export function exported(
  bytes: Uint8Array<ArrayBuffer>,
  memory: WebAssembly.Memory,
  name: string,
): unknown {
  if (!WebAssembly.validate(bytes)) return null;
  return new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports[name];
}
