// Attention's masked softmax as a tfjs op, maskedSoftmax: the SIMD kernels of simd/softmax.ts
// registered as tfjs-wasm kernels (forward and gradient), the shapes they take, and the fallback to
// the tfjs ops. Separate from simd/softmax.ts, which emits the kernels' code and imports no tfjs.
import * as tf from '@tensorflow/tfjs';
import { simdSoftmaxForwardModule, simdSoftmaxModule } from '../simd/softmax.ts';
import {
  asWasm,
  byteOffset,
  heapModule,
  registerWasmKernel,
  type WasmBackendLike,
} from './wasm_backend.ts';
import { switches } from '../switches.ts';

interface Kernels {
  softmaxGrad: (...args: number[]) => void;
}

function kernelsFor(backend: WasmBackendLike): Kernels | null {
  return heapModule(backend, 'softmax', simdSoftmaxModule) as unknown as Kernels | null;
}

function forwardFor(backend: WasmBackendLike): ((...args: number[]) => void) | null {
  return (
    (heapModule(backend, 'softmaxForward', simdSoftmaxForwardModule)?.softmax as
      | ((...args: number[]) => void)
      | undefined) ?? null
  );
}

const BACKWARD = 'AgenticRlSoftmaxGrad';

registerWasmKernel(BACKWARD, ({ inputs }, wasm) => {
  const { p, dy } = inputs as Record<'p' | 'dy', tf.TensorInfo>;
  if (p.shape.join() !== dy.shape.join() || p.dtype !== 'float32' || dy.dtype !== 'float32')
    throw new Error(`softmax gradient: p [${p.shape}] and dy [${dy.shape}]`);
  const cols = p.shape[p.shape.length - 1]!;
  const ds = wasm.makeOutput(p.shape, 'float32');
  kernelsFor(wasm)!.softmaxGrad(
    byteOffset(wasm, p),
    byteOffset(wasm, dy),
    byteOffset(wasm, ds),
    p.shape.reduce((a, b) => a * b, 1) / cols,
    cols,
  );
  return ds;
});

const FORWARD = 'AgenticRlMaskedSoftmax';

/**
 * The forward's layout of scores (B, ..., T, S) and a mask (1 or B, 1, 1, T, S): null where it does
 * not fit.
 */
function forwardShape(
  scores: readonly number[],
  mask: readonly number[],
): { B: number; HG: number; T: number; S: number; maskBatched: number } | null {
  if (scores.length < 3) return null;
  const [B, T, S] = [scores[0]!, scores.at(-2)!, scores.at(-1)!];
  const HG = scores.slice(1, -2).reduce((a, b) => a * b, 1);
  const Bm = mask[0]!;
  if (
    mask.at(-1) !== S ||
    mask.at(-2) !== T ||
    (Bm !== 1 && Bm !== B) ||
    mask.reduce((a, b) => a * b, 1) !== Bm * T * S
  )
    return null;
  return { B, HG, T, S, maskBatched: Bm === B && B > 1 ? 1 : 0 };
}

registerWasmKernel(FORWARD, ({ inputs, attrs }, wasm) => {
  const { scores, mask } = inputs as Record<'scores' | 'mask', tf.TensorInfo>;
  const shape = forwardShape(scores.shape, mask.shape);
  if (!shape || scores.dtype !== 'float32' || mask.dtype !== 'float32')
    throw new Error(
      `maskedSoftmax: scores [${scores.shape}] and mask [${mask.shape}] (float32, (B, ..., T, S) and (1 or B, 1, 1, T, S))`,
    );
  const { B, HG, T, S, maskBatched } = shape;
  const out = wasm.makeOutput(scores.shape, 'float32');
  const at = (t: tf.TensorInfo) => byteOffset(wasm, t);
  forwardFor(wasm)!(
    at(scores),
    at(mask),
    at(out),
    B * HG * T,
    T,
    S,
    HG,
    maskBatched,
    (attrs as { offset: number }).offset,
  );
  return out;
});

/** Whether maskedSoftmax's gradient would run the fused kernel on the current backend. */
export function simdSoftmaxActive(): boolean {
  return (
    switches.simdSoftmax && tf.getBackend() === 'wasm' && kernelsFor(asWasm(tf.backend())) !== null
  );
}

/**
 * softmax(scores + mask) over the last axis, differentiable in scores (the mask is a constant),
 * scores (B, ..., T, S) and mask (1 or B, 1, 1, T, S). Where simdSoftmaxActive: the forward one
 * SIMD pass (skipping, with `causalOffset`, the keys past t + causalOffset that the mask hides:
 * they get 0), and under a gradient tape the fused backward; else the tfjs ops.
 */
export function maskedSoftmax(
  scores: tf.Tensor,
  mask: tf.Tensor,
  causalOffset: number | null = null,
): tf.Tensor {
  if (!simdSoftmaxActive()) return tf.softmax(tf.add(scores, mask));
  const fused =
    switches.simdSoftmaxForward &&
    forwardShape(scores.shape, mask.shape) !== null &&
    forwardFor(asWasm(tf.backend())) !== null;
  const attrs = { offset: causalOffset ?? -1 } as unknown as tf.NamedAttrMap;
  const forward = (x: tf.Tensor) =>
    fused
      ? (tf.engine().runKernel(FORWARD, { scores: x, mask }, attrs) as tf.Tensor)
      : tf.softmax(tf.add(x, mask));
  if (!tf.engine().isTapeOn()) return forward(scores);
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input, save] = args as [tf.Tensor, tf.GradSaveFunc];
    const p = forward(input); // the customGrad's forward records no gradient of its own
    save([p]);
    return {
      value: p,
      gradFunc: (dy: tf.Tensor, [kept]: tf.Tensor[]) =>
        tf.engine().runKernel(BACKWARD, { p: kept!, dy }) as tf.Tensor,
    };
  });
  return op(scores);
}
