// A RunConfig (the user's words, config.ts) resolved once into what each part of a run needs: the
// Trainer's settings with the episode loop's options inside them, how the weights train, what the
// sandbox enforces, the shapes the estimates read, and the limits (the last step, the episodes
// under way at once). The one mapping from config fields to those parts: nothing is copied or
// patched after it. What depends on the model (its KV cache per token) comes in as an argument,
// so resolving stays pure.
import type { LoraConfig } from '../model/lora.ts';
import type { TrainingMode } from '../model/model.ts';
import type { ModelConfig } from '../model_files/hf_config.ts';
import { rolloutSequences } from '../model_files/memory_estimate.ts';
import type { StepShape } from '../model_files/step_cost.ts';
import { evalTasksFor, tasksFor } from '../tasks/registry.ts';
import type { Task } from '../tasks/task.ts';
import type { TrainerSettings } from '../training/trainer.ts';
import {
  effectiveClipEpsHigh,
  sandboxSettings,
  type RunConfig,
  type SandboxSettings,
} from './config.ts';
import { memoryShape, stepShape, type MemoryShape } from './run_shape.ts';

/** A run as its parts need it. */
export interface ResolvedRun {
  /**
   * The Trainer's settings: tasks, prompts per step, the episode loop's options (`rollout`, with
   * `maxSequences` where the model's KV cache calls for it), rewards, the update, and the last step.
   */
  trainer: TrainerSettings;
  /** How the model's weights train (LoRA or every weight). */
  training: TrainingMode;
  /** What the sandbox enforces on each execution. */
  sandbox: SandboxSettings;
  /** The step's size for the memory estimate (memory_estimate.ts estimateMemory). */
  memoryShape: MemoryShape;
  /** The step's size for its cost (step_cost.ts estimateStepSeconds). */
  stepShape: StepShape;
}

/**
 * Training and held-out tasks; none for a custom set with no tasks yet (config validation reports
 * that, the estimates size it as one prompt, and the Trainer refuses to start without tasks).
 */
function runTasks(config: RunConfig): { tasks: Task[]; evalTasks: Task[] } {
  if (config.tasks === 'custom' && config.customTasks.length === 0)
    return { tasks: [], evalTasks: [] };
  return {
    tasks: tasksFor(config.tasks, config.customTasks),
    evalTasks: evalTasksFor(config.tasks, config.customTasks),
  };
}

function trainingMode(config: RunConfig): TrainingMode {
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

/**
 * Resolves a validated config. Prompts per step are the config's, or every task of the set when it
 * says null. Given the model's config, a model whose KV cache at the step's size would pass the
 * budget gets `trainer.rollout.maxSequences`, the episodes it keeps under way at once
 * (memory_estimate.ts rolloutSequences, which the memory estimate counts too).
 */
export function resolveRun(config: RunConfig, model?: ModelConfig): ResolvedRun {
  const { tasks, evalTasks } = runTasks(config);
  const promptsPerStep = config.promptsPerStep ?? Math.max(1, tasks.length);
  const memory = memoryShape(config, promptsPerStep);
  const live = model
    ? rolloutSequences(model, memory.sequences, memory.contextTokens)
    : memory.sequences;
  return {
    trainer: {
      tasks,
      evalTasks,
      promptsPerStep,
      taskSampling: config.taskSampling,
      rollout: {
        groupSize: config.groupSize,
        maxTurns: config.maxTurns,
        maxNewTokens: config.maxNewTokens,
        temperature: config.temperature,
        parser: config.parser,
        timeoutMs: config.timeoutMs,
        tools: config.tools,
        ...(live < memory.sequences ? { maxSequences: live } : {}),
      },
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
      finalStep: config.steps,
    },
    training: trainingMode(config),
    sandbox: sandboxSettings(config),
    memoryShape: memory,
    stepShape: stepShape(config, promptsPerStep),
  };
}
