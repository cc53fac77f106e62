// One token from a row of logits, as the reference decoder samples (decoding.ts): inverse CDF over
// softmax(logits / temperature) with one uniform from the sequence's own stream, and the token's
// log-prob. The WebGPU engine samples on the GPU with the same semantics (kernels/webgpu/
// wgsl_tokens.ts).
import { SimdWeights } from '../kernels/simd/sample.ts';
import { fastPaths } from './fast_paths.ts';
import type { Rng } from './rng.ts';

let weightsScratch = new Float64Array(0);
let simdWeights: SimdWeights | null | undefined;

/**
 * Draws one token from softmax(logits / temperature) by inverse CDF with one uniform, and returns
 * its log-prob under that distribution. Temperature 0 takes the argmax, log-prob at temperature 1.
 * The unnormalized probabilities come from simd_sample.ts where the engine has WebAssembly SIMD
 * (float32 weights, float64 total), else from Math.exp in float64.
 */
export function sampleToken(
  logits: Float32Array,
  offset: number,
  vocab: number,
  temperature: number,
  rng: Rng,
): { id: number; logprob: number } {
  const scale = temperature > 0 ? 1 / temperature : 1;
  // unnormalized probabilities, computed once (exp dominates for a 150k vocabulary)
  if (simdWeights === undefined) simdWeights = SimdWeights.create();
  let max = -Infinity;
  let argmax = -1; // the first position of the max, found when needed
  let weights: ArrayLike<number> | null = null;
  let total = 0;
  if (simdWeights && fastPaths.sampling() === 'simd')
    ({ max, weights, total } = simdWeights.weights(logits, offset, vocab, scale));
  if (!weights) {
    max = -Infinity;
    argmax = 0;
    for (let v = 0; v < vocab; v++) {
      const z = logits[offset + v]!;
      if (z > max) {
        max = z;
        argmax = v;
      }
    }
    if (weightsScratch.length < vocab) weightsScratch = new Float64Array(vocab);
    for (let v = 0; v < vocab; v++) {
      const weight = Math.exp((logits[offset + v]! - max) * scale);
      weightsScratch[v] = weight;
      total += weight;
    }
    weights = weightsScratch;
  }
  const first = (): number => {
    if (argmax < 0) for (argmax = 0; argmax < vocab && logits[offset + argmax] !== max; argmax++);
    return argmax;
  };
  const logTotal = Math.log(total);
  if (temperature === 0) return { id: first(), logprob: -logTotal };
  const threshold = rng.uniform() * total;
  let cumulative = 0;
  let id = -1;
  for (let v = 0; v < vocab; v++) {
    cumulative += weights[v]!;
    if (cumulative > threshold) {
      id = v;
      break;
    }
  }
  if (id < 0) id = first(); // rounding left the threshold just past the sum
  return { id, logprob: (logits[offset + id]! - max) * scale - logTotal };
}
