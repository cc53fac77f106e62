// The policy's sampling face, as the episode loop sees it: `modelSampler` is the episode loop's
// Sampler (episode_loop.ts) over the model's batched KV-cache sampling, one Rng stream per
// episode, keeping each episode's keys and values from one turn to the next (prefix_cache.ts)
// until the episode loop releases them. It samples tokens; which tasks a step draws is the task
// sampler's (task_sampler.ts).
import type { CausalLM } from '../model/model.ts';
import { PrefixCache } from '../model/prefix_cache.ts';
import { generate } from '../model/sample.ts';
import type { Sampler } from './episode_loop.ts';

/** Numbers the prefix cache may hold: 256M (1 GiB), every episode of a step at our shapes. */
const ROLLOUT_PREFIX_BUDGET = 1 << 28;

/** A Sampler over a loaded model for one step's episodes (the weights stay until release()). */
export function modelSampler(model: CausalLM): Sampler & { readonly prefixCache: PrefixCache } {
  // every episode's keys and values kept to the episode loop's end: a dropped entry costs its whole
  // conversation's prefill next turn, whose attention over all the episodes at once is the
  // episode loop's largest transient (at the SmolLM2-135M shape it took the heap past 4 GiB), while
  // keeping them costs one KV cache (memory_estimate.ts counts it)
  const prefixCache = new PrefixCache(ROLLOUT_PREFIX_BUDGET);
  return {
    maxPositions: model.config.maxPositions,
    prefixCache,
    async sample(contexts, rngs, options) {
      return generate(model, contexts, { ...options, streams: rngs, prefixCache });
    },
    release() {
      prefixCache.clear();
    },
    forget(ids) {
      prefixCache.forget(ids);
    },
  };
}
