// The one RunConfig schema (docs/architecture.md §5, §9.4): a single table gives the type, the
// defaults, the validation (messages that say how to fix), the short URL keys and the UI's help.
// Defaults reproduce the reference design's run where it has a value: G = 4, 3 turns, 30 steps,
// lr 5e-5 (AdamW, torch's weight decay 0.01), ε 0.2, β 0.04, temperature 1.0, 128 new tokens per
// turn, a 10 s sandbox timeout and 500 characters of output.
//
// This file is the table and the types derived from it; checking values against it (messages,
// "did you mean", checks between fields) is config_validation.ts.
import { TOOL_NAMES } from '../env/tools.ts';
import { LORA_TARGETS } from '../model/lora_targets.ts';
import { PARSERS } from '../rl/actions.ts';
import { TASK_SAMPLINGS } from '../rl/task_sampler.ts';
import { AGGREGATIONS } from '../rl/types.ts';
import type { CustomTaskInput } from '../tasks/custom.ts';
import { TASK_SETS } from '../tasks/registry.ts';
import type { RewardWeights } from '../rl/rewards.ts';

interface Common {
  /** Short key in run links (unique). */
  key: string;
  /** One line for the UI. */
  help: string;
}
/** How one field is typed, bounded and defaulted. */
export type FieldSpec = Common &
  (
    | {
        kind: 'int' | 'number';
        default: number | null;
        min: number;
        max: number;
        nullable?: boolean;
        aboveMin?: boolean;
      }
    | { kind: 'bool'; default: boolean }
    | { kind: 'enum'; values: readonly string[]; default: string }
    | { kind: 'string'; default: string; maxLength: number }
    | { kind: 'list'; values: readonly string[]; default: readonly string[] }
    | { kind: 'weights'; default: RewardWeights }
    | { kind: 'customTasks'; default: readonly CustomTaskInput[] }
  );

