// The update's loss and gradient through the whole model, against an independent float64 PyTorch
// implementation (scripts/golden/grpo_model_loss.py): packing, the one-position shift between
// trajectory layout and the model's log-probs, masks, temperature, KL reference, aggregation.
// The `group_shared_prompt` case runs its prompt once per micro-batch (tokenLogprobs sharedPrefix),
// in the update and in the reference's scoring. Also: micro-batching does not change the result,
// and a non-finite loss skips the step.
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { AdamW, globalNorm } from '../../src/model/adamw.ts';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import type { Aggregation } from '../../src/rl/loss.ts';
import {
  batchGradients,
  firstAction,
  lengthSortedBatches,
  microBatches,
  referenceLogprobs,
  scoreSequences,
  update,
  type PackedSequence,
} from '../../src/rl/update.ts';
import { useBackend } from '../helpers/models.ts';
import { setSwitches, withSwitches } from '../../src/kernels/switches.ts';

interface Case {
  name: string;
  batch: {
    sequences: PackedSequence[];
    clipEps: number;
    clipEpsHigh: number;
    klCoef: number;
    ref: string | null;
    aggregation: Aggregation;
    temperature: number;
    maxTokens: number;
  };
  loss: number;
  gradNorm: number;
  gradients: Record<string, number[]>;
}
const golden = JSON.parse(readFileSync('test/fixtures/grpo_model_loss.json', 'utf8')) as {
  cases: Case[];
};

const options = (c: Case, microBatchSize = 8) => ({
  temperature: c.batch.temperature,
  clipEps: c.batch.clipEps,
  clipEpsHigh: c.batch.clipEpsHigh,
  klCoef: c.batch.klCoef,
  aggregation: c.batch.aggregation,
  maxTokens: c.batch.maxTokens,
  ppoEpochs: 1,
  microBatchSize,
  gradClip: 0,
  learningRate: 0,
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

  it.each(golden.cases.map((c) => [c.name, c] as const))(
    '%s: loss, gradient norm and gradients match PyTorch',
    async (_name, c) => {
      const model = await CausalLM.load(directorySource('test/fixtures/models/tiny-llama'), {
        training: { kind: 'full' },
      });
      let ref: number[][] | null = null;
      if (c.batch.ref) {
        // as the trainer scores it: from each sequence's first generated token, prompts run once
        const refModel = await CausalLM.load(directorySource(c.batch.ref));
        ref = await referenceLogprobs(
          model,
          { kind: 'model', model: refModel },
          c.batch.sequences,
          { ...options(c), klCoef: c.batch.klCoef },
        );
        refModel.dispose();
      }
      const result = await batchGradients(model, c.batch.sequences, ref, options(c));
      expect(Math.abs(result.loss - c.loss)).toBeLessThan(1e-5);
      expect(Math.abs((await globalNorm(result.grads)) - c.gradNorm) / c.gradNorm).toBeLessThan(
        1e-4,
      );
      for (const [name, expected] of Object.entries(c.gradients)) {
        const ours = hfFirst16(result.grads[name]!);
        ours.forEach((value, i) =>
          expect(Math.abs(value - expected[i]!)).toBeLessThan(1e-5 + 1e-4 * Math.abs(expected[i]!)),
        );
      }
      // Micro-batches of one trajectory, or of two grouped by length (not in batch order), or whole
      // sequences with no prompt run once, accumulate to the same loss and gradient.
      for (const [size, shared] of [
        [1, true],
        [2, true],
        [8, false],
      ] as const) {
        setSwitches({ sharedPrefixes: shared });
        const split = await batchGradients(model, c.batch.sequences, ref, options(c, size));
        setSwitches({ sharedPrefixes: true });
        expect(Math.abs(split.loss - result.loss)).toBeLessThan(1e-6);
        expect(
          Math.abs((await globalNorm(split.grads)) - (await globalNorm(result.grads))),
        ).toBeLessThan(1e-5);
        Object.values(split.grads).forEach((g) => g.dispose());
      }
      Object.values(result.grads).forEach((g) => g.dispose());
      model.dispose();
    },
  );
});

