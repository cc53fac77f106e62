// The policy's sampling face as the rollout sees it: the model's batched KV-cache sampler with one
// Rng stream per episode.
import type { CausalLM } from '../model/model.ts';
import { generate } from '../model/sample.ts';
import type { Sampler } from './rollout.ts';

/** A Sampler over a loaded model. */
export function modelSampler(model: CausalLM): Sampler {
  return {
    maxPositions: model.config.maxPositions,
    async sample(contexts, rngs, options) {
      return generate(model, contexts, { ...options, streams: rngs });
    },
  };
}
