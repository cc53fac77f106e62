// The episode loop with fewer episodes under way than the step has (maxSequences, for models whose KV
// cache at the step's size would not fit: memory_estimate.ts rolloutSequences), on the demo model's
// real sampler: the same episodes, token for token and log-prob for log-prob, as all at once, while
// the sampler never keeps more than maxSequences episodes' caches.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../src/kernels/backend.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { Rng } from '../../src/model/rng.ts';
import { modelSampler } from '../../src/rl/policy.ts';
import { runEpisodes, type Sampler } from '../../src/rl/episode_loop.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { loadPolicy, type LoadedPolicy } from '../../src/service/session.ts';
import { TASKS_BY_ID } from '../../src/tasks/registry.ts';
import type { CodeExecutor } from '../../src/env/types.ts';

/** A sandbox that answers every program at once with the same output. */
const executor: CodeExecutor = {
  async execute() {
    return { stdout: '42\n', stderr: '', error: null, timedOut: false, durationMs: 1 };
  },
} as unknown as CodeExecutor;

describe('the episode loop, a few episodes at a time (demo model)', () => {
  let policy: LoadedPolicy;
  beforeAll(async () => {
    await selectBackend({ force: 'wasm', threads: 'auto' });
    const config = presetConfig('default', { seed: 3 });
    policy = await loadPolicy(directorySource('public/models/demo'), config, 'path');
  });
  afterAll(() => policy?.dispose());

  it('samples the same episodes with 3 under way as with all 8, keeping at most 3 caches', async () => {
    const tasks = ['builtin/average', 'builtin/add_item'].map((id) => TASKS_BY_ID.get(id)!);
    const run = async (maxSequences?: number) => {
      const inner = modelSampler(policy.model);
      let mostKept = 0;
      let mostSampled = 0;
      const sampler: Sampler = {
        maxPositions: inner.maxPositions,
        async sample(contexts, rngs, options) {
          mostSampled = Math.max(mostSampled, contexts.length);
          const result = await inner.sample(contexts, rngs, options);
          mostKept = Math.max(mostKept, inner.prefixCache.size);
          return result;
        },
        release: () => inner.release?.(),
        forget: (ids) => inner.forget?.(ids),
      };
      const before = tf.memory().numTensors;
      const { trajectories } = await runEpisodes(
        tasks,
        { sampler, tokenizer: policy.tokenizer, executor, rng: new Rng(11) },
        {
          groupSize: 4,
          maxTurns: 3,
          maxNewTokens: 24,
          temperature: 1,
          parser: 'strict',
          timeoutMs: 1000,
          step: 1,
          ...(maxSequences ? { maxSequences } : {}),
        },
      );
      return { trajectories, mostKept, mostSampled, leaked: tf.memory().numTensors - before };
    };
    const all = await run();
    const capped = await run(3);
    expect(all.mostSampled).toBe(8);
    expect(capped.mostSampled).toBe(3);
    expect(capped.mostKept).toBeLessThanOrEqual(3);
    expect(capped.leaked).toBe(0); // (the first run may make the model's lasting tables)
    // several turns ran, so caches were kept and taken between turns
    expect(Math.max(...capped.trajectories.map((t) => t.turns.length))).toBeGreaterThan(1);
    expect(capped.trajectories.map((t) => t.ids)).toEqual(all.trajectories.map((t) => t.ids));
    capped.trajectories.forEach((t, i) => {
      const reference = all.trajectories[i]!.oldLogprobs!;
      const gap = Math.max(...t.oldLogprobs!.map((value, j) => Math.abs(value - reference[j]!)));
      expect(gap).toBeLessThan(1e-4);
    });
  });
});
