// Data-parallel SFT (scripts/demo/parallel_sft.ts): the gradients of a batch's parts, each over the
// whole batch's divisor, sum to the whole batch's gradient; a step with a worker thread does
// exactly (bit for bit) what the same sum computed in one thread does; tensors do not pile up;
// failures surface as errors.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { AdamW } from '../../src/model/adamw.ts';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { CausalLM } from '../../src/model/model.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { Rng } from '../../src/model/rng.ts';
import {
  applySftGradients,
  learnedTokens,
  sftGradients,
  sftStep,
  type SftExample,
} from '../../src/rl/sft.ts';
import { dealRows, ParallelSft } from '../../scripts/demo/parallel_sft.ts';
import { useBackend } from '../helpers/models.ts';

const config = parseModelConfig({
  model_type: 'llama',
  vocab_size: 50,
  hidden_size: 32,
  intermediate_size: 48,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  max_position_embeddings: 64,
  tie_word_embeddings: true,
});

function randomBatch(seed: number, rows: number): SftExample[] {
  const rng = new Rng(seed);
  return Array.from({ length: rows }, () => {
    const n = 6 + Math.floor(rng.uniform() * 20);
    const ids = Array.from({ length: n }, () => Math.floor(rng.uniform() * 50));
    return { ids, mask: ids.map((_, i) => (i >= 3 ? 1 : 0)) };
  });
}

const adamw = (model: CausalLM) =>
  new AdamW(model.trainableVariables(), {
    learningRate: 1e-2,
    beta1: 0.9,
    beta2: 0.95,
    epsilon: 1e-8,
    weightDecay: 0.01,
  });
const weights = (model: CausalLM) =>
  [...model.trainableVariables().values()].map((v) => v.dataSync().slice() as Float32Array);

describe('data-parallel SFT', () => {
  beforeAll(async () => {
    await useBackend('wasm');
  });

  it('deals rows round-robin, so a length-sorted batch splits into parts of like lengths', () => {
    expect(dealRows([1, 2, 3, 4, 5, 6, 7], 2)).toEqual([
      [1, 3, 5, 7],
      [2, 4, 6],
    ]);
    expect(dealRows([1, 2], 3)).toEqual([[1], [2], []]);
  });

  it("sums the parts' gradients (each over the whole batch's divisor) to the whole batch's gradient", () => {
    const model = CausalLM.fromWeights(config, randomWeights(config, 4), { kind: 'full' });
    const batch = randomBatch(1, 7);
    const divisor = learnedTokens(batch);
    const whole = sftGradients(model, batch, divisor);
    const parts = dealRows(batch, 2).map((rows) => sftGradients(model, rows, divisor));
    expect(parts[0]!.value + parts[1]!.value).toBeCloseTo(whole.value, 5);
    let worst = 0;
    for (const [name, g] of Object.entries(whole.grads)) {
      const sum = tf.add(parts[0]!.grads[name]!, parts[1]!.grads[name]!);
      const scale = tf.max(tf.abs(g)).dataSync()[0]!;
      worst = Math.max(worst, tf.max(tf.abs(tf.sub(sum, g))).dataSync()[0]! / scale);
      tf.dispose([sum]);
    }
    expect(worst).toBeLessThan(1e-5);
    expect(worst).toBeGreaterThanOrEqual(0);
    [whole, ...parts].forEach((r) => tf.dispose(Object.values(r.grads)));
    model.dispose();
  });

  it('a step with a worker thread equals the same sum in one thread, bit for bit, and keeps tensor counts flat', async () => {
    const parallel = await ParallelSft.start(2, config, 'wasm');
    try {
      const viaWorker = CausalLM.fromWeights(config, randomWeights(config, 5), { kind: 'full' });
      const inline = CausalLM.fromWeights(config, randomWeights(config, 5), { kind: 'full' });
      const optA = adamw(viaWorker);
      const optB = adamw(inline);
      const counts: number[] = [];
      for (let step = 0; step < 3; step++) {
        const batch = randomBatch(10 + step, 8);
        const options = { learningRate: 1e-2, gradClip: 1 };
        const loss = await parallel.step(viaWorker, optA, batch, options);
        // the same computation by hand: main thread's rows first, then the worker's
        const divisor = learnedTokens(batch);
        const [mine, theirs] = dealRows(batch, 2).map((rows) =>
          sftGradients(inline, rows, divisor),
        );
        const summed: Record<string, tf.Tensor> = {};
        for (const name of Object.keys(mine!.grads))
          summed[name] = tf.add(mine!.grads[name]!, theirs!.grads[name]!);
        tf.dispose([...Object.values(mine!.grads), ...Object.values(theirs!.grads)]);
        applySftGradients(optB, summed, options);
        expect(loss).toBeCloseTo(mine!.value + theirs!.value, 6); // no normalizer: the divisor is the count
        counts.push(tf.memory().numTensors);
      }
      const a = weights(viaWorker);
      const b = weights(inline);
      a.forEach((w, i) => expect(Array.from(w)).toEqual(Array.from(b[i]!)));
      expect(counts[2]).toBe(counts[1]);
      // and it moved the weights: a step that did nothing would also "match"
      const fresh = CausalLM.fromWeights(config, randomWeights(config, 5), { kind: 'full' });
      expect(weights(fresh)[0]!.some((x, j) => x !== a[0]![j])).toBe(true);
      [viaWorker, inline, fresh].forEach((m) => m.dispose());
      optA.dispose();
      optB.dispose();
    } finally {
      await parallel.close();
    }
  }, 60_000);

  it('one thread is sftStep itself; an unusable backend or a closed worker is a clear error', async () => {
    const one = await ParallelSft.start(1, config, 'wasm');
    const a = CausalLM.fromWeights(config, randomWeights(config, 6), { kind: 'full' });
    const b = CausalLM.fromWeights(config, randomWeights(config, 6), { kind: 'full' });
    const [optA, optB] = [adamw(a), adamw(b)];
    const batch = randomBatch(3, 4);
    expect(await one.step(a, optA, batch, { learningRate: 1e-2 })).toBe(
      sftStep(b, optB, batch, { learningRate: 1e-2 }),
    );
    expect(weights(a)).toEqual(weights(b));
    await expect(ParallelSft.start(2, config, 'no-such-backend')).rejects.toThrow(
      /SFT worker 1 failed to start: .*no-such-backend/,
    );
    await expect(ParallelSft.start(0, config, 'wasm')).rejects.toThrow(/positive integer/);
    const two = await ParallelSft.start(2, config, 'wasm');
    await two.close();
    await expect(two.step(a, optA, batch, { learningRate: 1e-2 })).rejects.toThrow(
      /SFT worker 1 was closed/,
    );
    [a, b].forEach((m) => m.dispose());
    [optA, optB].forEach((o) => o.dispose());
  }, 60_000);
});
