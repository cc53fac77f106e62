// Decoding's linear layers on frozen 16-bit weights as one tfjs kernel: y_i = x W_i^T (+ bias_i)
// (+ scale_i (x A_i) B_i) for one or several weights that read the same rows x (a layer's q, k and
// v; its gate and up), with no gradient. Why: at batch 1 the products themselves are ~27 ms a token
// at the Qwen2.5-0.5B shape on two threads (65% of the read floor), but as tfjs ops a LoRA
// projection was five kernels (the product, x A, the scale, (x A) B, the sum) plus a bias add, some
// 700 kernels a token whose per-call cost took the token to ~45-50 ms. Here each group is one
// kernel: x goes into the dot store once, every product's thread blocks are handed over at once
// (weights16_products.ts runDots), and the bias and the adapter's two rank-r products run on
// tfjs's heap with our SIMD matmul kernels (matmulAdd accumulates (x A) B into y in place).
// Only for few rows (m <= DOT_MAX_ROWS: decoding); prefill and training keep the tfjs ops, where
// the per-call cost is noise beside the products.
import * as tf from '@tensorflow/tfjs';
import { kernelsFor } from './matmul_kernels.ts';
import type { HalfKind, Resident16 } from './simd_half.ts';
import { asWasm, byteOffset, registerWasmKernel, wasmMemory } from './tfjs_wasm.ts';
import { checkLive } from './weights16.ts';
import { DOT_MAX_ROWS, runDots } from './weights16_products.ts';

/** One linear layer of a group: its resident weight (out, in), bias (out), LoRA factors. */
export interface Linear16 {
  weight: Resident16;
  bias?: tf.Tensor | null;
  /** LoRA: a (in, r), b (r, out), y += scale (x a) b. */
  adapter?: { a: tf.Tensor; b: tf.Tensor; scale: number } | null;
}

const KERNEL = 'AgenticRlLinears16';

interface GroupAttrs {
  offsets: number[];
  rows: number[];
  cols: number[];
  kinds: string;
  scales: number[];
}

registerWasmKernel(KERNEL, ({ inputs, attrs }, wasm) => {
  const { offsets, rows, cols, kinds, scales } = attrs as unknown as GroupAttrs;
  const named = inputs as Record<string, tf.TensorInfo | undefined>;
  const x = named.x!;
  const [m, k] = x.shape as [number, number];
  const kindOf = kinds.split(',') as HalfKind[];
  const weights = offsets.map(
    (offset, i): Resident16 => ({ offset, rows: rows[i]!, cols: cols[i]!, kind: kindOf[i]! }),
  );
  const outputs = weights.map((w) => wasm.makeOutput([m, w.rows], 'float32'));
  if (m === 0) return outputs;
  const floats = () => new Float32Array(wasmMemory(wasm)!.buffer);
  runDots(
    weights,
    m,
    floats,
    byteOffset(wasm, x) / 4,
    outputs.map((y) => byteOffset(wasm, y) / 4),
  );
  const matmul = kernelsFor(wasm)!;
  weights.forEach((w, i) => {
    const y = byteOffset(wasm, outputs[i]!);
    const n = w.rows;
    const bias = named[`bias${i}`];
    if (bias) {
      const heap = floats();
      const [at, from] = [y / 4, byteOffset(wasm, bias) / 4];
      for (let row = 0; row < m; row++)
        for (let j = 0; j < n; j++) heap[at + row * n + j]! += heap[from + j]!;
    }
    const [a, b] = [named[`a${i}`], named[`b${i}`]];
    if (!a || !b) return;
    const r = a.shape[1]!;
    const t = wasm.makeOutput([m, r], 'float32'); // scale (x A), (m, r)
    try {
      const tAt = byteOffset(wasm, t);
      (matmul.fused ?? matmul.plain)(
        byteOffset(wasm, x),
        byteOffset(wasm, a),
        tAt,
        1,
        m,
        k,
        r,
        m * k,
        k * r,
      );
      const heap = floats();
      for (let j = tAt / 4; j < tAt / 4 + m * r; j++) heap[j]! *= scales[i]!;
      matmul.add!(tAt, byteOffset(wasm, b), y, 1, m, r, n, m * r, r * n); // y += t B
    } finally {
      wasm.disposeData(t.dataId);
    }
  });
  return outputs;
});

/**
 * Whether linears16 serves `rows` rows of x: the 16-bit kernels are on (weights16.ts) and the
 * accumulating SIMD matmul is on tfjs's heap.
 */
export function linears16Serves(rows: number): boolean {
  if (rows > DOT_MAX_ROWS || tf.getBackend() !== 'wasm') return false;
  return !!kernelsFor(asWasm(tf.backend()))?.add;
}

/**
 * y_i = x W_i^T (+ bias_i) (+ scale_i (x a_i) b_i) for each layer of `group` (all of the same
 * input width), x (m, in) with m <= DOT_MAX_ROWS; no gradient recorded.
 */
export function linears16(x: tf.Tensor2D, group: readonly Linear16[]): tf.Tensor2D[] {
  const [m, k] = x.shape;
  if (m > DOT_MAX_ROWS) throw new Error(`linears16: ${m} rows, at most ${DOT_MAX_ROWS}`);
  const inputs: Record<string, tf.Tensor> = { x };
  group.forEach(({ weight, bias, adapter }, i) => {
    checkLive(weight, 'linears16');
    if (weight.cols !== k)
      throw new Error(
        `linears16: x (${m}, ${k}) does not multiply a ${weight.rows} x ${weight.cols} weight's transpose`,
      );
    if (bias) inputs[`bias${i}`] = bias;
    if (adapter) {
      const [a, b] = [adapter.a, adapter.b];
      if (a.shape[0] !== k || b.shape[1] !== weight.rows || a.shape[1] !== b.shape[0])
        throw new Error(
          `linears16: LoRA factors (${a.shape}) and (${b.shape}) do not fit a ${weight.rows} x ${k} weight`,
        );
      Object.assign(inputs, { [`a${i}`]: a, [`b${i}`]: b });
    }
  });
  const attrs: GroupAttrs = {
    offsets: group.map(({ weight }) => weight.offset),
    rows: group.map(({ weight }) => weight.rows),
    cols: group.map(({ weight }) => weight.cols),
    kinds: group.map(({ weight }) => weight.kind).join(','),
    scales: group.map(({ adapter }) => adapter?.scale ?? 0),
  };
  const out = tf.engine().runKernel(KERNEL, inputs, attrs as unknown as tf.NamedAttrMap);
  return (Array.isArray(out) ? out : [out]) as tf.Tensor2D[];
}
