// Two independent products of a backward pass computed at once, one on each thread: the linear
// layers' dx = dy W^T beside dW = x^T dy, and the output head's dh = g W^T beside g^T h. Why:
// splitting each product over the helper threads (matmul/threads.ts run/runTA) costs copies of
// its B, half its A and half its C through the pool, and the hand-off, for every product:
// instrumented on the bench's training step, ~25 ms of ~170 ms of split products. The two products
// of a linear layer's backward pass do the same work (N x I x O multiply-adds each), so the caller
// computes dx in place while a helper computes dW from copies of x and dy, and only dW comes back.
// Each product is the same kernel over the same k order as on one thread, so the bits are those
// of matMul2d and matMulTransposeA (tested). dx reads W as stored (simd/matmul_nt.ts), with the
// bits of a product with W^T, so a backward pass no longer transposes its weights.
import * as tf from '@tensorflow/tfjs';
import { fusedKernels } from './kernels.ts';
import { kernelTakes, LINEAR_MIN_ROWS, matMulTransposeA, matMulTransposeB } from './dispatch.ts';
import { MIN_THREADED_MACS } from './threads.ts';
import { ALL_K } from '../simd/matmul_variants.ts';
import { NT_MAX_K, simdMatmulNTModule, type MatmulNTKernel } from '../simd/matmul_nt.ts';
import {
  asWasm,
  byteOffset,
  heapModule,
  registerWasmKernel,
  wasmMemory,
  type WasmBackendLike,
} from '../tfjs/wasm_backend.ts';
import { kernelCounts } from '../switches.ts';

const KERNEL = 'AgenticRlSimdMatMulBeside';
const KERNEL_NT = 'AgenticRlSimdMatMulNT';

/**
 * Attributes of the pair: whether b1 is the weight as stored, (n1, k1), for the NT kernel (else b1
 * is (k1, n1)).
 */
interface BesideAttrs {
  nt: boolean;
}

registerWasmKernel(KERNEL, ({ inputs, attrs }, wasm) => {
  const { a1, b1, a2, b2 } = inputs as Record<'a1' | 'b1' | 'a2' | 'b2', tf.TensorInfo>;
  const { nt } = attrs as unknown as BesideAttrs;
  const [m1, k1] = a1.shape as [number, number];
  const n1 = nt ? b1.shape[0]! : b1.shape[1]!;
  const [k2, m2] = a2.shape as [number, number];
  const n2 = b2.shape[1]!;
  if ((nt ? b1.shape[1] : b1.shape[0]) !== k1 || b2.shape[0] !== k2)
    throw new Error(
      `productsBeside: shapes ${a1.shape} @ ${b1.shape}${nt ? '^T' : ''} and ${a2.shape}^T @ ${b2.shape} do not multiply`,
    );
  const c1 = wasm.makeOutput([m1, n1], 'float32');
  const c2 = wasm.makeOutput([m2, n2], 'float32');
  const scratch = wasm.makeOutput([Math.max(k1, k2), 8], 'float32'); // the kernels' packed blocks, NT's and (should the caller run it) matmulTA's
  const at = (t: tf.TensorInfo) => byteOffset(wasm, t); // after the allocations: they may move the heap
  const { kernels, threads } = fusedKernels(wasm)!;
  const fused = kernels.fused!;
  const ta = kernels.ta!;
  const own = nt
    ? () => ntKernel(wasm)(at(a1), at(b1), at(c1), m1, k1, n1, at(scratch))
    : () => fused(at(a1), at(b1), at(c1), 1, m1, k1, n1, 0, 0);
  const call = { a: at(a2), b: at(b2), c: at(c2), m: m2, k: k2, n: n2, scratch: at(scratch) };
  if (!threads?.runBeside(own, ta, wasmMemory(wasm)!, call)) {
    own();
    ta(call.a, call.b, call.c, m2, k2, n2, m2, call.scratch, ALL_K);
  } else kernelCounts.pairedProducts++;
  wasm.disposeData(scratch.dataId);
  return [c1, c2];
});