describe('length-sorted micro-batches', () => {
  beforeAll(() => useBackend('wasm'));

  it('groups indexes longest first, ties in batch order, every index once', () => {
    expect(lengthSortedBatches([5, 9, 2, 9, 7], 2)).toEqual([[1, 3], [4, 0], [2]]);
    expect(lengthSortedBatches([], 4)).toEqual([]);
  });

  it("micro-batches by prompt, cut where rows plus a pass's cost are fewest: the prompt but its last token shared, a lone sequence nothing", () => {
    const [p, q] = [
      [1, 2, 3, 4],
      [1, 2, 9],
    ];
    const sequences = [
      [...p, 5, 6],
      [...q, 7],
      [...p, 8],
      [...p, 5, 6, 7, 8],
      [...q, 1, 2],
    ];
    const first = [4, 3, 4, 4, 3];
    // p's rows, longest first (8, 6, 5 tokens) plus 100 a micro-batch: [3] [0, 2] 8 + (3 + 2 * 3) +
    // 200 = 217 against [3, 0] [2] (3 + 2 * 5) + 5 + 200 = 218
    expect(microBatches(sequences, 2, first)).toEqual([
      { indexes: [3], shared: 0 },
      { indexes: [0, 2], shared: 3 },
      { indexes: [4, 1], shared: 2 },
    ]);
    // six of 8-13 tokens at 4: 3 + 3 (33 + 24 + 200 = 257) against 4 + 2 (260) or 2 + 4 (258)
    const six = [9, 4, 7, 5, 8, 6].map((n) => [...p, ...Array.from({ length: n }, () => 1)]);
    expect(
      microBatches(
        six,
        4,
        six.map(() => 4),
      ),
    ).toEqual([
      { indexes: [0, 4, 2], shared: 3 },
      { indexes: [5, 3, 1], shared: 3 },
    ]);
    // one long sequence among short ones runs alone: 400 + (99 + 3 * 11) + 200 = 732 against 99 + 4
    // * 301 + 100
    const prompt = Array.from({ length: 100 }, (_, t) => t);
    const spread = [300, 10, 10, 10].map((n) => [...prompt, ...Array.from({ length: n }, () => 1)]);
    expect(
      microBatches(
        spread,
        4,
        spread.map(() => 100),
      ),
    ).toEqual([
      { indexes: [0], shared: 0 },
      { indexes: [1, 2, 3], shared: 99 },
    ]);
    const byLength = lengthSortedBatches(
      sequences.map((s) => s.length),
      2,
    ).map((indexes) => ({ indexes, shared: 0 }));
    expect(microBatches(sequences, 2)).toEqual(byLength);
    expect(
      withSwitches({ sharedPrefixes: false }, () => microBatches(sequences, 2, first)),
    ).toEqual(byLength);
    expect(firstAction([0, 0, 1, 0, 1])).toBe(2);
    expect(firstAction([0, 0])).toBe(2);
    const group = golden.cases.find((c) => c.name === 'group_shared_prompt')!.batch.sequences;
    expect(
      microBatches(
        group.map((s) => s.ids),
        8,
        group.map((s) => firstAction(s.actionMask)),
      ),
    ).toEqual([
      { indexes: [2, 0, 3, 1], shared: 6 },
      { indexes: [4], shared: 0 },
    ]);
  });

  it('scoreSequences returns each sequence its own log-probs whatever the micro-batching', async () => {
    const model = await CausalLM.load(directorySource('test/fixtures/models/tiny-llama'));
    const sequences = [
      [1, 2, 3],
      [4, 5, 6, 7, 8, 9],
      [10, 11],
      [12, 13, 14, 15],
    ];
    const whole = await Promise.all(
      sequences.map((ids) => scoreSequences(model, [ids], 1, 1).then((r) => r[0]!)),
    );
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
    const model = await CausalLM.load(directorySource('test/fixtures/models/tiny-llama'), {
      training: { kind: 'full' },
    });
    const c = golden.cases[0]!;
    const optimizer = new AdamW(model.trainableVariables());
    const before = model.logits([1, 2, 3]);
    const poisoned = c.batch.sequences.map((s) => ({ ...s, advantage: Number.NaN }));
    const report = await update(model, optimizer, poisoned, null, {
      ...options(c),
      learningRate: 1e-2,
    });
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
