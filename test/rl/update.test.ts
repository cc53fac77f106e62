// The update's loss and gradient through the whole model, against an independent float64 PyTorch
// implementation (scripts/golden/grpo_model_loss.py): packing, the one-position shift between
// trajectory layout and the model's log-probs, masks, temperature, KL reference, aggregation.
// Also: micro-batching does not change the result, and a non-finite loss skips the step.
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { AdamW, globalNorm } from '../../src/model/adamw.ts';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model/node_source.ts';
import type { Aggregation } from '../../src/rl/loss.ts';
import { batchGradients, lengthSortedBatches, scoreSequences, update, type PackedSequence } from '../../src/rl/update.ts';
import { useBackend } from '../model/helpers.ts';

interface Case {
  name: string;
  batch: { sequences: PackedSequence[]; clipEps: number; clipEpsHigh: number; klCoef: number; ref: string | null; aggregation: Aggregation; temperature: number; maxTokens: number };
  loss: number;
  gradNorm: number;
  gradients: Record<string, number[]>;
}
const golden = JSON.parse(readFileSync('test/fixtures/grpo_model_loss.json', 'utf8')) as { cases: Case[] };

const options = (c: Case, microBatchSize = 8) => ({
  temperature: c.batch.temperature, clipEps: c.batch.clipEps, clipEpsHigh: c.batch.clipEpsHigh, klCoef: c.batch.klCoef,
  aggregation: c.batch.aggregation, maxTokens: c.batch.maxTokens, ppoEpochs: 1, microBatchSize, gradClip: 0, learningRate: 0,
});

/** The first 16 entries of the HF-layout (out, in) gradient from our (in, out) storage. */
function hfFirst16(grad: tf.Tensor): number[] {
  const data = grad.dataSync();
  if (grad.shape.length !== 2) return Array.from(data.slice(0, 16));
  const [, cols] = grad.shape as [number, number];
  return Array.from({ length: 16 }, (_, i) => data[i * cols]!);
}

describe.each(['wasm', 'cpu'] as const)('GRPO loss through the model on %s', (backend) => {
  beforeAll(() => useBackend(backend));

  it.each(golden.cases.map((c) => [c.name, c] as const))('%s: loss, gradient norm and gradients match PyTorch', async (_name, c) => {
    const model = await CausalLM.load(directorySource('test/fixtures/models/tiny-llama'), { training: { kind: 'full' } });
    let ref: number[][] | null = null;
    if (c.batch.ref) {
      const refModel = await CausalLM.load(directorySource(c.batch.ref));
      ref = await scoreSequences(refModel, c.batch.sequences.map((s) => s.ids), c.batch.temperature, 8);
      refModel.dispose();
    }
    const result = await batchGradients(model, c.batch.sequences, ref, options(c));
    expect(Math.abs(result.loss - c.loss)).toBeLessThan(1e-5);
    expect(Math.abs((await globalNorm(result.grads)) - c.gradNorm) / c.gradNorm).toBeLessThan(1e-4);
    for (const [name, expected] of Object.entries(c.gradients)) {
      const ours = hfFirst16(result.grads[name]!);
      ours.forEach((value, i) => expect(Math.abs(value - expected[i]!)).toBeLessThan(1e-5 + 1e-4 * Math.abs(expected[i]!)));
    }
    // Micro-batches of one trajectory, or of two grouped by length (not in batch order), accumulate
    // to the same loss and gradient.
    for (const size of [1, 2]) {
      const split = await batchGradients(model, c.batch.sequences, ref, options(c, size));
      expect(Math.abs(split.loss - result.loss)).toBeLessThan(1e-6);
      expect(Math.abs((await globalNorm(split.grads)) - (await globalNorm(result.grads)))).toBeLessThan(1e-5);
      Object.values(split.grads).forEach((g) => g.dispose());
    }
    Object.values(result.grads).forEach((g) => g.dispose());
    model.dispose();
  });
});

describe('length-sorted micro-batches', () => {
  beforeAll(() => useBackend('wasm'));

  it('groups indexes longest first, ties in batch order, every index once', () => {
    expect(lengthSortedBatches([5, 9, 2, 9, 7], 2)).toEqual([[1, 3], [4, 0], [2]]);
    expect(lengthSortedBatches([], 4)).toEqual([]);
  });

  it('scoreSequences returns each sequence its own log-probs whatever the micro-batching', async () => {
    const model = await CausalLM.load(directorySource('test/fixtures/models/tiny-llama'));
    const sequences = [[1, 2, 3], [4, 5, 6, 7, 8, 9], [10, 11], [12, 13, 14, 15]];
    const whole = await Promise.all(sequences.map((ids) => scoreSequences(model, [ids], 1, 1).then((r) => r[0]!)));
    const batched = await scoreSequences(model, sequences, 1, 2);
    batched.forEach((row, i) => {
      expect(row.length).toBe(sequences[i]!.length);
      row.forEach((v, t) => expect(v).toBeCloseTo(whole[i]![t]!, 5));
    });
    model.dispose();
  });
});

describe('update', () => {
  beforeAll(() => useBackend('wasm'));

  it('skips the optimizer step on a non-finite loss, says why, and leaves the weights alone', async () => {
    const model = await CausalLM.load(directorySource('test/fixtures/models/tiny-llama'), { training: { kind: 'full' } });
    const c = golden.cases[0]!;
    const optimizer = new AdamW(model.trainableVariables());
    const before = model.logits([1, 2, 3]);
    const poisoned = c.batch.sequences.map((s) => ({ ...s, advantage: Number.NaN }));
    const report = await update(model, optimizer, poisoned, null, { ...options(c), learningRate: 1e-2 });
    expect(report.skipped).toMatch(/non-finite/);
    expect(optimizer.stepCount).toBe(0);
    expect(model.logits([1, 2, 3])[2]).toEqual(before[2]);
    // A finite batch does step, and the tensor count stays flat across updates.
    await update(model, optimizer, c.batch.sequences, null, { ...options(c), learningRate: 1e-2 });
    const tensors = tf.memory().numTensors;
    await update(model, optimizer, c.batch.sequences, null, { ...options(c), learningRate: 1e-2 });
    expect(tf.memory().numTensors).toBe(tensors);
    expect(optimizer.stepCount).toBe(2);
    optimizer.dispose();
    model.dispose();
  });
});
