// A run's size, for what is estimated before a model loads: the memory
// (src/model_files/memory_estimate.ts RunShape) and the seconds per step
// (src/model_files/step_cost.ts StepShape). resolveRun (resolve.ts) calls these with the prompts per
// step it worked out, so the page, `cli train` and the Trainer size a run the same way.
import type { RunShape } from '../model_files/memory_estimate.ts';
import type { StepShape } from '../model_files/step_cost.ts';
import type { RunConfig } from './config.ts';

/** Prompt and system text with the chat template, in tokens (the seed tasks' are ~150-200). */
const PROMPT_TOKENS = 200;
/** Chat markup around each turn (end of turn, the user turn's header), in tokens. */
const MARKUP_TOKENS = 20;

/** The run's shape for the memory estimate, which adds the model's bytes per parameter. */
export type MemoryShape = Omit<RunShape, 'fileBytesPerParameter'>;

/** An observation in tokens: ~3 characters per token of the output's tail, at most ~200. */
function observationTokens(config: RunConfig): number {
  return Math.min(200, Math.ceil(config.maxOutputChars / 3));
}

/** A sequence at its longest: each turn adds its generation, an observation and chat markup. */
function contextTokens(config: RunConfig): number {
  return (
    PROMPT_TOKENS +
    config.maxTurns * (config.maxNewTokens + observationTokens(config) + MARKUP_TOKENS)
  );
}

/** The run's size for the memory estimate: every live episode of a step decodes together. */
export function memoryShape(config: RunConfig, promptsPerStep: number): MemoryShape {
  return {
    sequences: config.groupSize * promptsPerStep,
    contextTokens: contextTokens(config),
    microBatch: config.microBatchSize,
    microBatchTokens: config.microBatchTokens,
    activationBudgetBytes: config.activationBudgetMB * 2 ** 20,
    loraRank: config.loraRank,
    loraTargets: config.loraTargets,
    full: config.finetune === 'full',
  };
}

/** The run's shape for the cost of a step (every turn at its token limit). */
export function stepShape(config: RunConfig, promptsPerStep: number): StepShape {
  return {
    sequences: config.groupSize * promptsPerStep,
    contextTokens: contextTokens(config),
    prompts: promptsPerStep,
    turns: config.maxTurns,
    tokensPerTurn: config.maxNewTokens,
    promptTokens: PROMPT_TOKENS,
    observationTokens: observationTokens(config) + MARKUP_TOKENS,
    ppoEpochs: config.ppoEpochs,
    microBatch: config.microBatchSize,
    microBatchTokens: config.microBatchTokens,
    full: config.finetune === 'full',
    reference: config.klCoef > 0,
    activationBudgetBytes: config.activationBudgetMB * 2 ** 20,
  };
}
