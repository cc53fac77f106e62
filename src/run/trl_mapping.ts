// A run's config as TRL's GRPOConfig and PEFT's LoraConfig keyword arguments, at the pinned
// releases. Every value is chosen so the field means in TRL what the tab's field means in the tab;
// docs/trl_export.md has the table (tab field -> TRL field -> TRL file:line at the pin), and
// test/run/trl_contract.test.ts checks the arguments of every preset against the facts recorded
// from TRL's source (test/fixtures/trl/trl_1.9.0.json).
import type { RunConfig } from './config.ts';

/**
 * The exact versions requirements.txt pins: TRL's newest release, and versions of the other
 * packages inside the ranges its pyproject.toml accepts at that tag (accelerate>=1.4.0,
 * datasets>=4.7.0, transformers>=4.56.2, peft>=0.8.0, vllm>=0.17.0,<=0.25.1).
 */
export const TRL_PINS = {
  trl: '1.9.0',
  vllm: '0.25.1',
  transformers: '5.14.1',
  peft: '0.19.1',
  accelerate: '1.14.0',
  datasets: '5.0.0',
} as const;

/** The TRL release train.py is written against. */
export const TRL_VERSION = TRL_PINS.trl;

/**
 * requirements.txt: every package pinned exactly; TRL with its `vllm` extra (the server's
 * fastapi, uvicorn, requests).
 */
export function requirementsTxt(): string {
  return `${Object.entries(TRL_PINS)
    .map(([name, version]) => `${name === 'trl' ? 'trl[vllm]' : name}==${version}`)
    .join('\n')}\n`;
}

/** The tab's AdamW constants (src/model/adamw.ts defaultAdamWConfig); TrainingArguments' defaults too. */
export const ADAM = { beta1: 0.9, beta2: 0.999, epsilon: 1e-8 } as const;

/** A hub id ("owner/name"), as the page tells one from a folder. */
const HUB_ID = /^[A-Za-z0-9][\w.-]*\/[\w.-]+$/;

/**
 * What a PEFT adapter's `base_model_name_or_path` (and train.py's model) should say for a run's
 * model: the hub id for a hub model, the folder's name for a local folder, null for the embedded
 * demo model (nothing outside the tab can load it).
 */
export function baseModelName(model: string): string | null {
  if (model === 'demo') return null;
  if (HUB_ID.test(model)) return model;
  const parts = model.split(/[\\/]+/).filter((part) => part !== '');
  return parts.at(-1) ?? model;
}

/**
 * The vLLM importance-sampling bound: TRL's own default C_max. With token_truncate each token's
 * ratio exp(trainer log-prob - vLLM log-prob) is clamped to at most this.
 */
export const IMPORTANCE_SAMPLING_CLIP_MAX = 3;

/** A GRPOConfig or LoraConfig field: its value and, where it needs one, why this value. */
export interface Mapped {
  value: unknown;
  note?: string;
}

/**
 * Prompts per step as the tab draws them: `promptsPerStep` distinct tasks, all of them when it is
 * null, and never more than there are (src/rl/task_sampler.ts takes `min(count, tasks)`).
 */
export function stepPrompts(config: RunConfig, taskCount: number): number {
  return Math.max(1, Math.min(config.promptsPerStep ?? taskCount, taskCount));
}

/** Completions per step (one generation batch): prompts x G. */
export function stepCompletions(config: RunConfig, taskCount: number): number {
  return stepPrompts(config, taskCount) * config.groupSize;
}

/** How one step's completions are cut into passes on each of `world` processes. */
export interface BatchPlan {
  /** per_device_train_batch_size: sequences per forward/backward pass. */
  perDevice: number;
  /** gradient_accumulation_steps (= TRL's derived steps_per_generation). */
  accumulation: number;
}

/**
 * The batch for a world size, as train.py computes it at start (batch_for_world): each process
 * takes completions / world sequences per step, in passes of the largest size that divides them
 * and is at most microBatchSize; one optimizer step accumulates all of them, so an optimizer step
 * is one pass over the step's batch. Throws, saying what to change, when the processes cannot
 * share the batch evenly.
 */
export function batchPlan(completions: number, microBatchSize: number, world: number): BatchPlan {
  if (!Number.isInteger(world) || world < 1) {
    throw new Error(`the world size must be a positive integer, got ${world}`);
  }
  if (completions % world !== 0) {
    const fits = divisors(completions).join(', ');
    throw new Error(
      `one step's ${completions} completions cannot be shared evenly by ${world} processes. ` +
        `Fix: launch a process count that divides ${completions} (${fits}), or change prompts per step ` +
        `or the group size in the tab so that their product is a multiple of ${world}.`,
    );
  }
  const local = completions / world;
  const perDevice = Math.max(...divisors(local).filter((d) => d <= Math.max(1, microBatchSize)));
  return { perDevice, accumulation: local / perDevice };
}

function divisors(n: number): number[] {
  const out: number[] = [];
  for (let d = 1; d <= n; d++) if (n % d === 0) out.push(d);
  return out;
}

