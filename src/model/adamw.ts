// AdamW (Loshchilov & Hutter, arxiv.org/abs/1711.05101): Adam with weight decay decoupled from
// the gradient, with PyTorch's torch.optim.AdamW update order. tfjs ships Adam without decoupled
// decay and hides its moments; here the state is explicit so a checkpoint can save and restore it.
import * as tf from '@tensorflow/tfjs';
import { simdAdamW, sumOfSquares } from '../kernels/tfjs/adamw.ts';
import type { GpuAdamW } from '../kernels/webgpu/adamw.ts';
import { fastPaths } from './fast_paths.ts';
import { sumTensors } from './ops.ts';

/** AdamW hyper-parameters (PyTorch's defaults except the learning rate). */
export interface AdamWConfig {
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
  weightDecay: number;
}

/** beta1 0.9, beta2 0.999, epsilon 1e-8, weight decay 0.01, learning rate 1e-4. */
export const defaultAdamWConfig: AdamWConfig = {
  learningRate: 1e-4,
  beta1: 0.9,
  beta2: 0.999,
  epsilon: 1e-8,
  weightDecay: 0.01,
};

/** Saved optimizer state: the step count and both moments of every variable, by name. */
export interface AdamWState {
  step: number;
  moments: Record<string, { shape: number[]; m: Float32Array; v: Float32Array }>;
}

/**
 * A non-trainable variable holding `make()`'s values; the tensor made for it is released
 * (tf.variable does not take it over).
 */
function frozenVariable(make: () => tf.Tensor): tf.Variable {
  const initial = make();
  const variable = tf.variable(initial, false);
  initial.dispose();
  return variable;
}

/**
 * AdamW over a fixed set of named variables. On webgpu the moments live in flat GPU buffers and
 * every variable is updated in one dispatch (kernels/webgpu/adamw.ts); elsewhere they are
 * variables, updated by the SIMD kernel (wasm) or the tfjs ops.
 */
export class AdamW {
  private step = 0;
  private readonly moments = new Map<string, { m: tf.Variable; v: tf.Variable }>();
  /** The WebGPU optimizer, made at first use on webgpu; null elsewhere. */
  private gpuOptimizer: GpuAdamW | null | undefined;

  constructor(
    private readonly variables: Map<string, tf.Variable>,
    public config: AdamWConfig = defaultAdamWConfig,
  ) {}

  /** Steps taken so far. */
  get stepCount(): number {
    return this.step;
  }

  /**
   * One update from gradients by variable name (missing names are skipped, e.g. a variable the
   * loss does not reach). The learning rate may be overridden per step (schedules). `gradScale`
   * multiplies every gradient first (clipping: clipScale(globalNorm(grads), maxNorm)), in the same
   * pass: the same numbers as applying tf.mul(g, gradScale), without that copy of every gradient.
   */
  apply(
    grads: Record<string, tf.Tensor>,
    learningRate = this.config.learningRate,
    gradScale = 1,
  ): void {
    const { beta1, beta2, epsilon, weightDecay } = this.config;
    this.step++;
    const correction1 = 1 - beta1 ** this.step;
    const correction2 = 1 - beta2 ** this.step;
    // on wasm, one fused pass per variable (kernels/simd/adamw.ts), the same arithmetic bit for bit
    const fused = fastPaths.adamW() === 'simd';
    const scalars = {
      beta1,
      oneMinusBeta1: 1 - beta1,
      beta2,
      oneMinusBeta2: 1 - beta2,
      stepSize: learningRate / correction1,
      inverseCorrection2: 1 / correction2,
      epsilon,
      decay: 1 - learningRate * weightDecay,
      gradScale,
    };
    const gpu = this.gpu();
    if (gpu) {
      gpu.apply(grads, { ...scalars, gradScale: Math.fround(gradScale) });
      return;
    }
    for (const [name, variable] of this.variables) {
      const given = grads[name];
      if (!given) continue;
      const moment = this.moment(name, variable);
      tf.tidy(() => {
        if (fused) {
          const [p, m, v] = simdAdamW(variable, given, moment.m, moment.v, scalars);
          moment.m.assign(m);
          moment.v.assign(v);
          variable.assign(p);
          return;
        }
        const grad = gradScale === 1 ? given : tf.mul(given, Math.fround(gradScale));
        const m = tf.add(tf.mul(moment.m, beta1), tf.mul(grad, 1 - beta1));
        const v = tf.add(tf.mul(moment.v, beta2), tf.mul(tf.square(grad), 1 - beta2));
        // lr * m_hat / (sqrt(v_hat) + eps), with the bias corrections folded into scalars
        const update = tf.div(
          tf.mul(m, learningRate / correction1),
          tf.add(tf.sqrt(tf.mul(v, 1 / correction2)), epsilon),
        );
        moment.m.assign(m);
        moment.v.assign(v);
        variable.assign(tf.sub(tf.mul(variable, 1 - learningRate * weightDecay), update));
      });
    }
  }

  /**
   * The gradients' global L2 norm, for clipping: over this optimizer's flat buffers on webgpu
   * (two dispatches, 4 bytes read back), else globalNorm().
   */
  async globalNorm(grads: Record<string, tf.Tensor>): Promise<number> {
    const gpu = this.gpu();
    return gpu ? gpu.globalNorm(grads) : globalNorm(grads);
  }

