// The update section of `npm run bench`: the GRPO update as the default run makes it, on batches
// the default run makes. The demo model (rank-8 LoRA on every projection, adapters random) rolls
// out two steps of the default preset (3 seed + builtin tasks x 6 samples, up to 3 turns of 128
// tokens, temperature 0.7, the real Pyodide sandbox); each batch then gets the update: the
// reference's scoring with adapters off and 2 PPO epochs of forward and backward in micro-batches
// of 4 (advantages random: they do not change the work). Keys:
//   grpo_update_ms             the update with each group's prompt run once per micro-batch
//                              (logprobs.ts sharedPrefix), the default
//   grpo_update_whole_ms       the same with every sequence run whole (switches.sharedPrefixes off)
//   grpo_update_shared_speedup whole / shared, from the same run
//   grpo_update_tensor_growth  tensors left after the last update less after the first (0: none leak)
// Median of 4 rounds, alternated, after a warm-up round.
import * as tf from '@tensorflow/tfjs';
import { nodeModelSource, openConfigSandbox } from '../cli/node_run.ts';
import { selectBackend } from '../kernels/backend.ts';
import { setSwitches } from '../kernels/switches.ts';
import type { CausalLM } from '../model/model.ts';
import { Rng } from '../model/rng.ts';
import { presetConfig } from '../run/presets.ts';
import { resolveRun } from '../run/resolve.ts';
import { modelSampler } from '../rl/policy.ts';
import { runEpisodes } from '../rl/episode_loop.ts';
import { loadPolicy } from '../service/session.ts';
import {
  batchGradients,
  referenceLogprobs,
  type PackedSequence,
  type UpdateOptions,
} from '../rl/update.ts';
import { median } from './model_setup.ts';

const config = presetConfig('default');
const run = resolveRun(config);
const options: UpdateOptions = {
  ...run.trainer.update,
  maxTokens: config.maxNewTokens * config.maxTurns,
  learningRate: 0,
};

async function updateOnce(model: CausalLM, batch: PackedSequence[]): Promise<void> {
  const ref = await referenceLogprobs(model, { kind: 'adapters-off' }, batch, options);
  for (let epoch = 0; epoch < options.ppoEpochs; epoch++) {
    const { grads } = await batchGradients(model, batch, ref, options);
    Object.values(grads).forEach((g) => g.dispose());
  }
}

/**
 * Two steps' batches of the default run's rollouts (three tasks each, spread over the train list).
 */
async function defaultRunBatches(
  policy: Awaited<ReturnType<typeof loadPolicy>>,
): Promise<PackedSequence[][]> {
  const executor = await openConfigSandbox(config);
  const { tasks } = run.trainer;
  const rng = new Rng(1);
  const batches: PackedSequence[][] = [];
  try {
    for (let step = 0; step < 2; step++) {
      const chosen = [0, 1, 2].map((i) => tasks[((step * 3 + i) * 5) % tasks.length]!);
      const { trajectories } = await runEpisodes(
        chosen,
        {
          sampler: modelSampler(policy.model),
          tokenizer: policy.tokenizer,
          executor,
          rng: rng.split(),
        },
        { ...run.trainer.rollout, step: step + 1 },
      );
      batches.push(
        trajectories
          .filter((t) => !t.prefixBroken && t.actionMask.includes(1))
          .map((t) => ({
            ids: t.ids,
            actionMask: t.actionMask,
            advantage: rng.uniform() * 2 - 1,
            oldLogprobs: t.oldLogprobs,
          })),
      );
    }
  } finally {
    await executor.close();
  }
  return batches;
}

export async function benchUpdate(): Promise<Record<string, unknown>> {
  await selectBackend({ force: 'wasm', threads: 'auto' });
  const { source } = nodeModelSource('demo');
  const policy = await loadPolicy(source, config, 'demo');
  const model = policy.model;
  const batches = await defaultRunBatches(policy); // with the demo model as it ships
  let seed = 1; // then adapters that act, as after a few steps
  for (const variable of model.trainableVariables().values())
    tf.tidy(() => variable.assign(tf.randomNormal(variable.shape, 0, 0.02, 'float32', seed++)));
  const tokens = batches.flat().reduce((sum, s) => sum + s.ids.length, 0);
  const prompts = batches.flat().reduce((sum, s) => sum + s.actionMask.indexOf(1), 0);
  process.stderr.write(
    `[bench] GRPO update: ${batches.length} default-run batches, ${batches.flat().length} sequences, ${tokens} tokens, ${prompts} of them prompts; shared prompts and whole sequences alternated\n`,
  );
  const times: Record<string, number[]> = { shared: [], whole: [] };
  const tensors: number[] = [];
  for (let round = 0; round < 5; round++) {
    for (const shared of [true, false]) {
      setSwitches({ sharedPrefixes: shared });
      const started = performance.now();
      for (const batch of batches) await updateOnce(model, batch);
      if (round > 0) times[shared ? 'shared' : 'whole']!.push(performance.now() - started);
      tensors.push(tf.memory().numTensors);
    }
  }
  setSwitches({ sharedPrefixes: true });
  policy.dispose();
  const [shared, whole] = [median(times.shared!), median(times.whole!)];
  return {
    grpo_update_ms: Math.round(shared),
    grpo_update_whole_ms: Math.round(whole),
    grpo_update_shared_speedup: Math.round((whole / shared) * 100) / 100,
    grpo_update_tensor_growth: tensors[tensors.length - 1]! - tensors[1]!,
  };
}