/** The schema: every RunConfig field, in the order the UI shows them. */
export const CONFIG_SCHEMA = {
  model: {
    key: 'm',
    kind: 'string',
    default: 'demo',
    maxLength: 200,
    help: "'demo' (the embedded model), a hub id like HuggingFaceTB/SmolLM2-135M-Instruct, or a local folder",
  },
  tasks: {
    key: 't',
    kind: 'enum',
    values: [...TASK_SETS.keys()],
    default: 'seed',
    help: 'Task set to train on (custom tasks are added to it)',
  },
  customTasks: {
    key: 'ct',
    kind: 'customTasks',
    default: [],
    help: 'Your tasks: a prompt plus an expected output or assert tests',
  },
  steps: {
    key: 's',
    kind: 'int',
    default: 30,
    min: 1,
    max: 100_000,
    help: 'Training steps (rollout, reward, advantage, update)',
  },
  groupSize: {
    key: 'g',
    kind: 'int',
    default: 4,
    min: 2,
    max: 64,
    help: 'Samples per prompt (G); advantages compare within a group',
  },
  promptsPerStep: {
    key: 'pp',
    kind: 'int',
    nullable: true,
    default: null,
    min: 1,
    max: 1000,
    help: 'Prompts per step; empty = every task each step (the reference design)',
  },
  taskSampling: {
    key: 'ts',
    kind: 'enum',
    values: TASK_SAMPLINGS,
    default: 'shuffle',
    help: "'shuffle' visits every task in turn; 'learnable' then favours tasks whose rewards still vary (a curriculum)",
  },
  maxTurns: {
    key: 'mt',
    kind: 'int',
    default: 3,
    min: 1,
    max: 20,
    help: 'Most assistant turns per episode',
  },
  maxNewTokens: {
    key: 'mnt',
    kind: 'int',
    default: 128,
    min: 1,
    max: 4096,
    help: 'Most tokens generated per turn',
  },
  temperature: {
    key: 'temp',
    kind: 'number',
    default: 1.0,
    min: 0,
    aboveMin: true,
    max: 10,
    help: 'Sampling temperature (also used for training log-probs)',
  },
  // 0 is allowed: a run that samples, scores and computes its updates but never changes the
  // weights is the control a comparison needs (the basics lesson, src/run/lessons.ts).
  lr: {
    key: 'lr',
    kind: 'number',
    default: 5e-5,
    min: 0,
    max: 1,
    help: 'AdamW learning rate (0: the weights never change, a control run)',
  },
  weightDecay: {
    key: 'wd',
    kind: 'number',
    default: 0.01,
    min: 0,
    max: 1,
    help: 'AdamW weight decay',
  },
  gradClip: {
    key: 'gc',
    kind: 'number',
    default: 1.0,
    min: 0,
    max: 1e6,
    help: 'Clip the global gradient norm to this (0 = off)',
  },
  clipEps: {
    key: 'ce',
    kind: 'number',
    default: 0.2,
    min: 0,
    max: 0.99,
    help: 'PPO clip ε: ratio clipped to [1 − ε, 1 + ε_high]',
  },
  clipEpsHigh: {
    key: 'ceh',
    kind: 'number',
    nullable: true,
    default: null,
    min: 0,
    max: 10,
    help: 'Upper clip ε_high (DAPO clip-higher); empty = same as ε',
  },
  klCoef: {
    key: 'kl',
    kind: 'number',
    default: 0.04,
    min: 0,
    max: 100,
    help: 'β, weight of the k3 KL to the reference (adapters off)',
  },
  ppoEpochs: {
    key: 'pe',
    kind: 'int',
    default: 1,
    min: 1,
    max: 32,
    help: 'Updates per batch (more than 1 makes clipping engage)',
  },
  aggregation: {
    key: 'agg',
    kind: 'enum',
    values: AGGREGATIONS,
    default: 'seed',
    help: "Loss aggregation: 'seed' per trajectory, 'token' (DAPO), 'dr_grpo'",
  },
  microBatchSize: {
    key: 'mb',
    kind: 'int',
    default: 4,
    min: 1,
    max: 1024,
    help: 'Most trajectories per forward/backward pass (gradients accumulate)',
  },
  microBatchTokens: {
    key: 'mbt',
    kind: 'int',
    default: 4096,
    min: 16,
    max: 1_000_000,
    help: 'Most tokens per forward/backward pass (a shared prompt once, each rest padded); a longer trajectory runs alone',
  },
  activationBudgetMB: {
    key: 'ab',
    kind: 'int',
    default: 512,
    min: 1,
    max: 65_536,
    help: 'A micro-batch whose saved activations would pass this recomputes each layer in the backward pass (MB)',
  },
  finetune: {
    key: 'ft',
    kind: 'enum',
    values: ['lora', 'full'],
    default: 'lora',
    help: "'lora' adapters, or 'full' parameters (the reference design)",
  },
  loraRank: { key: 'r', kind: 'int', default: 8, min: 1, max: 256, help: 'LoRA rank r' },
  loraAlpha: {
    key: 'la',
    kind: 'number',
    default: 16,
    min: 0,
    aboveMin: true,
    max: 4096,
    help: 'LoRA alpha (scale = alpha / r)',
  },
  loraTargets: {
    key: 'lt',
    kind: 'list',
    values: LORA_TARGETS,
    default: LORA_TARGETS,
    help: 'Projections that get LoRA adapters',
  },
  rewards: {
    key: 'rw',
    kind: 'weights',
    default: { output_match: 1, tests: 1, final_answer: 0, format: 0, tool_use: 0 },
    help: 'Weight of each reward part (weighted mean of the parts a task has)',
  },
  partialCredit: {
    key: 'pc',
    kind: 'bool',
    default: false,
    help: 'tests reward = fraction of hidden tests passed, instead of all-or-nothing',
  },
  parser: {
    key: 'ps',
    kind: 'enum',
    values: [...PARSERS.keys()],
    default: 'strict',
    help: "'strict' (code block or FINAL ANSWER) or 'reference' (anything else runs as code)",
  },
  tools: {
    key: 'tools',
    kind: 'list',
    values: TOOL_NAMES,
    default: ['execute_code', 'finish'],
    help: 'Actions the agent may take: run code, search the Python docs (offline), give the answer',
  },
  timeoutMs: {
    key: 'to',
    kind: 'int',
    default: 10_000,
    min: 100,
    max: 600_000,
    help: 'Sandbox time limit per execution, ms (TIMEOUT ends the episode)',
  },
  maxOutputChars: {
    key: 'mo',
    kind: 'int',
    default: 500,
    min: 50,
    max: 100_000,
    help: 'Characters of output the model sees (the tail)',
  },
  seed: {
    key: 'seed',
    kind: 'int',
    default: 0,
    min: 0,
    max: 2 ** 31 - 1,
    help: 'Random seed: same seed and backend, same first-step samples',
  },
  backend: {
    key: 'b',
    kind: 'enum',
    values: ['auto', 'webgpu', 'wasm', 'cpu'],
    default: 'auto',
    help: "tfjs backend; 'auto' = the faster of WebGPU and WASM for this model, measured on the page",
  },
  evalEvery: {
    key: 'ee',
    kind: 'int',
    default: 10,
    min: 0,
    max: 100_000,
    help: 'Held-out pass@1 every N steps (0 = never)',
  },
  skipZeroStdGroups: {
    key: 'sz',
    kind: 'bool',
    default: false,
    help: 'Leave groups whose rewards are all equal out of the update',
  },
  async: {
    key: 'async',
    kind: 'bool',
    default: false,
    help: "Overlap rollout and update: a rollout worker samples the next step's episodes (one step stale) while the trainer updates",
  },
} as const satisfies Record<string, FieldSpec>;

