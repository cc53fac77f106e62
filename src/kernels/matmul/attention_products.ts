// Attention's batched matMul, differentiable, fast on WASM: the strided SIMD kernel
// (matmul/tfjs_kernels.ts stridedMatMul) forward and, written out here with the same op,
// backward, so the backward pass is fast too; elsewhere, or without WebAssembly SIMD, tf.matMul.
// The kernel computes only A @ B: a transposed operand is transposed first (a copy costing one pass
// over it, small next to the product), or the product is computed transposed, whichever moves less.
// Under a causal mask (`causal`), the products whose structure allows it skip what the mask makes
// zero (simd/matmul_variants.ts matmulCausal): Q K^T and dC V^T compute only the visible keys'
// columns, P V and dS K stop their k loop at the last visible key, and with one query row per
// position dS^T Q and P^T dC (the transposed-A kernel, which reads dS and P as stored) start theirs
// at the first; the numbers kept are the same bits.
//
// Shapes: a (...batch, M, K) or (...batch, K, M) when transposeA; b likewise; the batch dims of a
// and b must be equal.
import * as tf from '@tensorflow/tfjs';
import { causalMatMulActive, fusedKernels, simdMatMulActive } from './kernels.ts';
import { stridedMatMul } from './tfjs_kernels.ts';
import { ALL_K } from '../simd/matmul_variants.ts';
import { asWasm, byteOffset, registerWasmKernel, wasmMemory } from '../tfjs/wasm_backend.ts';

const swapLast = (x: tf.Tensor3D): tf.Tensor3D => tf.transpose(x, [0, 2, 1]);

/**
 * Attention under a causal mask: row t of each (period) block of query rows sees keys 0 .. t +
 * offset (the mask hides the rest with -1e9). `kind`: which product of attention this is, the
 * scores Q K^T or the context P V (its forward; its gradients follow).
 */
export interface CausalProduct {
  kind: 'scores' | 'context';
  period: number;
  offset: number;
}

/**
 * The causal kernel's mode for a product: 1, the keys are C's columns; 2, the keys are the k axis.
 */
type Limits = { mode: 1 | 2; period: number; offset: number } | null;

/** a (batch, m, k) @ b (batch or 1, k, n), contiguous: the strided kernel with packed strides. */
function packed(a: tf.Tensor3D, b: tf.Tensor3D, limits: Limits = null): tf.Tensor3D {
  const [batch, m, k] = a.shape;
  const n = b.shape[2];
  const causal = limits
    ? { causal: limits.mode, period: limits.period, offset: limits.offset }
    : {};
  return stridedMatMul(a, b, {
    batch,
    m,
    k,
    n,
    strideA: m * k,
    strideB: b.shape[0] === 1 ? 0 : k * n,
    ...causal,
  });
}

/**
 * op(a) @ op(b) with 3-D operands, through the kernel (no gradient). The kernel takes untransposed
 * operands, so a transposed one costs a copy; computing (op(b)^T @ op(a)^T)^T instead trades those
 * copies for the other operand's and the result's, whichever moves fewer numbers. In decoding,
 * q @ K^T with one query row is then K @ q^T: no copy of the whole key cache every step.
 */
function product(
  a: tf.Tensor3D,
  b: tf.Tensor3D,
  transposeA: boolean,
  transposeB: boolean,
  limits: Limits = null,
): tf.Tensor3D {
  return tf.tidy(() => {
    const [m, k] = transposeA ? [a.shape[2], a.shape[1]] : [a.shape[1], a.shape[2]];
    const [kb, n] = transposeB ? [b.shape[2], b.shape[1]] : [b.shape[1], b.shape[2]];
    if (k !== kb || a.shape[0] !== b.shape[0]) {
      throw new Error(
        `batchMatMul: shapes ${a.shape} and ${b.shape} (transposeA ${transposeA}, transposeB ${transposeB}) do not multiply`,
      );
    }
    const direct = (transposeA ? m * k : 0) + (transposeB ? k * n : 0);
    const swapped = (transposeB ? 0 : k * n) + (transposeA ? 0 : m * k) + m * n;
    if (swapped < direct) {
      const resultT = packed(transposeB ? b : swapLast(b), transposeA ? a : swapLast(a)); // (batch, N, M): the limits do not apply
      return swapLast(resultT);
    }
    return packed(transposeA ? swapLast(a) : a, transposeB ? swapLast(b) : b, limits);
  });
}