  /** The WebGPU optimizer where it serves (webgpu, float32 variables, switched on), else null. */
  private gpu(): GpuAdamW | null {
    if (this.gpuOptimizer === undefined) this.gpuOptimizer = fastPaths.gpuAdamW(this.variables);
    return this.gpuOptimizer && fastPaths.gpuActive() ? this.gpuOptimizer : null;
  }

  /** A copy of the state for checkpoints. */
  async saveState(): Promise<AdamWState> {
    const moments: AdamWState['moments'] = {};
    const gpu = this.gpu();
    if (gpu) {
      for (const [name, { m, v }] of await gpu.moments())
        moments[name] = { shape: [...this.variables.get(name)!.shape], m, v };
      return { step: this.step, moments };
    }
    for (const [name, { m, v }] of this.moments) {
      moments[name] = {
        shape: [...m.shape],
        m: (await m.data()) as Float32Array,
        v: (await v.data()) as Float32Array,
      };
    }
    return { step: this.step, moments };
  }

  /** Restores a saved state (names and shapes must match the variables). */
  loadState(state: AdamWState): void {
    this.disposeMoments();
    this.step = state.step;
    this.checkMoments(state);
    const gpu = this.gpu();
    if (gpu) {
      gpu.setMoments(new Map(Object.entries(state.moments)));
      return;
    }
    for (const [name, saved] of Object.entries(state.moments)) {
      this.moments.set(name, {
        m: frozenVariable(() => tf.tensor(saved.m, saved.shape)),
        v: frozenVariable(() => tf.tensor(saved.v, saved.shape)),
      });
    }
  }

  /** Names and shapes of saved moments against the variables, with a clear error. */
  private checkMoments(state: AdamWState): void {
    for (const [name, saved] of Object.entries(state.moments)) {
      const variable = this.variables.get(name);
      if (!variable)
        throw new Error(`optimizer state has moments for ${name}, which this model does not train`);
      if (saved.shape.join() !== variable.shape.join()) {
        throw new Error(
          `optimizer state for ${name} has shape [${saved.shape.join(', ')}], the variable [${variable.shape.join(', ')}]`,
        );
      }
    }
  }

  /** Frees the moments. */
  dispose(): void {
    this.disposeMoments();
    this.gpuOptimizer?.dispose();
    this.gpuOptimizer = undefined;
  }

  private moment(name: string, variable: tf.Variable): { m: tf.Variable; v: tf.Variable } {
    let moment = this.moments.get(name);
    if (!moment) {
      moment = {
        m: frozenVariable(() => tf.zerosLike(variable)),
        v: frozenVariable(() => tf.zerosLike(variable)),
      };
      this.moments.set(name, moment);
    }
    return moment;
  }

  private disposeMoments(): void {
    for (const { m, v } of this.moments.values()) {
      m.dispose();
      v.dispose();
    }
    this.moments.clear();
  }
}

/**
 * The global L2 norm of gradients, as a plain number: on wasm one SIMD pass per gradient summing
 * squares in float64 (kernels/simd/adamw.ts sumSquares); elsewhere tf.sum(tf.square(g)) read back.
 */
export async function globalNorm(grads: Record<string, tf.Tensor>): Promise<number> {
  const list = Object.values(grads);
  if (list.length === 0) return 0;
  if (fastPaths.adamW() === 'simd' && list.every((g) => g.dtype === 'float32'))
    return Math.sqrt(sumOfSquares(list));
  const total = tf.tidy(() => sumTensors(list.map((g) => tf.sum(tf.square(g)))));
  const value = (await total.data())[0]!;
  total.dispose();
  return Math.sqrt(value);
}

/**
 * The factor PyTorch's clip_grad_norm_ multiplies gradients by, min(1, maxNorm / (norm + 1e-6)),
 * for AdamW.apply's gradScale; 1 when clipping is off (maxNorm <= 0 or infinite).
 */
export function clipScale(norm: number, maxNorm: number): number {
  return maxNorm > 0 && Number.isFinite(maxNorm) ? Math.min(1, maxNorm / (norm + 1e-6)) : 1;
}

/**
 * Scales gradients so their global L2 norm is at most `maxNorm` (PyTorch's clip_grad_norm_), on the
 * device (no read back): returns new gradients and the norm before clipping. The trainer instead
 * reads the norm (globalNorm) and passes clipScale to AdamW.apply, which skips this copy.
 */
export function clipByGlobalNorm(
  grads: Record<string, tf.Tensor>,
  maxNorm: number,
): { grads: Record<string, tf.Tensor>; norm: tf.Scalar } {
  return tf.tidy(() => {
    const squares = Object.values(grads).map((g) => tf.sum(tf.square(g)));
    const norm = tf.sqrt(squares.length > 0 ? sumTensors(squares) : tf.scalar(0)) as tf.Scalar;
    const scale = tf.minimum(1, tf.div(maxNorm, tf.add(norm, 1e-6)));
    const clipped: Record<string, tf.Tensor> = {};
    for (const [name, g] of Object.entries(grads)) clipped[name] = tf.mul(g, scale);
    return { grads: clipped, norm };
  });
}
