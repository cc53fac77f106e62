// resolveRun: a RunConfig resolved once into what the trainer, the rollout, the model loader and
// the estimates need. Expected values are worked out by hand from the presets and the schema.
import { describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { kvBytesPerToken } from '../../src/model_files/memory_estimate.ts';
import { SHAPE_PRESETS } from '../../src/model_files/shape_presets.ts';
import { LORA_TARGETS } from '../../src/model/lora_targets.ts';
import { FIELD_NAMES, type RunConfig } from '../../src/run/config.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { resolveRun } from '../../src/run/resolve.ts';
import { TINY_BYTE_MODEL } from '../helpers/tiny_trainer.ts';

const QWEN3_06B = parseModelConfig(SHAPE_PRESETS['qwen3-0.6b']!.config);
/** 200 prompt tokens + 3 turns × (128 generated + ceil(500 / 3) = 167 of output + 20 of markup). */
const DEFAULT_CONTEXT = 200 + 3 * (128 + 167 + 20);

describe('resolveRun', () => {
  it('resolves the default preset: 3 of the 35 seed+builtin tasks a step, 6 samples each', () => {
    const run = resolveRun(presetConfig('default'));
    const { trainer } = run;
    expect(trainer.tasks).toHaveLength(3 + 32);
    expect(trainer.evalTasks).toHaveLength(12); // builtin-eval
    expect(trainer.promptsPerStep).toBe(3);
    expect(trainer.taskSampling).toBe('shuffle');
    expect(trainer.rollout).toEqual({
      groupSize: 6,
      maxTurns: 3,
      maxNewTokens: 128,
      temperature: 0.7,
      parser: 'strict',
      timeoutMs: 2000,
      tools: ['execute_code', 'finish'],
    });
    expect(trainer.rewards).toEqual({
      weights: { output_match: 1, tests: 1, final_answer: 0, format: 0, tool_use: 0 },
      partialCredit: false,
      timeoutMs: 2000,
    });
    expect(trainer.update).toEqual({
      temperature: 0.7, // the same temperature samples and trains
      clipEps: 0.2,
      clipEpsHigh: 0.2, // unset: ε
      klCoef: 0.02,
      aggregation: 'seed',
      ppoEpochs: 2,
      microBatchSize: 4,
      microBatchTokens: 4096,
      activationBudgetMB: 512,
      gradClip: 1,
      learningRate: 2e-3,
    });
    expect([trainer.weightDecay, trainer.seed, trainer.evalEvery, trainer.finalStep]).toEqual([
      0.01, 1, 10, 30,
    ]);
    expect(trainer.skipZeroStdGroups).toBe(false);
    expect(run.training).toEqual({
      kind: 'lora',
      lora: { rank: 8, alpha: 16, dropout: 0, targetModules: [...LORA_TARGETS], seed: 1 },
    });
    expect(run.sandbox).toEqual({ timeoutMs: 2000, maxOutputChars: 500 });
  });

  it('resolves the search preset: its 24 tasks, search-eval held out, the search tool on', () => {
    const run = resolveRun(presetConfig('search'));
    const { trainer } = run;
    expect(trainer.tasks).toHaveLength(24);
    expect(trainer.tasks.every((t) => t.id.startsWith('search/'))).toBe(true);
    expect(trainer.evalTasks).toHaveLength(10);
    expect(trainer.evalTasks.some((t) => trainer.tasks.includes(t))).toBe(false);
    // the config's 3 prompts a step, not the set's 24
    expect(trainer.promptsPerStep).toBe(3);
    expect(trainer.rollout.tools).toEqual(['execute_code', 'search', 'finish']);
    expect(trainer.finalStep).toBe(30);
    expect([run.stepShape.prompts, run.stepShape.sequences, run.memoryShape.sequences]).toEqual([
      3, 18, 18,
    ]);
    // Qwen3-0.6B's KV cache holds 8 of its 18 episodes (worked out below for the default run,
    // whose episodes are as long)
    expect(resolveRun(presetConfig('search'), QWEN3_06B).trainer.rollout.maxSequences).toBe(8);
  });

  it('takes the last step from the config', () => {
    expect(resolveRun(presetConfig('default', { steps: 7 })).trainer.finalStep).toBe(7);
    expect(resolveRun(presetConfig('reference')).trainer.finalStep).toBe(30);
  });

  it('sizes the default run for the estimates: 18 episodes of 1,145 tokens', () => {
    const run = resolveRun(presetConfig('default'));
    expect(DEFAULT_CONTEXT).toBe(1145);
    expect(run.memoryShape).toEqual({
      sequences: 18,
      contextTokens: 1145,
      microBatch: 4,
      microBatchTokens: 4096,
      activationBudgetBytes: 512 * 2 ** 20,
      loraRank: 8,
      loraTargets: [...LORA_TARGETS],
      full: false,
    });
    expect(run.stepShape).toEqual({
      sequences: 18,
      contextTokens: 1145,
      prompts: 3,
      turns: 3,
      tokensPerTurn: 128,
      promptTokens: 200,
      observationTokens: 167 + 20,
      ppoEpochs: 2,
      microBatch: 4,
      microBatchTokens: 4096,
      full: false,
      reference: true,
      activationBudgetBytes: 512 * 2 ** 20,
    });
  });

  it('takes every task of the set each step when promptsPerStep is empty (the reference run)', () => {
    const run = resolveRun(presetConfig('reference'));
    expect(run.trainer.tasks.map((t) => t.id)).toEqual([
      'seed/fibonacci',
      'seed/palindrome',
      'seed/sort',
    ]);
    expect(run.trainer.promptsPerStep).toBe(3);
    expect(run.trainer.rollout.groupSize).toBe(4);
    expect(run.trainer.rollout.temperature).toBe(1);
    expect(run.trainer.update.temperature).toBe(1);
    expect(run.stepShape.sequences).toBe(12);
    expect(run.memoryShape.sequences).toBe(12);
    // 200 prompt tokens + 3 turns × (128 generated + ceil(500 / 3) = 167 of output + 20 of markup)
    expect(run.memoryShape.contextTokens).toBe(200 + 3 * (128 + 167 + 20));
    const fewer = resolveRun(presetConfig('reference', { promptsPerStep: 2, finetune: 'full' }));
    expect([fewer.trainer.promptsPerStep, fewer.memoryShape.sequences]).toEqual([2, 8]);
    expect(fewer.memoryShape.full).toBe(true);
  });

  it('adds custom tasks to the set; a custom set evaluates its own tasks', () => {
    const customTasks = [
      { prompt: 'Print 7.', expectedOutput: '7' },
      { prompt: 'Print 8.', expectedOutput: '8' },
    ];
    const seedPlus = resolveRun(presetConfig('reference', { customTasks }));
    expect(seedPlus.trainer.tasks.map((t) => t.id)).toEqual([
      'seed/fibonacci',
      'seed/palindrome',
      'seed/sort',
      'custom/1',
      'custom/2',
    ]);
    expect(seedPlus.trainer.evalTasks.map((t) => t.id)).toEqual([
      'seed/fibonacci',
      'seed/palindrome',
      'seed/sort',
    ]);
    expect(seedPlus.trainer.promptsPerStep).toBe(5);
    expect(seedPlus.stepShape.sequences).toBe(5 * 4);
    const custom = resolveRun(presetConfig('reference', { tasks: 'custom', customTasks }));
    expect(custom.trainer.tasks.map((t) => t.id)).toEqual(['custom/1', 'custom/2']);
    expect(custom.trainer.evalTasks.map((t) => t.id)).toEqual(['custom/1', 'custom/2']);
    expect(custom.trainer.promptsPerStep).toBe(2);
    expect(custom.memoryShape.sequences).toBe(2 * 4);
    // with promptsPerStep set, the config's number, whatever the set's size
    const one = resolveRun(
      presetConfig('reference', { tasks: 'custom', customTasks, promptsPerStep: 1 }),
    );
    expect([one.trainer.promptsPerStep, one.stepShape.sequences]).toEqual([1, 4]);
  });

  it('sizes a custom set with no tasks yet as one prompt, and gives the trainer none', () => {
    // the config form edits such a config (validation reports it); the Trainer refuses no tasks
    const config: RunConfig = { ...presetConfig('reference'), tasks: 'custom', customTasks: [] };
    const run = resolveRun(config);
    expect(run.trainer.tasks).toEqual([]);
    expect(run.trainer.evalTasks).toEqual([]);
    expect(run.stepShape.prompts).toBe(1);
    expect(run.memoryShape.sequences).toBe(4);
  });

  it('caps the episodes under way where the KV cache would pass 2 GiB (Qwen3-0.6B)', () => {
    const config = presetConfig('default');
    // 28 layers × 8 kv heads × 128 × keys and values × float32 = 229,376 bytes a token; an episode
    // of 1,145 tokens holds 262,635,520 bytes, and 2 GiB / that = 8.18: 8 of the 18 at a time
    expect(kvBytesPerToken(QWEN3_06B)).toBe(229_376);
    expect(Math.floor(2 ** 31 / (229_376 * DEFAULT_CONTEXT))).toBe(8);
    expect(resolveRun(config, QWEN3_06B).trainer.rollout.maxSequences).toBe(8);
    // without the model's facts, or where every episode fits, no cap
    expect(resolveRun(config).trainer.rollout).not.toHaveProperty('maxSequences');
    expect(resolveRun(config, TINY_BYTE_MODEL).trainer.rollout).not.toHaveProperty('maxSequences');
    // 1 prompt × 4 samples = 4 episodes: 4 ≤ 8, all of them
    const small = presetConfig('default', { promptsPerStep: 1, groupSize: 4 });
    expect(resolveRun(small, QWEN3_06B).trainer.rollout).not.toHaveProperty('maxSequences');
    // the rest of the run is the same either way
    const { maxSequences: _, ...rollout } = resolveRun(config, QWEN3_06B).trainer.rollout;
    expect(rollout).toEqual(resolveRun(config).trainer.rollout);
  });

  it('resolves full fine-tuning without LoRA, and no reference pass without KL', () => {
    const run = resolveRun(presetConfig('reference', { finetune: 'full', klCoef: 0 }));
    expect(run.training).toEqual({ kind: 'full' });
    expect(run.memoryShape.full).toBe(true);
    expect(run.stepShape.full).toBe(true);
    expect(run.stepShape.reference).toBe(false);
    expect(run.trainer.update.klCoef).toBe(0);
  });

  it('is pure: the config is left as it was, and the same config resolves the same', () => {
    const config = presetConfig('search');
    const before = structuredClone(config);
    const first = resolveRun(config, QWEN3_06B);
    expect(config).toEqual(before);
    expect(resolveRun(config, QWEN3_06B)).toEqual(first);
  });

  it('reads every config field but the model, the backend and async (which the session reads)', () => {
    const base = presetConfig('default');
    // one other valid value for each field the run resolves
    const changed: Omit<RunConfig, 'model' | 'backend' | 'async'> = {
      tasks: 'seed',
      customTasks: [{ prompt: 'Print 7.', expectedOutput: '7' }],
      steps: 7,
      groupSize: 4,
      promptsPerStep: 2,
      taskSampling: 'learnable',
      maxTurns: 2,
      maxNewTokens: 64,
      temperature: 1,
      lr: 1e-3,
      weightDecay: 0.1,
      gradClip: 0.5,
      clipEps: 0.1,
      clipEpsHigh: 0.28,
      klCoef: 0,
      ppoEpochs: 1,
      aggregation: 'token',
      microBatchSize: 2,
      microBatchTokens: 2048,
      activationBudgetMB: 256,
      finetune: 'full',
      loraRank: 4,
      loraAlpha: 8,
      loraTargets: ['q_proj', 'v_proj'],
      rewards: { ...base.rewards, format: 0.1 },
      partialCredit: true,
      parser: 'reference',
      tools: ['execute_code', 'search', 'finish'],
      timeoutMs: 3000,
      maxOutputChars: 900,
      seed: 2,
      evalEvery: 5,
      skipZeroStdGroups: true,
    };
    expect(Object.keys(changed).sort()).toEqual(
      FIELD_NAMES.filter((f) => !['model', 'backend', 'async'].includes(f)).sort(),
    );
    const resolved = resolveRun(base);
    for (const [field, value] of Object.entries(changed)) {
      const other = resolveRun(presetConfig('default', { [field]: value }));
      expect(other, field).not.toEqual(resolved);
    }
    for (const field of ['model', 'backend', 'async'] as const) {
      const value = { model: 'other/model', backend: 'wasm', async: true }[field];
      expect(resolveRun({ ...base, [field]: value }), field).toEqual(resolved);
    }
  });
});
