// Rotary position embeddings (RoFormer, arxiv.org/abs/2104.09864) in the Hugging Face
// convention: the head dimension is split in halves and rotate_half(x) = [-x2, x1], with
// frequencies repeated over both halves, so x' = x cos + rotate_half(x) sin.
import * as tf from '@tensorflow/tfjs';
import { fastPaths } from './fast_paths.ts';
import type { ModelConfig, RopeScaling } from '../model_files/hf_config.ts';
import { matMul2d } from '../kernels/matmul/dispatch.ts';
import { matMulLinear } from './ops.ts';
import { ropeOnHeap } from '../kernels/tfjs/rope.ts';

/** The hd/2 inverse frequencies θ^(-2i/hd), after the config's rope scaling. */
export function inverseFrequencies(
  headDim: number,
  theta: number,
  scaling: RopeScaling,
): Float64Array {
  const half = headDim / 2;
  const out = new Float64Array(half);
  for (let i = 0; i < half; i++) {
    const base = 1 / theta ** ((2 * i) / headDim);
    out[i] = scaleFrequency(base, scaling);
  }
  return out;
}

function scaleFrequency(frequency: number, scaling: RopeScaling): number {
  if (scaling.type === 'default') return frequency;
  if (scaling.type === 'linear') return frequency / scaling.factor;
  // Llama 3: keep short wavelengths, slow long ones by `factor`, ramp smoothly in between.
  const { factor, lowFreqFactor, highFreqFactor, originalMaxPositions } = scaling;
  const wavelength = (2 * Math.PI) / frequency;
  const lowWavelength = originalMaxPositions / lowFreqFactor;
  const highWavelength = originalMaxPositions / highFreqFactor;
  if (wavelength < highWavelength) return frequency;
  if (wavelength > lowWavelength) return frequency / factor;
  const smooth =
    (originalMaxPositions / wavelength - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
  return (1 - smooth) * (frequency / factor) + smooth * frequency;
}

/** Rotation tables for given positions (flattened B*T): cos and sin, each (B*T, hd). */
export class Rope {
  private readonly frequencies: Float64Array;
  private rotationMatrix: tf.Tensor2D | null = null;

  constructor(private readonly config: ModelConfig) {
    this.frequencies = inverseFrequencies(config.headDim, config.ropeTheta, config.ropeScaling);
  }

  /** cos and sin (positions.length, hd), computed in float64 and uploaded as float32. */
  tables(positions: ArrayLike<number>): { cos: tf.Tensor2D; sin: tf.Tensor2D } {
    const headDim = this.config.headDim;
    const cos = new Float32Array(positions.length * headDim);
    const sin = new Float32Array(positions.length * headDim);
    this.fill(positions, cos, 0, sin, 0, headDim);
    return {
      cos: tf.tensor2d(cos, [positions.length, headDim]),
      sin: tf.tensor2d(sin, [positions.length, headDim]),
    };
  }

  /**
   * The same numbers as tables(), in JavaScript: for each position its cos row then its sin row
   * (2 * hd numbers), as the WebGPU decoding engine reads them.
   */
  interleaved(positions: ArrayLike<number>): Float32Array {
    const headDim = this.config.headDim;
    const out = new Float32Array(positions.length * 2 * headDim);
    this.fill(positions, out, 0, out, headDim, 2 * headDim);
    return out;
  }

  /** Writes position p's cos row at cosAt + p * stride and its sin row at sinAt + p * stride. */
  private fill(
    positions: ArrayLike<number>,
    cos: Float32Array,
    cosAt: number,
    sin: Float32Array,
    sinAt: number,
    stride: number,
  ): void {
    const half = this.config.headDim / 2;
    for (let p = 0; p < positions.length; p++) {
      for (let i = 0; i < half; i++) {
        const angle = positions[p]! * this.frequencies[i]!;
        const c = Math.cos(angle);
        const s = Math.sin(angle);
        const [ci, si] = [cosAt + p * stride + i, sinAt + p * stride + i];
        cos[ci] = c;
        cos[ci + half] = c;
        sin[si] = s;
        sin[si + half] = s;
      }
    }
  }

  /**
   * rotate_half as a matrix R (hd, hd): x @ R = [-x2, x1]. Kept for the model's life (a backward
   * pass reads it after the forward's scope has closed); freed by dispose().
   */
  rotation(): tf.Tensor2D {
    if (!this.rotationMatrix) this.rotationMatrix = tf.keep(rotateHalfMatrix(this.config.headDim));
    return this.rotationMatrix;
  }

  dispose(): void {
    this.rotationMatrix?.dispose();
    this.rotationMatrix = null;
  }
}

/** R with x @ R = rotate_half(x) = [-x2, x1] for rows x of width hd. */
export function rotateHalfMatrix(headDim: number): tf.Tensor2D {
  const half = headDim / 2;
  const values = new Float32Array(headDim * headDim);
  for (let j = 0; j < half; j++) {
    values[(j + half) * headDim + j] = -1; // column j < half takes -x[j + half]
    values[j * headDim + j + half] = 1; // column j + half takes x[j]
  }
  return tf.tensor2d(values, [headDim, headDim]);
}

/**
 * x cos + rotate_half(x) sin for x (..., hd) and tables broadcastable to x. rotate_half is one
 * product with the signed permutation R (rotation()), exact in float32 (each output is one input
 * times +-1 plus zeros). Why not split, negate and concatenate: on WASM those three copies cost
 * ~7% of a decoding step (slices of small rows are slow there), the product one small GEMM.
 */
export function applyRope(
  x: tf.Tensor,
  cos: tf.Tensor,
  sin: tf.Tensor,
  rotation: tf.Tensor2D,
  backwardSin?: tf.Tensor,
): tf.Tensor {
  if (fastPaths.rope(x, cos) === 'wasm') {
    if (tf.engine().state.gradientDepth === 0) return ropeOnHeap(x, cos, sin); // decoding: one pass, the same numbers
    return trainableRope(x, cos, sin, backwardSin);
  }
  const rows = tf.reshape(x, [-1, x.shape[x.rank - 1]!]) as tf.Tensor2D;
  // Under a gradient tape, the linear op with the fast backward; decoding skips its customGrad.
  const product = tf.engine().isTapeOn()
    ? matMulLinear(rows, rotation, false)
    : matMul2d(rows, rotation);
  const rotated = tf.reshape(product, x.shape);
  return tf.add(tf.mul(x, cos), tf.mul(rotated, sin));
}

/**
 * The kernel under a gradient (training). The backward pass of x -> x cos + R(x) sin is
 * dy -> dy cos + R^T(dy sin): [dy1 c1 + dy2 s2, dy2 c2 - dy1 s1], which is the same kernel with
 * the table -[s2, s1] in place of sin ([s1, s2]; the model's tables have s1 = s2, but any work).
 * Each output is one rounded product plus another, as in the ops' gradient, so the same bits, in
 * one pass instead of two multiplies, a product with R^T and an add. `backwardSin`: that table,
 * made once by the caller for all layers (decoder.ts: -sin, its halves being equal), else made here
 * (a split and a concat, slow on WASM). The tables go through save(): the caller's scope may free
 * them before the backward pass runs.
 */
function trainableRope(
  x: tf.Tensor,
  cos: tf.Tensor,
  sin: tf.Tensor,
  backwardSin?: tf.Tensor,
): tf.Tensor {
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input, save] = args as [tf.Tensor, tf.GradSaveFunc];
    save([cos, backwardSin ?? sin]);
    return {
      value: ropeOnHeap(input, cos, sin),
      gradFunc: (dy: tf.Tensor, [c, s]: tf.Tensor[]) => {
        const swapped = backwardSin
          ? s!
          : tf.tidy(() => {
              const [s1, s2] = tf.split(s!, 2, -1);
              return tf.neg(tf.concat([s2!, s1!], -1));
            });
        return ropeOnHeap(dy, c!, swapped);
      },
    };
  });
  return op(x);
}