const KERNEL_TA = 'AgenticRlSimdMatMulTABatch';

registerWasmKernel(KERNEL_TA, ({ inputs, attrs }, wasm) => {
  const { a, b } = inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
  const { offset } = attrs as unknown as { offset: number };
  const [batch, k, m] = a.shape as [number, number, number];
  const n = b.shape[2]!;
  if (b.shape[0] !== batch || b.shape[1] !== k)
    throw new Error(`transposeABatch: shapes ${a.shape} and ${b.shape} do not multiply as a^T @ b`);
  const out = wasm.makeOutput([batch, m, n], 'float32');
  const scratch = wasm.makeOutput([k, 4], 'float32'); // the kernel's packed block of A
  const { kernels, threads } = fusedKernels(wasm)!;
  const ta = kernels.ta!;
  const call = {
    a: byteOffset(wasm, a),
    b: byteOffset(wasm, b),
    c: byteOffset(wasm, out),
    batch,
    m,
    k,
    n,
    scratch: byteOffset(wasm, scratch),
    kOffset: offset,
  };
  if (!threads?.runTABatch(ta, wasmMemory(wasm)!, call)) {
    for (let i = 0; i < batch; i++)
      ta(
        call.a + i * k * m * 4,
        call.b + i * k * n * 4,
        call.c + i * m * n * 4,
        m,
        k,
        n,
        m,
        call.scratch,
        offset,
      );
  }
  wasm.disposeData(scratch.dataId);
  return out;
});

/**
 * a[i]^T @ b[i] for a (batch, K, M), b (batch, K, N), by the transposed-A kernel: no transposed
 * copy of a (attention's dK = dS^T Q and dV = P^T dC). `offset`: for a holding attention weights or
 * their gradient under a causal mask with one query row per position (a[i][t, s] = 0 for s > t +
 * offset), row s of the result sums over t >= s - offset only, about half the work, the terms it
 * skips being 0 * finite, so the same bits as over all t (simd/matmul_variants.ts matmulTA's
 * kOffset); ALL_K: all t. Null where the kernel does not serve; the caller then takes `product`.
 */
function transposeABatch(a: tf.Tensor3D, b: tf.Tensor3D, offset: number): tf.Tensor3D | null {
  if (!fusedKernels(asWasm(tf.backend()))?.kernels.ta) return null;
  return tf
    .engine()
    .runKernel(KERNEL_TA, { a, b }, { offset } as unknown as tf.NamedAttrMap) as tf.Tensor3D;
}

/**
 * Gradients of op(a) @ op(b) for dy, written with `product` (as tfjs's BatchMatMul gradient). Under
 * a causal mask: the scores' dQ = dS K stops at the last visible key (dS is 0 past it), the
 * context's dP = dC V^T computes the visible keys' columns only (P, and so dS, is 0 past them);
 * with one query row per position (no grouped queries folded into the rows), dK = dS^T Q and
 * dV = P^T dC skip the rows' hidden terms too (transposeABatch).
 */
function gradients(
  a: tf.Tensor3D,
  b: tf.Tensor3D,
  dy: tf.Tensor3D,
  transposeA: boolean,
  transposeB: boolean,
  causal: CausalProduct | null = null,
): [tf.Tensor3D, tf.Tensor3D] {
  const limits = (mode: 1 | 2, kind: CausalProduct['kind']): Limits =>
    causal?.kind === kind ? { mode, period: causal.period, offset: causal.offset } : null;
  // x^T y for x (batch, T, S) the weights (or their gradient) of a product of `kind`, masked or not
  const maskedTA = (x: tf.Tensor3D, y: tf.Tensor3D, kind: CausalProduct['kind']) =>
    transposeABatch(
      x,
      y,
      causal?.kind === kind && causal.period === x.shape[1] ? causal.offset : ALL_K,
    ) ?? product(x, y, true, false);
  if (!transposeA && !transposeB)
    return [product(dy, b, false, true, limits(1, 'context')), maskedTA(a, dy, 'context')];
  if (!transposeA && transposeB)
    return [product(dy, b, false, false, limits(2, 'scores')), maskedTA(dy, a, 'scores')];
  if (transposeA && !transposeB) return [product(b, dy, false, true), product(a, dy, false, false)];
  return [product(b, dy, true, true), product(dy, a, true, true)];
}

