// Gradient checkpointing for the decoder's layers (Chen et al. 2016, arxiv.org/abs/1604.06174):
// a layer runs as one custom-gradient op whose forward pass keeps only the layer's input (and the
// tables and masks it reads, which every layer shares), and whose backward pass runs the layer's
// forward again with the tape on and backpropagates through it. What a micro-batch keeps for the
// backward pass is then one (N, D) input per layer, plus one layer's full set while that layer
// recomputes, instead of every layer's full set; it costs one more forward pass of the layers.
// The update turns it on per micro-batch (src/rl/update.ts, model_files/activation_budget.ts).
//
// The same ops run on the same inputs in the same order, forward and backward, so the loss and
// the gradients are those of the plain forward bit for bit (test/model/recompute.test.ts).
//
// Shapes: N rows, D model width.
import * as tf from '@tensorflow/tfjs';
import { customOp } from './custom_op.ts';
import type { ForwardMode } from './linear.ts';
import type { DecoderLayer } from './params.ts';

/**
 * `layer(x, context)` (x (N, D) -> (N, D)) as one op that recomputes itself in the backward pass.
 * `context` holds the other tensors the layer reads (RoPE tables, masks), at any depth in plain
 * objects and arrays: they go through save(), since the caller's scope frees them before the
 * backward pass runs. `trainables`: every trainable tensor the layer reads (layerTrainables), so
 * their gradients flow; any other weight it reads must outlive the backward pass (variables do).
 */
export function recomputedLayer<C>(
  layer: (x: tf.Tensor2D, context: C) => tf.Tensor2D,
  x: tf.Tensor2D,
  context: C,
  trainables: readonly tf.Variable[],
): tf.Tensor2D {
  const constants = tensorsIn(context);
  const op = customOp(([input], save) => {
    save([input!, ...constants]);
    return {
      // the tape is off here (a customGrad's forward): nothing inside is kept for a backward
      value: layer(input as tf.Tensor2D, context),
      gradFunc: (dy, saved) =>
        tf.tidy(() => {
          const [xs, ...kept] = saved as [tf.Tensor2D, ...tf.Tensor[]];
          const again = withTensors(context, kept);
          return taped(() => layer(xs, again), [xs, ...trainables], dy);
        }),
    };
  });
  return op(x, ...trainables) as tf.Tensor2D;
}

/**
 * The layer's trainable tensors in this mode: LoRA factors (adapters on), and any trainable
 * variable among its weights, biases and norms (full fine-tuning).
 */
export function layerTrainables(layer: DecoderLayer, mode: ForwardMode): tf.Variable[] {
  const candidates: unknown[] = [
    layer.inputNorm,
    layer.postAttentionNorm,
    layer.queryNorm,
    layer.keyNorm,
  ];
  for (const linear of Object.values(layer.projections)) {
    candidates.push(linear.weight, linear.bias);
    if (mode.adapters && linear.adapter) candidates.push(linear.adapter.a, linear.adapter.b);
  }
  const trainable = candidates.filter(
    (v): v is tf.Variable => v instanceof tf.Variable && v.trainable,
  );
  return [...new Set(trainable)];
}

/**
 * d f / d xs with upstream gradient dy, run from inside an outer backward pass. tfjs's gradients()
 * starts a fresh tape when gradientDepth is 0 (it is, during the outer backward pass) and sets the
 * engine's tape to null when done, which would leave the outer gradients() nothing to free: so the
 * outer tape is put back. A weight the layer does not reach gets a zero gradient.
 */
function taped(f: () => tf.Tensor, xs: tf.Tensor[], dy: tf.Tensor): tf.Tensor[] {
  const engine = tf.engine();
  if (engine.state.gradientDepth !== 0)
    throw new Error(
      'a recomputed layer cannot be differentiated twice (no higher-order gradients)',
    );
  const outer = engine.state.activeTape;
  try {
    const { value, grads } = engine.gradients(f, xs, dy, true);
    value.dispose();
    return grads.map((g, i) => g ?? tf.zerosLike(xs[i]!));
  } finally {
    engine.state.activeTape = outer;
  }
}

const isPlain = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/** Every tensor in plain objects and arrays, depth first. */
function tensorsIn(value: unknown, out: tf.Tensor[] = []): tf.Tensor[] {
  if (value instanceof tf.Tensor) out.push(value);
  else if (Array.isArray(value)) for (const v of value) tensorsIn(v, out);
  else if (isPlain(value)) for (const v of Object.values(value)) tensorsIn(v, out);
  return out;
}

/** `value` with its tensors (in tensorsIn's order) replaced by `tensors`. */
function withTensors<C>(value: C, tensors: readonly tf.Tensor[]): C {
  let next = 0;
  const rebuild = (v: unknown): unknown => {
    if (v instanceof tf.Tensor) return tensors[next++];
    if (Array.isArray(v)) return v.map(rebuild);
    if (isPlain(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rebuild(x)]));
    return v;
  };
  return rebuild(value) as C;
}
