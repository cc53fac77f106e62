// LoRA: equal to the base at initialization; training moves only the adapters; switching them
// off gives the base back (the KL reference).
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdamW, clipByGlobalNorm } from '../../src/model/adamw.ts';
import { defaultLoraConfig } from '../../src/model/lora.ts';
import { tokenLogprobs } from '../../src/model/logprobs.ts';
import type { CausalLM } from '../../src/model/model.ts';
import { baseVariables } from '../../src/model/params.ts';
import { generate } from '../../src/model/sample.ts';
import { loadFixture, useBackend } from '../helpers/models.ts';
import { maxAbsDiff } from '../helpers/numbers.ts';

const ids = [257, 72, 105, 33, 258, 10];

/**
 * One sample -> score -> update step with a REINFORCE-style loss; returns nothing, leaks nothing.
 */
async function trainStep(model: CausalLM, optimizer: AdamW, seed: number): Promise<void> {
  const prompts = [
    [257, 72],
    [257, 105, 33],
  ];
  const { ids: generated } = await generate(model, prompts, {
    maxNewTokens: 4,
    temperature: 1,
    seed,
  });
  const sequences = prompts.map((prompt, i) => [...prompt, ...generated[i]!]);
  const variables = model.trainableVariables();
  const names = [...variables.keys()];
  const { value, grads } = tf.variableGrads(() => {
    const logprobs = tokenLogprobs(model, sequences, { temperature: 1 });
    const reference = model.withAdaptersDisabled(() =>
      tokenLogprobs(model, sequences, { temperature: 1 }),
    );
    return tf.sub(
      tf.neg(tf.mean(logprobs)),
      tf.mul(0.1, tf.mean(tf.sub(reference, logprobs))),
    ) as tf.Scalar;
  }, [...variables.values()]);
  const named: Record<string, tf.Tensor> = {};
  [...variables.values()].forEach((variable, i) => (named[names[i]!] = grads[variable.name]!));
  const clipped = clipByGlobalNorm(named, 1);
  optimizer.apply(clipped.grads);
  tf.dispose([value, clipped.norm, ...Object.values(grads), ...Object.values(clipped.grads)]);
}

describe('LoRA adapters (wasm)', () => {
  let base: CausalLM;
  let adapted: CausalLM;
  beforeAll(async () => {
    await useBackend('wasm');
    base = await loadFixture('tiny-qwen2');
    adapted = await loadFixture('tiny-qwen2', {
      kind: 'lora',
      lora: { ...defaultLoraConfig, rank: 4, seed: 7 },
    });
  });
  afterAll(() => {
    base.dispose();
    adapted.dispose();
  });

  it('at initialization equals the base model', () => {
    const expected = base.logits(ids);
    adapted.logits(ids).forEach((row, t) => expect(maxAbsDiff(row, expected[t]!)).toBe(0));
    expect(
      [...adapted.trainableVariables().keys()].some((name) =>
        name.endsWith('o_proj.lora_A.weight'),
      ),
    ).toBe(true);
    expect(adapted.trainableVariables().size).toBe(2 * 7 * adapted.config.numLayers); // A and B on every projection
  });

  it('after a step only adapter weights changed, and switching adapters off restores the base', async () => {
    const baseBefore = new Map(
      [...baseVariables(adapted.params)].map(([name, variable]) => [
        name,
        variable.dataSync().slice(),
      ]),
    );
    const adaptersBefore = new Map(
      [...adapted.trainableVariables()].map(([name, variable]) => [
        name,
        variable.dataSync().slice(),
      ]),
    );
    const optimizer = new AdamW(adapted.trainableVariables(), {
      learningRate: 1e-2,
      beta1: 0.9,
      beta2: 0.999,
      epsilon: 1e-8,
      weightDecay: 0,
    });
    await trainStep(adapted, optimizer, 1);
    for (const [name, variable] of baseVariables(adapted.params))
      expect(maxAbsDiff(variable.dataSync(), baseBefore.get(name)!), name).toBe(0);
    let changed = 0;
    for (const [name, variable] of adapted.trainableVariables())
      if (maxAbsDiff(variable.dataSync(), adaptersBefore.get(name)!) > 0) changed++;
    expect(changed).toBeGreaterThan(0); // the B factors move first (dA = 0 while B = 0)
    const expected = base.logits(ids);
    expect(maxAbsDiff(adapted.logits(ids).at(-1)!, expected.at(-1)!)).toBeGreaterThan(1e-4);
    adapted
      .withAdaptersDisabled(() => adapted.logits(ids))
      .forEach((row, t) => expect(maxAbsDiff(row, expected[t]!)).toBe(0));
    // async functions keep the adapters off until they settle
    const offLogprobs = await adapted.withAdaptersDisabled(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return adapted.logits(ids);
    });
    expect(maxAbsDiff(offLogprobs.at(-1)!, expected.at(-1)!)).toBe(0);
    expect(adapted.adaptersEnabled).toBe(true);
    optimizer.dispose();
  });

  it('tf.memory().numTensors is the same after step 1 and step 10 of sample -> score -> update', async () => {
    const optimizer = new AdamW(adapted.trainableVariables());
    await trainStep(adapted, optimizer, 1);
    const afterFirst = tf.memory().numTensors;
    for (let step = 2; step <= 10; step++) await trainStep(adapted, optimizer, step);
    expect(tf.memory().numTensors).toBe(afterFirst);
    optimizer.dispose();
  });

  it('refuses dropout and unknown target modules', async () => {
    await expect(
      loadFixture('tiny-qwen2', { kind: 'lora', lora: { ...defaultLoraConfig, dropout: 0.1 } }),
    ).rejects.toThrow(/dropout must be 0/);
    await expect(
      loadFixture('tiny-qwen2', {
        kind: 'lora',
        lora: { ...defaultLoraConfig, targetModules: ['qkv' as 'q_proj'] },
      }),
    ).rejects.toThrow(/unknown LoRA target module "qkv"/);
  });
});
