// Decoding's linear layers on frozen 16-bit weights as one tfjs kernel: y_i = x W_i^T (+ bias_i)
// (+ scale_i (x A_i) B_i) for one or several weights that read the same rows x (a layer's q, k and
// v; its gate and up), with no gradient. Why: at batch 1 the products themselves are ~27 ms a token
// at the Qwen2.5-0.5B shape on two threads (65% of the read floor), but as tfjs ops a LoRA
// projection was five kernels (the product, x A, the scale, (x A) B, the sum) plus a bias add, some
// 700 kernels a token whose per-call cost took the token to ~45-50 ms. Here each group is one
// kernel: x goes into the dot store once, every product's thread blocks are handed over at once
// (matmul/weights16_products.ts runDots), and the bias and the adapter's two rank-r products run on
// tfjs's heap with our SIMD matmul kernels (matmulAdd accumulates (x A) B into y in place).
// Only for few rows (m <= DOT_MAX_ROWS: decoding); prefill and training keep the tfjs ops, where
// the per-call cost is noise beside the products.
import * as tf from '@tensorflow/tfjs';
import { kernelsFor } from './kernels.ts';
import { kernelCounts } from '../switches.ts';
import type { HalfKind, Resident16 } from '../simd/half.ts';
import { asWasm, byteOffset, registerWasmKernel, wasmMemory } from '../tfjs/wasm_backend.ts';
import { checkLive } from './weights16.ts';
import { DOT_MAX_ROWS, runDots } from './weights16_products.ts';
import { simdSwigluActive, swigluInto } from '../tfjs/swiglu.ts';
import { addRmsNormInto } from '../tfjs/rmsnorm.ts';

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
  /** A (gate, up) pair returned as silu(gate) * up alone (an MLP's first half). */
  gated: boolean;
  /**
   * One layer whose y is added to the input `residual` and normed by `norm` (eps this): returns
   * [residual + y, RMSNorm(residual + y) * norm] (a block's end); 0: no.
   */
  residualEps: number;
}

registerWasmKernel(KERNEL, ({ inputs, attrs }, wasm) => {
  const { offsets, rows, cols, kinds, scales, gated, residualEps } = attrs as unknown as GroupAttrs;
  const named = inputs as Record<string, tf.TensorInfo | undefined>;
  const x = named.x!;
  const [m, k] = x.shape as [number, number];
  const kindOf = kinds.split(',') as HalfKind[];
  const weights = offsets.map(
    (offset, i): Resident16 => ({ offset, rows: rows[i]!, cols: cols[i]!, kind: kindOf[i]! }),
  );
  const outputs = weights.map((w) => wasm.makeOutput([m, w.rows], 'float32'));
  if (m === 0) {
    if (named.residual) return [outputs[0]!, wasm.makeOutput([0, rows[0]!], 'float32')];
    return gated ? [outputs[0]!] : outputs;
  }
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
  const { residual, norm } = named;
  if (residual && norm) {
    // the block's end: residual + y, and its RMSNorm (one layer)
    const y = outputs[0]!;
    const [sum, normed, r] = [
      wasm.makeOutput([m, rows[0]!], 'float32'),
      wasm.makeOutput([m, rows[0]!], 'float32'),
      wasm.makeOutput([m], 'float32'),
    ];
    const at = (t: tf.TensorInfo) => byteOffset(wasm, t); // after the allocations
    const offsetsAt = { x: at(residual), delta: at(y), w: at(norm), sum: at(sum), y: at(normed) };
    addRmsNormInto(wasm, { ...offsetsAt, r: at(r) }, m, rows[0]!, residualEps);
    wasm.disposeData(y.dataId);
    wasm.disposeData(r.dataId);
    return [sum, normed];
  }
  if (!gated) return outputs;
  const [gate, up] = outputs as [tf.TensorInfo, tf.TensorInfo];
  const out = wasm.makeOutput(gate.shape, 'float32');
  const at = (t: tf.TensorInfo) => byteOffset(wasm, t); // after the allocation
  if (!swigluInto(wasm, at(gate), at(up), at(out), m * rows[0]!))
    throw new Error('linears16: the SIMD SwiGLU is off or absent (gatedLinears16Serves says so)');
  wasm.disposeData(gate.dataId);
  wasm.disposeData(up.dataId);
  return [out];
});

/**
 * Whether linears16 serves `rows` rows of x: the 16-bit kernels are on (matmul/weights16.ts) and
 * the accumulating SIMD matmul is on tfjs's heap.
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
  return run(x, group, false);
}

/**
 * silu(x W_gate^T ...) * (x W_up^T ...) for an MLP's gate and up layers as linears16 computes them:
 * one kernel, the same bits as linears16 then swigluValue. Only where gatedLinears16Serves.
 */
export function gatedLinears16(x: tf.Tensor2D, gate: Linear16, up: Linear16): tf.Tensor2D {
  return run(x, [gate, up], true)[0]!;
}

/**
 * [residual + x W^T ..., RMSNorm(that) * norm] for one layer as linears16 computes it, then the
 * add-and-norm kernel (tfjs/rmsnorm.ts simdAddRmsNormValue): one kernel, the same bits. Only where
 * linears16Serves and simdRmsNormActive for the layer's width.
 */
export function linear16AddNorm(
  x: tf.Tensor2D,
  layer: Linear16,
  residual: tf.Tensor2D,
  norm: { weight: tf.Tensor; eps: number },
): [tf.Tensor2D, tf.Tensor2D] {
  const [m, n] = [x.shape[0], layer.weight.rows];
  if (residual.shape.join() !== [m, n].join() || norm.weight.shape.join() !== String(n))
    throw new Error(
      `linear16AddNorm: residual [${residual.shape}] and norm [${norm.weight.shape}] for ${m} rows of ${n}`,
    );
  if (!(norm.eps > 0)) throw new Error(`linear16AddNorm: eps ${norm.eps} must be positive`);
  return run(x, [layer], false, { residual, norm: norm.weight, eps: norm.eps }) as [
    tf.Tensor2D,
    tf.Tensor2D,
  ];
}

/** Whether gatedLinears16 serves `rows` rows of an MLP `width` wide (the SIMD SwiGLU is on). */
export function gatedLinears16Serves(rows: number, width: number): boolean {
  return linears16Serves(rows) && simdSwigluActive(rows * width);
}

function run(
  x: tf.Tensor2D,
  group: readonly Linear16[],
  gated: boolean,
  end?: { residual: tf.Tensor2D; norm: tf.Tensor; eps: number },
): tf.Tensor2D[] {
  const [m, k] = x.shape;
  if (m > DOT_MAX_ROWS) throw new Error(`linears16: ${m} rows, at most ${DOT_MAX_ROWS}`);
  const inputs: Record<string, tf.Tensor> = end
    ? { x, residual: end.residual, norm: end.norm }
    : { x };
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
    gated,
    residualEps: end?.eps ?? 0,
  };
  if (gated || end) kernelCounts.fusedLinears16++; // tests: that the fused ends ran
  const out = tf.engine().runKernel(KERNEL, inputs, attrs as unknown as tf.NamedAttrMap);
  return (Array.isArray(out) ? out : [out]) as tf.Tensor2D[];
}