const LOSS_TYPES: Record<RunConfig['aggregation'], Mapped> = {
  seed: {
    value: 'grpo',
    note: "the tab's 'seed': mean over each trajectory's tokens, then over trajectories",
  },
  token: {
    value: 'dapo',
    note: "the tab's 'token': one mean over every action token of the step's batch",
  },
  dr_grpo: {
    value: 'dr_grpo',
    note: "sum over action tokens / (batch x max_completion_length), the tab's constant",
  },
};

/**
 * The run's hyper-parameters as GRPOConfig keyword arguments for one process (world size 1);
 * train.py recomputes per_device_train_batch_size and gradient_accumulation_steps for the world
 * size it starts with.
 */
export function grpoMapping(config: RunConfig, taskCount: number): Record<string, Mapped> {
  const prompts = stepPrompts(config, taskCount);
  const completions = prompts * config.groupSize;
  const plan = batchPlan(completions, config.microBatchSize, 1);
  const drawn = config.promptsPerStep === null ? `every task: ${prompts}` : `${prompts}`;
  return {
    output_dir: { value: 'output' },
    max_steps: {
      value: config.steps * config.ppoEpochs,
      note: `optimizer steps: ${config.steps} rollouts x ${config.ppoEpochs} PPO epochs`,
    },
    num_generations: { value: config.groupSize, note: 'G, samples per prompt' },
    generation_batch_size: {
      value: completions,
      note: `one step's batch: prompts per step (${drawn}) x G`,
    },
    per_device_train_batch_size: {
      value: plan.perDevice,
      note: `sequences per pass, at most microBatchSize (${config.microBatchSize}); train.py recomputes it for the world size`,
    },
    gradient_accumulation_steps: {
      value: plan.accumulation,
      note: "= TRL's steps_per_generation: one optimizer step per pass over the batch (per PPO epoch)",
    },
    num_iterations: { value: config.ppoEpochs, note: 'ppoEpochs' },
    learning_rate: { value: config.lr },
    lr_scheduler_type: {
      value: 'constant',
      note: "the tab's learning rate is constant (TrainingArguments' default decays it to 0)",
    },
    warmup_steps: { value: 0 },
    weight_decay: { value: config.weightDecay, note: 'AdamW, decoupled, as the tab' },
    adam_beta1: { value: ADAM.beta1 },
    adam_beta2: { value: ADAM.beta2 },
    adam_epsilon: { value: ADAM.epsilon },
    max_grad_norm: { value: config.gradClip, note: 'global-norm clipping; 0 = none in both' },
    temperature: { value: config.temperature, note: 'sampling and the trained log-probs' },
    top_p: { value: 1, note: 'no truncation of the distribution, as the tab' },
    top_k: { value: 0 },
    repetition_penalty: { value: 1 },
    generation_kwargs: {
      value: { max_tokens: config.maxNewTokens },
      note: "the tab's per-turn limit (maxNewTokens): overrides max_tokens in both vLLM modes",
    },
    max_completion_length: {
      value: config.maxTurns * config.maxNewTokens,
      note: `maxTurns x maxNewTokens: the episode's generated-token budget, dr_grpo's constant`,
    },
    beta: {
      value: config.klCoef,
      note: 'k3 KL against the adapters-off model (full: the initial weights)',
    },
    epsilon: { value: config.clipEps },
    epsilon_high: { value: config.clipEpsHigh ?? config.clipEps },
    importance_sampling_level: { value: 'token', note: 'a ratio per token, as the tab' },
    loss_type: LOSS_TYPES[config.aggregation],
    scale_rewards: {
      value: 'group',
      note: '(r - mean) / std over the group with n - 1; TRL adds 1e-4 to std, the tab zeroes std < 1e-8',
    },
    disable_dropout: { value: true, note: 'the tab trains without dropout' },
    use_vllm: { value: true, note: "rollout_func generates each turn through TRL's vLLM engine" },
    vllm_mode: { value: 'colocate', note: 'train.py --vllm-server URL switches to server mode' },
    vllm_importance_sampling_correction: {
      value: true,
      note: 'corrects vLLM/trainer log-prob mismatch; observation tokens are masked out of it (env_mask)',
    },
    vllm_importance_sampling_mode: {
      value: 'token_truncate',
      note: 'per-token ratio clamped, no episode dropped (the tab drops none)',
    },
    vllm_importance_sampling_clip_max: { value: IMPORTANCE_SAMPLING_CLIP_MAX },
    shuffle_dataset: {
      value: true,
      note:
        config.taskSampling === 'shuffle'
          ? "taskSampling 'shuffle': a new order every epoch"
          : "a new order every epoch: TRL has no curriculum for taskSampling 'learnable'",
    },
    seed: { value: config.seed, note: 'same seed, not the same samples: another sampler' },
    report_to: { value: 'none' },
    logging_steps: { value: 1 },
  };
}

/** The run's adapters as LoraConfig keyword arguments, or null for full fine-tuning. */
export function loraMapping(config: RunConfig): Record<string, Mapped> | null {
  if (config.finetune !== 'lora') return null;
  return {
    r: { value: config.loraRank },
    lora_alpha: { value: config.loraAlpha, note: 'scale alpha / r, as the tab' },
    use_rslora: { value: false },
    lora_dropout: { value: 0 },
    target_modules: { value: [...config.loraTargets] },
    bias: { value: 'none' },
    task_type: { value: 'CAUSAL_LM' },
  };
}
