// Rotary position embeddings (RoFormer, arxiv.org/abs/2104.09864) in the Hugging Face
// convention: the head dimension is split in halves and rotate_half(x) = [-x2, x1], with
// frequencies repeated over both halves, so x' = x cos + rotate_half(x) sin.
import * as tf from '@tensorflow/tfjs';
import type { ModelConfig, RopeScaling } from './config.ts';

/** The hd/2 inverse frequencies θ^(-2i/hd), after the config's rope scaling. */
export function inverseFrequencies(headDim: number, theta: number, scaling: RopeScaling): Float64Array {
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
  const smooth = (originalMaxPositions / wavelength - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
  return (1 - smooth) * (frequency / factor) + smooth * frequency;
}

/** Rotation tables for given positions (flattened B*T): cos and sin, each (B*T, hd). */
export class Rope {
  private readonly frequencies: Float64Array;

  constructor(private readonly config: ModelConfig) {
    this.frequencies = inverseFrequencies(config.headDim, config.ropeTheta, config.ropeScaling);
  }

  /** cos and sin (positions.length, hd), computed in float64 and uploaded as float32. */
  tables(positions: ArrayLike<number>): { cos: tf.Tensor2D; sin: tf.Tensor2D } {
    const headDim = this.config.headDim;
    const half = headDim / 2;
    const cos = new Float32Array(positions.length * headDim);
    const sin = new Float32Array(positions.length * headDim);
    for (let p = 0; p < positions.length; p++) {
      for (let i = 0; i < half; i++) {
        const angle = positions[p]! * this.frequencies[i]!;
        const c = Math.cos(angle);
        const s = Math.sin(angle);
        cos[p * headDim + i] = c;
        cos[p * headDim + half + i] = c;
        sin[p * headDim + i] = s;
        sin[p * headDim + half + i] = s;
      }
    }
    return { cos: tf.tensor2d(cos, [positions.length, headDim]), sin: tf.tensor2d(sin, [positions.length, headDim]) };
  }
}

/** x cos + rotate_half(x) sin for x (..., hd) and tables broadcastable to x. */
export function applyRope(x: tf.Tensor, cos: tf.Tensor, sin: tf.Tensor): tf.Tensor {
  const half = x.shape[x.rank - 1]! / 2;
  const [x1, x2] = tf.split(x, [half, half], -1) as [tf.Tensor, tf.Tensor];
  const rotated = tf.concat([tf.neg(x2), x1], -1);
  return tf.add(tf.mul(x, cos), tf.mul(rotated, sin));
}