/** (...batch, r, c) -> (batch, r, c). */
function to3d(x: tf.Tensor): tf.Tensor3D {
  const [r, c] = x.shape.slice(-2) as [number, number];
  const batch = x.shape.slice(0, -2).reduce((p, q) => p * q, 1);
  return tf.reshape(x, [batch, r, c]) as tf.Tensor3D;
}

/** (batch, r, c) -> (...batch of `like`, r, c). */
function fromLike(c3: tf.Tensor3D, like: tf.Tensor): tf.Tensor {
  return tf.reshape(c3, [...like.shape.slice(0, -2), c3.shape[1], c3.shape[2]]);
}

/**
 * The forward product's limits under a causal mask: the scores' columns are keys (1), the context's
 * k axis (2).
 */
function forwardLimits(
  causal: CausalProduct | null,
  transposeA: boolean,
  transposeB: boolean,
): Limits {
  if (!causal || transposeA || transposeB !== (causal.kind === 'scores') || !causalMatMulActive())
    return null;
  return { mode: causal.kind === 'scores' ? 1 : 2, period: causal.period, offset: causal.offset };
}

/**
 * The differentiable op for one transpose combination (made once: it runs in every layer of every
 * decode step), or for a causal product (made per call: its limits vary).
 */
function differentiable(
  transposeA: boolean,
  transposeB: boolean,
  causal: CausalProduct | null = null,
): (a: tf.Tensor, b: tf.Tensor) => tf.Tensor {
  // customGrad passes the inputs and then the save function, typed as one union list.
  return tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [x, y, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    const [a3, b3] = [to3d(x), to3d(y)];
    save([a3, b3]);
    const c3 = product(
      a3,
      b3,
      transposeA,
      transposeB,
      forwardLimits(causal, transposeA, transposeB),
    );
    return {
      value: fromLike(c3, x),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sa, sb] = saved as [tf.Tensor3D, tf.Tensor3D];
        const [da, db] = gradients(
          sa,
          sb,
          to3d(dy),
          transposeA,
          transposeB,
          forwardLimits(causal, transposeA, transposeB) && causal,
        );
        return [tf.reshape(da, x.shape), tf.reshape(db, y.shape)];
      },
    };
  }) as (a: tf.Tensor, b: tf.Tensor) => tf.Tensor;
}

/** Ops by [transposeA][transposeB]. */
const OPS = [
  [differentiable(false, false), differentiable(false, true)],
  [differentiable(true, false), differentiable(true, true)],
];

/**
 * Batched op(a) @ op(b), differentiable; the SIMD kernel on wasm, tf.matMul elsewhere. `causal`:
 * attention's scores (a = Q, transposeB) or context (a = P) under a causal mask, whose products
 * then skip what the mask makes zero where the causal kernel serves (the same numbers).
 */
export function batchMatMul<T extends tf.Tensor>(
  a: T,
  b: T,
  transposeA = false,
  transposeB = false,
  causal: CausalProduct | null = null,
): T {
  if (!simdMatMulActive()) return tf.matMul(a, b, transposeA, transposeB) as T;
  if (!tf.engine().isTapeOn()) {
    // No gradient is being recorded (decoding, scoring): skip customGrad's bookkeeping, once per
    // layer per token.
    return tf.tidy(() =>
      fromLike(
        product(
          to3d(a),
          to3d(b),
          transposeA,
          transposeB,
          forwardLimits(causal, transposeA, transposeB),
        ),
        a,
      ),
    ) as T;
  }
  if (causal) return differentiable(transposeA, transposeB, causal)(a, b) as T;
  return OPS[Number(transposeA)]![Number(transposeB)]!(a, b) as T;
}