registerWasmKernel(KERNEL_NT, ({ inputs }, wasm) => {
  const { a, w } = inputs as { a: tf.TensorInfo; w: tf.TensorInfo };
  const [m, k] = a.shape as [number, number];
  const n = w.shape[0]!;
  if (w.shape[1] !== k)
    throw new Error(`matMulNT: shapes ${a.shape} and ${w.shape} do not multiply as a @ w^T`);
  const c = wasm.makeOutput([m, n], 'float32');
  const scratch = wasm.makeOutput([k, 8], 'float32');
  ntKernel(wasm)(
    byteOffset(wasm, a),
    byteOffset(wasm, w),
    byteOffset(wasm, c),
    m,
    k,
    n,
    byteOffset(wasm, scratch),
  );
  wasm.disposeData(scratch.dataId);
  return c;
});

function ntKernel(wasm: WasmBackendLike): MatmulNTKernel {
  return heapModule(wasm, 'matmulNT', simdMatmulNTModule)!.matmulNT as MatmulNTKernel;
}

/**
 * [a1 @ w1^T, a2^T @ b2] for a1 (m1, k1), w1 stored (n1, k1) (a weight: dy w^T), a2 (k2, m2),
 * b2 (k2, n2), with no gradient of their own (inside a customGrad's backward pass). The first
 * reads w1 as stored (simd/matmul_nt.ts) for k1 up to NT_MAX_K, else multiplies its transposed
 * copy. With helper threads and both products on the fused kernels (as matMul2d and
 * matMulTransposeA would run them) and of similar size: one product on each thread. Otherwise the
 * two in turn, each split over the threads where there are helpers (the first then on w1^T).
 */
export function productsBeside(
  a1: tf.Tensor2D,
  w1: tf.Tensor2D,
  a2: tf.Tensor2D,
  b2: tf.Tensor2D,
): [tf.Tensor2D, tf.Tensor2D] {
  const [m1, k1] = a1.shape;
  const n1 = w1.shape[0];
  const [k2, m2] = a2.shape;
  const n2 = b2.shape[1];
  if (w1.shape[1] !== k1 || b2.shape[0] !== k2)
    throw new Error(
      `productsBeside: shapes ${a1.shape} @ ${w1.shape}^T and ${a2.shape}^T @ ${b2.shape} do not multiply`,
    );
  const [work1, work2] = [m1 * k1 * n1, m2 * k2 * n2];
  const onKernels =
    !tf.engine().isTapeOn() &&
    tf.getBackend() === 'wasm' &&
    m1 >= LINEAR_MIN_ROWS &&
    kernelTakes(k1, n1);
  const context = onKernels ? fusedKernels(asWasm(tf.backend())) : null;
  const nt = context !== null && k1 <= NT_MAX_K;
  const pair =
    context?.threads &&
    context.kernels.ta &&
    m2 >= LINEAR_MIN_ROWS &&
    kernelTakes(k2, n2) &&
    Math.min(work1, work2) >= MIN_THREADED_MACS / 2 &&
    Math.max(work1, work2) <= 2 * Math.min(work1, work2);
  if (pair) {
    return tf.tidy(() => {
      const b1 = nt ? w1 : tf.transpose(w1);
      const attrs: BesideAttrs = { nt };
      return tf
        .engine()
        .runKernel(KERNEL, { a1, b1, a2, b2 }, attrs as unknown as tf.NamedAttrMap) as [
        tf.Tensor2D,
        tf.Tensor2D,
      ];
    });
  }
  const first =
    nt && !context?.threads
      ? (tf.engine().runKernel(KERNEL_NT, { a: a1, w: w1 }) as tf.Tensor2D)
      : matMulTransposeB(a1, w1);
  return [first, matMulTransposeA(a2, b2)];
}
