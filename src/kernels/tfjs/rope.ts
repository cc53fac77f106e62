// RoPE on tfjs-wasm's heap (model/rope.ts applyRope's wasm route): the SIMD kernel (simd/rope.ts)
// on the heap, and the tfjs kernel that runs it, or a JavaScript loop with the ops' rounding.
import * as tf from '@tensorflow/tfjs';
import { simdRopeModule } from '../simd/rope.ts';
import {
  byteOffset,
  heapModule,
  registerWasmKernel,
  type WasmBackendLike,
  wasmMemory,
} from './wasm_backend.ts';
import { switches } from '../switches.ts';

const ROPE = 'AgenticRlRope';

/** The SIMD RoPE kernel (simd/rope.ts) on `backend`'s heap, or null where it cannot run. */
export function simdRope(backend: WasmBackendLike): ((...args: number[]) => void) | null {
  return (
    (heapModule(backend, 'rope', simdRopeModule)?.rope as
      | ((...args: number[]) => void)
      | undefined) ?? null
  );
}

/**
 * applyRope for x (B, H, T, hd) and tables (B, 1, T, hd) on the wasm heap in one pass, for
 * decoding: applyRope's four tfjs ops (a product, two multiplies, an add) cost ~4 dispatches per
 * query and key per layer, and XNNPACK's product ~13 µs at batch 8. With WebAssembly SIMD and hd a
 * multiple of 8, the SIMD kernel (one call per (b, t), over the H heads); else a JavaScript loop
 * that rounds as the ops do: fround(x c) and fround(r s), where r = +-x exactly, then their
 * float32 sum (a double sum of two float32s rounded to float32 is the float32 sum: double rounding
 * is harmless at 53 >= 2 * 24 + 2 bits). Either way the result is the ops' bit for bit (tested).
 */
registerWasmKernel(ROPE, ({ inputs }, wasm) => {
  const { x, cos, sin } = inputs as Record<'x' | 'cos' | 'sin', tf.TensorInfo>;
  const [B, H, T, hd] = x.shape as [number, number, number, number];
  if (cos.shape.join() !== [B, 1, T, hd].join() || sin.shape.join() !== cos.shape.join())
    throw new Error(
      `rope: tables of shape ${cos.shape} and ${sin.shape} for x of shape ${x.shape}`,
    );
  const out = wasm.makeOutput(x.shape, 'float32');
  const [xi, ci, si, oi] = [x, cos, sin, out].map((t) => byteOffset(wasm, t) / 4) as [
    number,
    number,
    number,
    number,
  ]; // after makeOutput
  const half = hd / 2;
  const simd = half % 4 === 0 && switches.simdRope ? simdRope(wasm) : null;
  if (simd) {
    for (let b = 0; b < B; b++) {
      for (let t = 0; t < T; t++) {
        const [row, table] = [(b * H * T + t) * hd, (b * T + t) * hd];
        simd(
          4 * (xi + row),
          4 * (ci + table),
          4 * (si + table),
          4 * (oi + row),
          half,
          H,
          4 * T * hd,
        );
      }
    }
    return out;
  }
  const heap = new Float32Array(wasmMemory(wasm)!.buffer);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      for (let t = 0; t < T; t++) {
        const row = xi + ((b * H + h) * T + t) * hd;
        const target = oi + ((b * H + h) * T + t) * hd;
        const table = (b * T + t) * hd;
        const [c, s] = [ci + table, si + table];
        for (let i = 0; i < half; i++)
          heap[target + i] =
            Math.fround(heap[row + i]! * heap[c + i]!) +
            Math.fround(-heap[row + i + half]! * heap[s + i]!);
        for (let i = half; i < hd; i++)
          heap[target + i] =
            Math.fround(heap[row + i]! * heap[c + i]!) +
            Math.fround(heap[row + i - half]! * heap[s + i]!);
      }
    }
  }
  return out;
});

/**
 * x cos + rotate_half(x) sin for x (B, H, T, hd) and tables (B, 1, T, hd), by the kernel above in
 * one pass (wasm only; no gradient of its own: model/rope.ts gives it one).
 */
export function ropeOnHeap(x: tf.Tensor, cos: tf.Tensor, sin: tf.Tensor): tf.Tensor {
  return tf.engine().runKernel(ROPE, { x, cos, sin }) as tf.Tensor;
}
