// RunConfig (the user's words, src/run/config.ts) -> what the Trainer and the model loader need.
import type { LoraConfig } from '../model/lora.ts';
import type { TrainingMode } from '../model/model.ts';
import { effectiveClipEpsHigh, type RunConfig } from '../run/config.ts';
import { evalTasksFor, tasksFor } from '../tasks/registry.ts';
import type { TrainerSettings } from '../training/trainer.ts';

/** The trainer's settings for a validated config. */
export function trainerSettings(config: RunConfig): TrainerSettings {
  const tasks = tasksFor(config.tasks, config.customTasks);
  return {
    tasks,
    evalTasks: evalTasksFor(config.tasks, config.customTasks),
    promptsPerStep: config.promptsPerStep ?? tasks.length,
    taskSampling: config.taskSampling,
    groupSize: config.groupSize,
    maxTurns: config.maxTurns,
    maxNewTokens: config.maxNewTokens,
    temperature: config.temperature,
    parser: config.parser,
    timeoutMs: config.timeoutMs,
    tools: config.tools,
    rewards: {
      weights: config.rewards,
      partialCredit: config.partialCredit,
      timeoutMs: config.timeoutMs,
    },
    skipZeroStdGroups: config.skipZeroStdGroups,
    update: {
      temperature: config.temperature,
      clipEps: config.clipEps,
      clipEpsHigh: effectiveClipEpsHigh(config),
      klCoef: config.klCoef,
      aggregation: config.aggregation,
      ppoEpochs: config.ppoEpochs,
      microBatchSize: config.microBatchSize,
      microBatchTokens: config.microBatchTokens,
      activationBudgetMB: config.activationBudgetMB,
      gradClip: config.gradClip,
      learningRate: config.lr,
    },
    weightDecay: config.weightDecay,
    seed: config.seed,
    evalEvery: config.evalEvery,
  };
}

/** How the model's weights train under this config. */
export function trainingMode(config: RunConfig): TrainingMode {
  if (config.finetune === 'full') return { kind: 'full' };
  const lora: LoraConfig = {
    rank: config.loraRank,
    alpha: config.loraAlpha,
    dropout: 0,
    targetModules: [...config.loraTargets],
    seed: config.seed,
  };
  return { kind: 'lora', lora };
}
