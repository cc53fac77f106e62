// The model benchmark's training section (model.ts lists its metrics): a full-parameter step of the
// benchmark model as the trainer runs it, timed alone or alternated in rounds with PyTorch's step
// (pytorch_reference.ts) so both see the same machine.
import * as tf from '@tensorflow/tfjs';
import { AdamW, clipScale, globalNorm } from '../model/adamw.ts';
import { tokenLogprobs } from '../model/logprobs.ts';
import { CausalLM } from '../model/model.ts';
import { randomWeights } from '../model/random_weights.ts';
import { config, log, median, seconds } from './model_setup.ts';
import type { pytorchServer } from './pytorch_reference.ts';

/**
 * A full-parameter training step of the benchmark's model, made once and run as often as asked
 * (milliseconds each).
 */
function trainingStep(): { step(): Promise<number>; dispose(): void } {
  const model = CausalLM.fromWeights(config, randomWeights(config, 1), { kind: 'full' });
  const variables = model.trainableVariables();
  const names = [...variables.keys()];
  const list = [...variables.values()];
  const optimizer = new AdamW(variables);
  const ids = Array.from({ length: 4 }, (_, b) =>
    Array.from({ length: 129 }, (_, t) => (b * 131 + t * 17) % 2000),
  );
  const step = () =>
    seconds(async () => {
      const { value, grads } = tf.variableGrads(
        () => tf.neg(tf.mean(tokenLogprobs(model, ids, { temperature: 1 }))) as tf.Scalar,
        list,
      );
      const named: Record<string, tf.Tensor> = {};
      list.forEach((variable, i) => (named[names[i]!] = grads[variable.name]!));
      // clipping as the trainer does it (update.ts): the norm read back, the factor given to AdamW
      optimizer.apply(named, undefined, clipScale(await globalNorm(named), 1));
      await value.data();
      tf.dispose([value, ...Object.values(grads)]);
    });
  return {
    step: async () => 1000 * (await step()),
    dispose: () => {
      optimizer.dispose();
      model.dispose();
    },
  };
}

/** Median milliseconds of a training step (3 after one that warms up kernels and allocations). */
export async function training(): Promise<number> {
  const trainer = trainingStep();
  const times: number[] = [];
  for (let step = 0; step < 4; step++) {
    const time = await trainer.step();
    if (step > 0) times.push(time);
  }
  trainer.dispose();
  return median(times);
}

/**
 * Our step against PyTorch's, alternated in rounds of 6 steps each so both see the same machine
 * (these VMs' speed drifts by tens of percent within minutes), each side's round after steps of its
 * own to warm up: medians of each side's steps and the median of the rounds' ratios. PyTorch
 * without a server: our steps alone.
 */
export async function trainingAgainst(
  torch: Awaited<ReturnType<typeof pytorchServer>>,
  rounds = 4,
): Promise<{ ours: number; theirs: number | null; ratio: number | null }> {
  const trainer = trainingStep();
  await trainer.step(); // warm-up: kernels, allocations, the transposed weight copies
  await trainer.step();
  const ours: number[] = [];
  const theirs: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < (torch ? rounds : 1); round++) {
    await trainer.step(); // as PyTorch's round gets
    const mine: number[] = [];
    for (let i = 0; i < 6; i++) mine.push(await trainer.step());
    ours.push(...mine);
    if (!torch) break;
    let other: number[];
    try {
      other = await torch.steps(6);
    } catch (error) {
      log(`PyTorch reference stopped (${(error as Error).message}); our steps alone from here`);
      break;
    }
    theirs.push(...other);
    ratios.push(median(mine) / median(other));
    log(
      `  round ${round + 1}: ours ${mine.map(Math.round).join(', ')} ms; PyTorch ${other.map(Math.round).join(', ')} ms`,
    );
  }
  trainer.dispose();
  return {
    ours: median(ours),
    theirs: ratios.length ? median(theirs) : null,
    ratio: ratios.length ? median(ratios) : null,
  };
}
