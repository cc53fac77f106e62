// The SFT step's loss weighting: the default divides by the batch's learned tokens; a fixed
// normalizer makes every token weigh the same across batches. Checked through the update itself,
// with an AdamW whose epsilon dwarfs sqrt(v), so its first step is lr * g / epsilon: linear in g.
import { beforeAll, describe, expect, it } from 'vitest';
import { AdamW } from '../../src/model/adamw.ts';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { CausalLM } from '../../src/model/model.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { sftStep, type SftExample } from '../../src/rl/sft.ts';
import { meanLearnedTokens } from '../../scripts/demo/sft_loop.ts';
import { useBackend } from '../helpers/models.ts';

const config = parseModelConfig({
  model_type: 'llama',
  vocab_size: 40,
  hidden_size: 16,
  intermediate_size: 32,
  num_hidden_layers: 1,
  num_attention_heads: 2,
  num_key_value_heads: 2,
  max_position_embeddings: 64,
  tie_word_embeddings: true,
});
// 3 + 1 learned (predicted) tokens: mask[0] is never predicted
const batch: SftExample[] = [
  { ids: [1, 2, 3, 4, 5], mask: [0, 0, 1, 1, 1] },
  { ids: [6, 7, 8], mask: [0, 0, 1] },
];

/** The change of every weight after one step with `normalizer`, and the step's reported loss. */
function stepDelta(normalizer?: number): { delta: Float32Array; loss: number } {
  const model = CausalLM.fromWeights(config, randomWeights(config, 2), { kind: 'full' });
  const variables = [...model.trainableVariables().values()];
  const before = variables.map((v) => v.dataSync().slice());
  const optimizer = new AdamW(model.trainableVariables(), {
    learningRate: 1,
    beta1: 0.9,
    beta2: 0.999,
    epsilon: 1e4,
    weightDecay: 0,
  });
  const loss = sftStep(model, optimizer, batch, {
    learningRate: 1,
    ...(normalizer ? { normalizer } : {}),
  });
  const delta = Float32Array.from(
    variables.flatMap((v, i) => Array.from(v.dataSync(), (x, j) => x - before[i]![j]!)),
  );
  optimizer.dispose();
  model.dispose();
  return { delta, loss };
}

describe('sftStep weighting', () => {
  beforeAll(async () => {
    await useBackend('wasm');
  });

  it('a fixed normalizer scales the gradient by count / normalizer and leaves the reported per-token loss alone', () => {
    const byBatch = stepDelta();
    const same = stepDelta(4); // the batch's own count of learned tokens
    const doubled = stepDelta(8);
    expect(same.loss).toBeCloseTo(byBatch.loss, 5);
    expect(doubled.loss).toBeCloseTo(byBatch.loss, 5);
    const norm = (x: Float32Array) => Math.sqrt(x.reduce((s, v) => s + v * v, 0));
    expect(norm(byBatch.delta)).toBeGreaterThan(0);
    expect(norm(same.delta) / norm(byBatch.delta)).toBeCloseTo(1, 3);
    expect(norm(doubled.delta) / norm(byBatch.delta)).toBeCloseTo(0.5, 3);
    // the demo recipe's 'corpus' weighting divides by the mean learned tokens per batch
    expect(meanLearnedTokens(batch, 2)).toBe(4);
    expect(meanLearnedTokens(batch, 8)).toBe(16);
  });

  it('refuses a normalizer that is not positive', () => {
    const model = CausalLM.fromWeights(config, randomWeights(config, 2), { kind: 'full' });
    const optimizer = new AdamW(model.trainableVariables());
    expect(() => sftStep(model, optimizer, batch, { learningRate: 1, normalizer: 0 })).toThrow(
      /normalizer must be positive/,
    );
    optimizer.dispose();
    model.dispose();
  });
});
