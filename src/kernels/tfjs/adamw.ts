// One AdamW step for one variable on tfjs-wasm's heap: the fused kernel of simd/adamw.ts as a tfjs
// kernel (simdAdamW), its sumSquares for clipping's global norm (sumOfSquares), and whether it
// serves.
import * as tf from '@tensorflow/tfjs';
import { f32Bits } from '../wasm/assembler.ts';
import { ADAMW_SCALARS, type AdamWScalars, simdAdamWModule } from '../simd/adamw.ts';
import {
  asWasm,
  byteOffset,
  heapModule,
  registerWasmKernel,
  type WasmBackendLike,
} from './wasm_backend.ts';
import { switches } from '../switches.ts';

type AdamWKernel = (...args: number[]) => void;

function kernelFor(backend: WasmBackendLike): AdamWKernel | null {
  return (heapModule(backend, 'adamw', simdAdamWModule)?.adamw as AdamWKernel | undefined) ?? null;
}

/**
 * Σ x² over every number of `tensors` (float32, on the wasm backend), in float64: the kernel reads
 * them where tfjs-wasm keeps them. Check simdAdamWActive() first.
 */
export function sumOfSquares(tensors: readonly tf.Tensor[]): number {
  const backend = asWasm(tf.backend());
  const kernel = heapModule(backend, 'adamw', simdAdamWModule)!.sumSquares as (
    p: number,
    count: number,
  ) => number;
  let total = 0;
  for (const t of tensors) {
    if (t.dtype !== 'float32') throw new Error(`sumOfSquares: a ${t.dtype} tensor`);
    total += kernel(byteOffset(backend, t), t.size);
  }
  return total;
}

const KERNEL = 'AgenticRlSimdAdamW';

registerWasmKernel(KERNEL, ({ inputs, attrs }, wasm) => {
  const { p, g, m, v } = inputs as Record<'p' | 'g' | 'm' | 'v', tf.TensorInfo>;
  const size = p.shape.reduce((a, b) => a * b, 1);
  for (const t of [g, m, v]) {
    if (t.shape.reduce((a, b) => a * b, 1) !== size || t.dtype !== 'float32')
      throw new Error(
        `simd AdamW: operands of shapes ${p.shape}, ${g.shape}, ${m.shape}, ${v.shape}`,
      );
  }
  const outputs = [p, m, v].map((t) => wasm.makeOutput(t.shape, 'float32'));
  // offsets after every allocation: an allocation may grow the heap
  const offset = (t: tf.TensorInfo) => byteOffset(wasm, t);
  const scalars = attrs as unknown as AdamWScalars;
  kernelFor(wasm)!(
    offset(p),
    offset(g),
    offset(m),
    offset(v),
    ...outputs.map(offset),
    size,
    ...ADAMW_SCALARS.map((name) => f32Bits(scalars[name])),
  );
  return outputs;
});

/**
 * Whether the fused kernel serves the current backend (wasm with WebAssembly SIMD, not turned off).
 */
export function simdAdamWActive(): boolean {
  return (
    switches.simdAdamW && tf.getBackend() === 'wasm' && kernelFor(asWasm(tf.backend())) !== null
  );
}

/** [p', m', v'] for one step: the fused kernel (check simdAdamWActive()). */
export function simdAdamW(
  p: tf.Tensor,
  g: tf.Tensor,
  m: tf.Tensor,
  v: tf.Tensor,
  scalars: AdamWScalars,
): [tf.Tensor, tf.Tensor, tf.Tensor] {
  return tf
    .engine()
    .runKernel(KERNEL, { p, g, m, v }, scalars as unknown as tf.NamedAttrMap) as unknown as [
    tf.Tensor,
    tf.Tensor,
    tf.Tensor,
  ];
}
