// The policy's sampling face as the rollout sees it: the model's batched KV-cache sampler with one
// Rng stream per episode, keeping each episode's keys and values from one turn to the next
// (prefix_cache.ts) until the rollout releases them.
import type { CausalLM } from '../model/model.ts';
import { PrefixCache } from '../model/prefix_cache.ts';
import { generate } from '../model/sample.ts';
import type { Sampler } from './rollout.ts';

/** A Sampler over a loaded model, for one rollout (the weights must not change until release()). */
export function modelSampler(model: CausalLM): Sampler & { readonly prefixCache: PrefixCache } {
  const prefixCache = new PrefixCache();
  return {
    maxPositions: model.config.maxPositions,
    prefixCache,
    async sample(contexts, rngs, options) {
      return generate(model, contexts, { ...options, streams: rngs, prefixCache });
    },
    release() {
      prefixCache.clear();
    },
  };
}
