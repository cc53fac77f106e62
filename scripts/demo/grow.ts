// A trained model grown into a larger shape that computes the same function (Net2Net's
// function-preserving expansion, Chen, Goodfellow and Shlens 2016, in the zero-output form), so a
// wider or deeper demo model starts where the smaller one ended instead of from scratch.
//
// The residual stream's new dimensions start at zero and stay so at initialization: the
// embedding's new columns, and the new rows of every output projection (o, down), are zero. What
// reads the stream (q, k, v, gate, up) gets random columns for the new dimensions, which read
// zeros. New heads and new MLP units get random inputs and zero output columns, and a new layer
// is the identity (its o and down are zero), so none of them changes the output until training
// moves them; their gradients are not zero, since each reads or writes something non-zero. An
// RMSNorm over D' dimensions of a vector that is zero past D divides by sqrt(D/D') times the old
// RMS, so every norm weight is scaled by sqrt(D/D') (the only change: eps acts as eps * D'/D).
// Head width stays (RoPE's frequencies depend on it); heads are added in whole KV groups.
import type { ModelConfig } from '../../src/model_files/hf_config.ts';
import type { WeightSource } from '../../src/model/params.ts';
import { expectedShapes, randomWeights } from '../../src/model/random_weights.ts';

/** Where old layer i sits in a stack of `to` layers: spread evenly, order kept. */
export function layerPlaces(from: number, to: number): number[] {
  return Array.from({ length: from }, (_, i) => Math.floor((i * to) / from));
}

/** Why `to` cannot be grown from `from`, or null when it can. */
export function growthProblem(from: ModelConfig, to: ModelConfig): string | null {
  const same = [
    'family',
    'vocabSize',
    'headDim',
    'tieWordEmbeddings',
    'qkvBias',
    'outputBias',
    'qkNorm',
    'mlpBias',
    'ropeTheta',
  ] as const;
  for (const key of same)
    if (JSON.stringify(from[key]) !== JSON.stringify(to[key]))
      return `${key} differs (${JSON.stringify(from[key])} and ${JSON.stringify(to[key])}); growth keeps it`;
  const larger = ['hiddenSize', 'intermediateSize', 'numLayers', 'numHeads', 'numKvHeads'] as const;
  for (const key of larger)
    if (to[key] < from[key]) return `${key} shrinks (${from[key]} to ${to[key]})`;
  if (to.numHeads / to.numKvHeads !== from.numHeads / from.numKvHeads)
    return `heads per KV head change (${from.numHeads / from.numKvHeads} to ${to.numHeads / to.numKvHeads})`;
  return null;
}

/**
 * `small`'s weights (config `from`) grown into config `to`, as float32 tensors in the Hugging Face
 * layout; new weights are normal(0, std) from `seed`'s streams, or zero where the function needs.
 */
export function grownWeights(
  small: WeightSource,
  from: ModelConfig,
  to: ModelConfig,
  seed: number,
  std = 0.02,
): WeightSource & { names(): string[] } {
  const problem = growthProblem(from, to);
  if (problem) throw new Error(`cannot grow the model: ${problem}`);
  const shapes = expectedShapes(to);
  const fresh = randomWeights(to, seed, std);
  const scale = Math.sqrt(from.hiddenSize / to.hiddenSize);
  const oldLayer = new Map(layerPlaces(from.numLayers, to.numLayers).map((p, i) => [p, i]));
  const D = from.hiddenSize;
  const qRows = from.numHeads * from.headDim;

  /** A matrix of `shape` holding `old` (rows x cols) at its top left and `rest` elsewhere. */
  const embed = (shape: number[], old: Float32Array, cols: number, rest: Float32Array) => {
    const out = Float32Array.from(rest);
    const rows = old.length / cols;
    for (let r = 0; r < rows; r++) out.set(old.subarray(r * cols, (r + 1) * cols), r * shape[1]!);
    return out;
  };
  /** Zeroes rows [r0, rows) and, within rows [0, r0), columns [c0, cols) of a matrix. */
  const zeroOutputs = (m: Float32Array, shape: number[], r0: number, c0: number) => {
    const cols = shape[1]!;
    m.fill(0, r0 * cols);
    for (let r = 0; r < r0; r++) m.fill(0, r * cols + c0, (r + 1) * cols);
    return m;
  };

  const tensor = (name: string): Float32Array => {
    const shape = shapes.get(name);
    if (!shape) throw new Error(`no tensor ${name} in the grown shape`);
    if (name === 'model.embed_tokens.weight')
      return embed(shape, small.float32(name), D, new Float32Array(shape[0]! * shape[1]!));
    if (name === 'lm_head.weight') return embed(shape, small.float32(name), D, fresh.float32(name));
    if (name === 'model.norm.weight') return grownNorm(small.float32(name), shape[0]!, scale);
    const match = /^model\.layers\.(\d+)\.(.+)$/.exec(name);
    if (!match) throw new Error(`no rule to grow ${name}`);
    const place = Number(match[1]);
    const part = match[2]!;
    const i = oldLayer.get(place);
    const oldName = i === undefined ? undefined : `model.layers.${i}.${part}`;
    if (part.endsWith('layernorm.weight'))
      return oldName
        ? grownNorm(small.float32(oldName), shape[0]!, scale)
        : new Float32Array(shape[0]!).fill(scale);
    if (part.endsWith('_norm.weight'))
      return oldName ? small.float32(oldName) : new Float32Array(shape[0]!).fill(1);
    const writesStream = part.startsWith('self_attn.o_proj') || part.startsWith('mlp.down_proj');
    if (part.endsWith('.bias')) {
      const out = new Float32Array(shape[0]!);
      if (oldName) out.set(small.float32(oldName));
      return out;
    }
    if (!oldName) {
      // a new layer: random reads, and an identity (zero) write to the stream
      const out = fresh.float32(name);
      return writesStream ? out.fill(0) : out;
    }
    const old = small.float32(oldName);
    const oldShape = small.shape(oldName);
    const grown = embed(shape, old, oldShape[1]!, fresh.float32(name));
    if (!writesStream) return grown;
    // an output projection: new dimensions' rows, and new heads' or units' columns, are zero
    const oldIn = part.startsWith('self_attn') ? qRows : from.intermediateSize;
    return zeroOutputs(grown, shape, D, oldIn);
  };
  return {
    names: () => [...shapes.keys()],
    has: (name) => shapes.has(name),
    shape: (name) => [...(shapes.get(name) ?? [])],
    float32: tensor,
  };
}

/** A norm's weights over `size` dimensions: the old ones scaled, the new ones `scale`. */
function grownNorm(old: Float32Array, size: number, scale: number): Float32Array {
  const out = new Float32Array(size).fill(scale);
  old.forEach((w, i) => {
    out[i] = w * scale;
  });
  return out;
}