type Schema = typeof CONFIG_SCHEMA;
/** A field's name. */
export type FieldName = keyof Schema;
type ValueOf<F> = F extends { kind: 'int' | 'number'; nullable: true }
  ? number | null
  : F extends { kind: 'int' | 'number' }
    ? number
    : F extends { kind: 'bool' }
      ? boolean
      : F extends { kind: 'enum'; values: readonly (infer V)[] }
        ? V
        : F extends { kind: 'string' }
          ? string
          : F extends { kind: 'list'; values: readonly (infer V)[] }
            ? V[]
            : F extends { kind: 'weights' }
              ? RewardWeights
              : F extends { kind: 'customTasks' }
                ? CustomTaskInput[]
                : never;
/** A run's configuration, derived from the schema. */
export type RunConfig = { -readonly [K in FieldName]: ValueOf<Schema[K]> };

/** Field names in schema order. */
export const FIELD_NAMES = Object.keys(CONFIG_SCHEMA) as FieldName[];

/** The run config's settings that the sandbox pool is started with. */
export type SandboxSettings = Pick<RunConfig, 'timeoutMs' | 'maxOutputChars'>;

/**
 * A config's sandbox settings (the trainer worker's init takes them, so the pool starts with them).
 */
export function sandboxSettings(config: RunConfig): SandboxSettings {
  return { timeoutMs: config.timeoutMs, maxOutputChars: config.maxOutputChars };
}

/** A fresh copy of the defaults (safe to mutate). */
export function defaultConfig(): RunConfig {
  return structuredClone(
    Object.fromEntries(FIELD_NAMES.map((name) => [name, CONFIG_SCHEMA[name].default])),
  ) as unknown as RunConfig;
}

/** The upper clip bound the loss uses (ε_high, or ε when unset). */
export function effectiveClipEpsHigh(config: RunConfig): number {
  return config.clipEpsHigh ?? config.clipEps;
}
