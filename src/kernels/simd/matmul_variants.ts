// Variants of the matmul kernel, emitted from the same body (simd/matmul_body.ts matmulBody), all
// in the relaxed-SIMD build: C += A @ B (LoRA's layer), attention's products under a causal mask,
// and C = A^T @ B with A read as stored (weight gradients; attention's dK and dV).
import { exported, type MatmulKernel } from './matmul.ts';
import { matmulBody } from './matmul_body.ts';
import { moduleBytes } from '../wasm/assembler.ts';

/**
 * The accumulating kernel's module bytes (relaxed SIMD): `matmulAdd`, matmul's arguments, C += A @
 * B: each output's sum formed as in `matmul`, then added to C, so C + A @ B has the bits of
 * tf.add(C, matmul(A, B)) without that add's pass. For LoRA's y = x W + (s x A) B (ops.ts).
 */
export function simdMatmulAddModule(): Uint8Array<ArrayBuffer> {
  return moduleBytes([
    { name: 'matmulAdd', params: 9, body: matmulBody(true, false, false, true) },
  ]);
}

/**
 * Instantiates the accumulating kernel on `memory`, or returns null where relaxed SIMD is
 * unavailable.
 */
export function instantiateMatmulAdd(memory: WebAssembly.Memory): MatmulKernel | null {
  return exported(simdMatmulAddModule(), memory, 'matmulAdd') as MatmulKernel | null;
}

/**
 * The causal kernel's module bytes (relaxed SIMD): `matmulCausal(a, b, c, batch, M, K, N, strideA,
 * strideB, mode, period, offset)`, `matmul` for attention's products under a causal mask, skipping
 * what the mask makes zero (see matmulBody): about half of QK^T, P V, dS K and dC V^T.
 */
export function simdMatmulCausalModule(shared = false): Uint8Array<ArrayBuffer> {
  return moduleBytes(
    [{ name: 'matmulCausal', params: 12, body: matmulBody(true, false, true) }],
    shared,
  );
}

/**
 * matmulCausal: matmul's arguments, then mode (1: keys are C's columns, 2: the k axis), period,
 * offset.
 */
export type MatmulCausalKernel = (
  a: number,
  b: number,
  c: number,
  batch: number,
  m: number,
  k: number,
  n: number,
  strideA: number,
  strideB: number,
  mode: number,
  period: number,
  offset: number,
) => void;

/**
 * Instantiates the causal kernel on `memory`, or returns null where relaxed SIMD is unavailable.
 */
export function instantiateMatmulCausal(memory: WebAssembly.Memory): MatmulCausalKernel | null {
  return exported(simdMatmulCausalModule(), memory, 'matmulCausal') as MatmulCausalKernel | null;
}

/**
 * The transposed-A kernel's module bytes (relaxed SIMD): `matmulTA(a, b, c, M, K, N, lda)`,
 * C (M, N) = A^T @ B for A stored (K, lda) (its first M columns), B (K, N); byte pointers. For the
 * linear layers' weight gradients x^T @ dy, without transposing x first (a copy of x, ~30% of the
 * step's transposes): the same tiles as `matmul`, each row block's 4 numbers of A read from one
 * stored row, 16 contiguous bytes.
 */
export function simdMatmulTAModule(shared = false): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'matmulTA', params: 9, body: matmulBody(true, true) }], shared);
}

/**
 * matmulTA(a, b, c, M, K, N, lda, scratch): C (M, N) = A^T @ B, A stored (K, lda); byte pointers;
 * `scratch`: K * 16 bytes the kernel may overwrite (each block of 4 rows of A^T, packed).
 */
export type MatmulTAKernel = (
  a: number,
  b: number,
  c: number,
  m: number,
  k: number,
  n: number,
  lda: number,
  scratch: number,
  kOffset: number,
) => void;

/** matmulTA's kOffset for a product over all of k. */
export const ALL_K = 0x3fffffff;

/**
 * Instantiates the transposed-A kernel on `memory`, or returns null where relaxed SIMD is
 * unavailable.
 */
export function instantiateMatmulTA(memory: WebAssembly.Memory): MatmulTAKernel | null {
  return exported(simdMatmulTAModule(), memory, 'matmulTA') as MatmulTAKernel | null;
}
