// It learns: a tiny model, trained by the full pipeline (real Pyodide sandbox, real reward, the
// Trainer's rollout -> reward -> advantage -> update), raises its mean reward from a low start.
//
// The model is a random tiny Llama, first taught by SFT to answer the task with one of six
// programs (print(3), print(5), …), only one of which prints the expected 7: the initial success
// rate is about 1/6. Nothing tells GRPO which one is right except the sandbox's output, so a
// sign error, zero advantages or a wrong action mask each leave the reward where it started.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdamW, defaultAdamWConfig } from '../../src/model/adamw.ts';
import { selectBackend } from '../../src/kernels/backend.ts';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { SYSTEM_PROMPT } from '../../src/rl/actions.ts';
import { sftStep, type SftExample } from '../../src/rl/sft.ts';
import { Trainer, type TrainerSettings } from '../../src/training/trainer.ts';
import { customTask } from '../../src/tasks/custom.ts';
import { loadTokenizer } from '../../src/tokenizer/index.ts';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import type { ClosableExecutor } from '../../src/service/trainer_service.ts';

const task = customTask({ prompt: 'Print the number seven.', expectedOutput: '7' }, 0);
const CHOICES = ['3', '5', '7', '8', '9', '4'];

const settings: TrainerSettings = {
  tasks: [task],
  evalTasks: [],
  promptsPerStep: 1,
  rollout: {
    groupSize: 16,
    maxTurns: 1,
    maxNewTokens: 24,
    temperature: 1,
    parser: 'strict',
    timeoutMs: 5000,
  },
  rewards: {
    weights: { output_match: 1, tests: 0, final_answer: 0, format: 0 },
    partialCredit: false,
    timeoutMs: 5000,
  },
  skipZeroStdGroups: false,
  weightDecay: 0,
  seed: 7,
  evalEvery: 0,
  update: {
    temperature: 1,
    clipEps: 0.2,
    clipEpsHigh: 0.2,
    klCoef: 0,
    aggregation: 'seed',
    ppoEpochs: 2,
    microBatchSize: 16,
    gradClip: 1,
    learningRate: 1e-3,
  },
};

describe('GRPO learns', () => {
  let executor: ClosableExecutor;
  beforeAll(async () => {
    await selectBackend({ force: 'wasm' });
    executor = await createNodeSandboxPool({ size: 2, timeoutMs: 5000, maxOutputChars: 500 });
  });
  afterAll(async () => {
    await executor?.close();
  });

  it('raises the mean reward of a tiny model from below 0.3 to at least 0.3 higher', async () => {
    const tokenizer = await loadTokenizer(directorySource('test/fixtures/tokenizers/bytes'));
    const config = parseModelConfig({
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      vocab_size: 259,
      hidden_size: 64,
      intermediate_size: 128,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      max_position_embeddings: 512,
      rms_norm_eps: 1e-5,
      rope_theta: 10000,
      tie_word_embeddings: true,
      eos_token_id: 258,
    });
    const model = CausalLM.fromWeights(config, randomWeights(config, 3), { kind: 'full' });

    // SFT: the six programs equally often, so the model starts near 1/6 on the right one.
    const prompt = tokenizer.encodeChat(
      [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: task.prompt },
      ],
      { addGenerationPrompt: true },
    );
    const examples: SftExample[] = CHOICES.map((digit) => {
      const answer = [
        ...tokenizer.encode(`\`\`\`python\nprint(${digit})\n\`\`\``, { addSpecialTokens: false }),
        tokenizer.eosIds[0]!,
      ];
      return {
        ids: [...prompt, ...answer],
        mask: [...prompt.map(() => 0), ...answer.map(() => 1)],
      };
    });
    const sft = new AdamW(model.trainableVariables(), { ...defaultAdamWConfig, weightDecay: 0 });
    let loss = Infinity;
    for (let i = 0; i < 400 && loss > 0.09; i++)
      loss = sftStep(model, sft, examples, { learningRate: 1e-2, gradClip: 1 });
    sft.dispose();
    // The answer has ~20 tokens and one 6-way choice: ln 6 / 21 ≈ 0.085 nats/token is the floor.
    expect(loss).toBeLessThan(0.1);

    const trainer = new Trainer({ model, tokenizer, executor, reference: null }, settings);
    const rewards: number[] = [];
    const tensorCounts: number[] = [];
    for (let step = 0; step < 20; step++) {
      rewards.push((await trainer.runStep()).reward_mean);
      tensorCounts.push(tf.memory().numTensors);
    }
    // A whole Trainer step (rollout, reward, advantage, update) leaks no tensors.
    expect(tensorCounts[19]).toBe(tensorCounts[1]);
    const first = rewards.slice(0, 5).reduce((a, b) => a + b, 0) / 5;
    const last = rewards.slice(-5).reduce((a, b) => a + b, 0) / 5;
    console.log(`reward per step: ${rewards.map((r) => r.toFixed(2)).join(' ')}`);
    expect(first).toBeLessThan(0.3);
    expect(last).toBeGreaterThanOrEqual(first + 0.3);
    // Greedy evaluation (temperature 0) is deterministic: 8 samples agree, whatever the seed (at
    // the run's temperature 1 they need not: the model still gives the other programs some weight).
    const greedy = [
      await trainer.evaluate([task], 8, 11, 0),
      await trainer.evaluate([task], 8, 12, 0),
    ];
    expect([0, 1]).toContain(greedy[0]!.passAt1);
    expect(greedy[1]!.passAt1).toBe(greedy[0]!.passAt1);
    // a bad sample count or temperature is refused, not silently scored as NaN
    await expect(trainer.evaluate([task], 0)).rejects.toThrow(
      /samples must be a whole number >= 1, got 0/,
    );
    await expect(trainer.evaluate([task], Number('abc'))).rejects.toThrow(/samples must be/);
    await expect(trainer.evaluate([task], 2, 1, -1)).rejects.toThrow(/temperature must be >= 0/);
    trainer.dispose();
    model.dispose();
  }, 600_000);
});
