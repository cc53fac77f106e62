// The supervised training loop of the demo model: length-bucketed batches (little padding),
// linear warmup then cosine decay, one src/rl/sft.ts step per batch.
import type { AdamW } from '../../src/model/adamw.ts';
import type { CausalLM } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { learnedTokens, sftStep, type SftExample } from '../../src/rl/sft.ts';
import type { ParallelSft } from './parallel_sft.ts';

/** Loop settings. */
export interface SftSchedule {
  steps: number;
  batchSize: number;
  peakLearningRate: number;
  /** Learning rate at the last step, reached by cosine decay. */
  finalLearningRate: number;
  warmupSteps: number;
  gradClip: number;
  seed: number;
  /**
   * 'batch': the loss is the mean over each batch's learned tokens (the committed model's first
   * run); 'corpus': the sum divided by the corpus's mean learned tokens per batch, so every token
   * weighs the same across batches (length-bucketed batches of short transcripts would otherwise
   * weigh their tokens more). Absent = 'batch'.
   */
  tokenWeighting?: 'batch' | 'corpus';
}

/** Mean learned (mask 1, predicted) tokens per batch of `batchSize` over the examples. */
export function meanLearnedTokens(examples: readonly SftExample[], batchSize: number): number {
  return (learnedTokens(examples) / Math.max(1, examples.length)) * batchSize;
}

/** Learning rate at `step` (0-based): linear warmup, then cosine from peak to final. */
export function learningRateAt(step: number, schedule: SftSchedule): number {
  const { steps, warmupSteps, peakLearningRate: peak, finalLearningRate: final } = schedule;
  if (step < warmupSteps) return (peak * (step + 1)) / warmupSteps;
  const progress = Math.min(1, (step - warmupSteps) / Math.max(1, steps - warmupSteps));
  return final + 0.5 * (peak - final) * (1 + Math.cos(Math.PI * progress));
}

/**
 * Endless stream of batches: each epoch shuffles, cuts the data into windows of 16 batches, sorts
 * each window by length (so a batch holds similar lengths) and shuffles the batches.
 */
export function* batches(
  examples: readonly SftExample[],
  batchSize: number,
  rng: Rng,
): Generator<SftExample[]> {
  if (examples.length === 0) throw new Error('no training examples');
  for (;;) {
    const order = examples
      .map((e) => ({ e, key: rng.uniform() }))
      .sort((a, b) => a.key - b.key)
      .map((x) => x.e);
    const epoch: SftExample[][] = [];
    const window = batchSize * 16;
    for (let start = 0; start < order.length; start += window) {
      const sorted = order.slice(start, start + window).sort((a, b) => a.ids.length - b.ids.length);
      for (let i = 0; i < sorted.length; i += batchSize) epoch.push(sorted.slice(i, i + batchSize));
    }
    const shuffled = epoch.map((b) => ({ b, key: rng.uniform() })).sort((a, b) => a.key - b.key);
    for (const { b } of shuffled) yield b;
  }
}

/** Progress of one step, for logs. */
export interface SftProgress {
  step: number;
  loss: number;
  learningRate: number;
  seconds: number;
  tokens: number;
}

/**
 * Runs `schedule.steps` steps. `onStep` is awaited after every step (logging, evaluation,
 * snapshots); it may return 'stop' to end early. With `parallel`, each batch is spread over its
 * threads (same batches, same schedule).
 */
export async function trainSft(
  model: CausalLM,
  optimizer: AdamW,
  examples: readonly SftExample[],
  schedule: SftSchedule,
  // biome-ignore lint/suspicious/noConfusingVoidType: callers pass callbacks that return nothing
  onStep: (progress: SftProgress) => void | 'stop' | Promise<void | 'stop'> = () => {},
  parallel?: ParallelSft,
): Promise<void> {
  const stream = batches(examples, schedule.batchSize, new Rng(schedule.seed));
  const normalizer =
    schedule.tokenWeighting === 'corpus'
      ? meanLearnedTokens(examples, schedule.batchSize)
      : undefined;
  for (let step = 0; step < schedule.steps; step++) {
    const batch = stream.next().value as SftExample[];
    const learningRate = learningRateAt(step, schedule);
    const started = performance.now();
    const options = {
      learningRate,
      gradClip: schedule.gradClip,
      ...(normalizer ? { normalizer } : {}),
    };
    const loss = parallel
      ? await parallel.step(model, optimizer, batch, options)
      : sftStep(model, optimizer, batch, options);
    const progress = {
      step: step + 1,
      loss,
      learningRate,
      seconds: (performance.now() - started) / 1000,
      tokens: batch.reduce((s, e) => s + e.ids.length, 0),
    };
    if ((await onStep(progress)) === 'stop') break;
  }
}
