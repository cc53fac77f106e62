// The gradient of attention's softmax, ds = p (dp - Σ p dp) over each row, as one WebAssembly SIMD
// pass on tfjs-wasm's heap. Why: as tfjs ops (autograd's softmax gradient) it is a multiply, a sum,
// a subtract and another multiply, each a full pass over (B, H, T, S) numbers: 15 ms for
// 4 x 4 x 481 x 481, against 2 ms fused; for the page's update (LoRA, micro-batches of 4 sequences
// of up to ~480 tokens) the ops were ~250 ms of ~4.6 s of kernels. The forward pass stays
// tf.softmax(scores + mask) (tfjs-wasm's is fast: 4 ms there; a fused SIMD forward with a
// polynomial exp measured 14 ms against the ops' 6), so its numbers are unchanged.
//
//   backward: ds = p (dp - Σ p dp), Σ over f32x4 lanes summed in order ((l0 + l1) + l2) + l3, then
//   the tail one by one: within ~1e-7 of the ops' gradient, not bit for bit (tested, and against
//   finite differences).
import * as tf from '@tensorflow/tfjs';
import { Body, F32, I32, moduleBytes, V128 } from './wasm_asm.ts';
import { asWasm, byteOffset, heapModule, registerWasmKernel, type WasmBackendLike } from './wasm_backend.ts';

const ALIGN4 = 2;

/** The loop over rows: `perRow()` sees `vecEnd` (bytes of whole vectors) and `end` (bytes of a row). */
function rowLoop(f: Body, rows: number, cols: number, pointers: number[], perRow: (vecEnd: number, end: number) => void): void {
  const [row, vecEnd, end] = [f.local(I32), f.local(I32), f.local(I32)];
  f.get(cols).i32(2).op(0x74).set(end); // cols * 4
  f.get(end).i32(-16).op(0x71).set(vecEnd); // & ~15
  f.i32(0).set(row);
  f.whileLoop(() => { f.get(row).get(rows).op(0x49); }, () => {
    perRow(vecEnd, end);
    for (const p of pointers) f.addTo(p, end);
    f.addConst(row, 1);
  });
}

/** `local = ((l0 + l1) + l2) + l3` of the f32x4 `vector`. */
function laneSum(f: Body, vector: number, local: number): void {
  f.get(vector).simd(0x1f, 0);
  for (let lane = 1; lane < 4; lane++) f.get(vector).simd(0x1f, lane).op(0x92);
  f.set(local);
}

/** Loops `at` over [from, to) in steps of `step` bytes. */
function span(f: Body, at: number, from: () => void, to: number, step: number, body: () => void): void {
  from(); f.set(at);
  f.whileLoop(() => { f.get(at).get(to).op(0x49); }, () => { body(); f.addConst(at, step); });
}

/** `softmaxGrad(p, dp, ds, rows, cols)`: ds = p (dp - Σ p dp) by rows; byte pointers. */
function backwardBody(): Body {
  const f = new Body(5);
  const [pp, pdp, pds, rows, cols] = [0, 1, 2, 3, 4];
  const at = f.local(I32);
  const [acc, dotV] = [f.local(V128), f.local(V128)];
  const dot = f.local(F32);
  const load = (p: number) => f.get(p).get(at).op(0x6a).simd(0x00, ALIGN4, 0);
  const loadS = (p: number) => f.get(p).get(at).op(0x6a).op(0x2a, ALIGN4, 0);
  rowLoop(f, rows, cols, [pp, pdp, pds], (vecEnd, end) => {
    f.simd(0x0c, ...Array<number>(16).fill(0)).set(acc);
    span(f, at, () => f.i32(0), vecEnd, 16, () => { f.get(acc); load(pp); load(pdp); f.simd(0xe6).simd(0xe4).set(acc); });
    laneSum(f, acc, dot);
    span(f, at, () => f.get(vecEnd), end, 4, () => { f.get(dot); loadS(pp); loadS(pdp); f.op(0x94, 0x92).set(dot); });
    f.get(dot).simd(0x13).set(dotV);
    span(f, at, () => f.i32(0), vecEnd, 16, () => {
      f.get(pds).get(at).op(0x6a); load(pp); load(pdp); f.get(dotV).simd(0xe5).simd(0xe6).simd(0x0b, ALIGN4, 0);
    });
    span(f, at, () => f.get(vecEnd), end, 4, () => {
      f.get(pds).get(at).op(0x6a); loadS(pp); loadS(pdp); f.get(dot).op(0x93, 0x94).op(0x38, ALIGN4, 0);
    });
  });
  return f;
}

/** The module's bytes: `softmaxGrad`. */
export function simdSoftmaxModule(): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'softmaxGrad', params: 5, body: backwardBody() }]);
}

interface Kernels { softmaxGrad: (...args: number[]) => void }

function kernelsFor(backend: WasmBackendLike): Kernels | null {
  return heapModule(backend, 'softmax', simdSoftmaxModule) as unknown as Kernels | null;
}

const BACKWARD = 'AgenticRlSoftmaxGrad';

registerWasmKernel(BACKWARD, ({ inputs }, wasm) => {
  const { p, dy } = inputs as Record<'p' | 'dy', tf.TensorInfo>;
  if (p.shape.join() !== dy.shape.join() || p.dtype !== 'float32' || dy.dtype !== 'float32') throw new Error(`softmax gradient: p [${p.shape}] and dy [${dy.shape}]`);
  const cols = p.shape[p.shape.length - 1]!;
  const ds = wasm.makeOutput(p.shape, 'float32');
  kernelsFor(wasm)!.softmaxGrad(byteOffset(wasm, p), byteOffset(wasm, dy), byteOffset(wasm, ds), p.shape.reduce((a, b) => a * b, 1) / cols, cols);
  return ds;
});

let enabled = true;

/** Turns the fused gradient off (true: back on), so a benchmark or test can compare it with the tfjs ops. */
export function useSimdSoftmax(on: boolean): void {
  enabled = on;
}

/** Whether maskedSoftmax's gradient would run the fused kernel on the current backend. */
export function simdSoftmaxActive(): boolean {
  return enabled && tf.getBackend() === 'wasm' && kernelsFor(asWasm(tf.backend())) !== null;
}

/**
 * softmax(scores + mask) over the last axis, differentiable in scores (the mask is a constant):
 * the tfjs ops forward, and under a gradient tape the fused backward where simdSoftmaxActive.
 */
export function maskedSoftmax(scores: tf.Tensor, mask: tf.Tensor): tf.Tensor {
  if (!tf.engine().isTapeOn() || !simdSoftmaxActive()) return tf.softmax(tf.add(scores, mask));
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input, save] = args as [tf.Tensor, tf.GradSaveFunc];
    const p = tf.softmax(tf.add(input, mask)); // the customGrad's forward records no gradient of its own
    save([p]);
    return { value: p, gradFunc: (dy: tf.Tensor, [kept]: tf.Tensor[]) => tf.engine().runKernel(BACKWARD, { p: kept!, dy }) as tf.Tensor };
  });
  return op(scores);
}
