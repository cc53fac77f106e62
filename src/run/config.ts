// The one RunConfig schema (docs/architecture.md §5, §9.4): a single table gives the type, the
// defaults, the validation (messages that say how to fix), the short URL keys and the UI's help.
// Defaults reproduce the reference design's run where it has a value: G = 4, 3 turns, 30 steps,
// lr 5e-5 (AdamW, torch's weight decay 0.01), ε 0.2, β 0.04, temperature 1.0, 128 new tokens per
// turn, a 10 s sandbox timeout and 500 characters of output.
import { PARSERS } from '../rl/actions.ts';
import { TASK_SAMPLINGS } from '../rl/task_sampler.ts';
import { AGGREGATIONS } from '../rl/types.ts';
import { customTasksProblems, type CustomTaskInput } from '../tasks/custom.ts';
import { TASK_SETS, tasksFor } from '../tasks/registry.ts';
import { REWARDS, rewardCoverageProblems, type RewardWeights } from '../rl/rewards.ts';

/**
 * Projections LoRA can adapt; the same names as src/model/lora.ts (kept in sync by a test; that
 * file imports tfjs).
 */
export const LORA_TARGETS = [
  'q_proj',
  'k_proj',
  'v_proj',
  'o_proj',
  'gate_proj',
  'up_proj',
  'down_proj',
] as const;

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
  lr: {
    key: 'lr',
    kind: 'number',
    default: 5e-5,
    min: 0,
    aboveMin: true,
    max: 1,
    help: 'AdamW learning rate',
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
    help: 'Trajectories per forward/backward pass (gradients accumulate)',
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
    default: { output_match: 1, tests: 1, final_answer: 0, format: 0 },
    help: 'Weight of each reward part (weighted mean of the parts a task has)',
  },
  partialCredit: {
    key: 'pc',
    kind: 'bool',
    default: false,
    help: 'tests reward = fraction of hidden tests passed, instead of all-or-nothing',
  },
  parser: {
    key: 'p',
    kind: 'enum',
    values: [...PARSERS.keys()],
    default: 'strict',
    help: "'strict' (code block or FINAL ANSWER) or 'reference' (anything else runs as code)",
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
    help: "tfjs backend; 'auto' = WebGPU, else WASM, else CPU",
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

/** One validation failure. */
export interface ConfigError {
  field: string;
  message: string;
}

/** A value as a message shows it: strings and objects as JSON, the rest as written. */
const show = (value: unknown) =>
  typeof value === 'string' || (typeof value === 'object' && value !== null)
    ? JSON.stringify(value)
    : String(value);

/** Checks one field's value; returns the normalized value or a message that says how to fix it. */
export function checkField(
  name: FieldName,
  value: unknown,
): { value: unknown } | { error: string } {
  const spec: FieldSpec = CONFIG_SCHEMA[name];
  const fail = (what: string, fix: string) => ({
    error: `${name} must be ${what}, got ${show(value)}. Fix: ${fix}`,
  });
  switch (spec.kind) {
    case 'int':
    case 'number': {
      if (value === null && spec.nullable) return { value: null };
      const whole = spec.kind === 'int' ? 'a whole number' : 'a number';
      const range = `${spec.aboveMin ? 'above' : 'from'} ${spec.min} ${spec.aboveMin ? 'and at most' : 'to'} ${spec.max}`;
      const fix = `set ${name} to ${whole} ${range}, e.g. ${spec.default ?? spec.min}${spec.nullable ? ', or null for the default behaviour' : ''}.`;
      if (
        typeof value !== 'number' ||
        !Number.isFinite(value) ||
        (spec.kind === 'int' && !Number.isInteger(value))
      )
        return fail(`${whole}${spec.nullable ? ' or null' : ''}`, fix);
      if (value < spec.min || (spec.aboveMin && value === spec.min) || value > spec.max)
        return fail(`${whole} ${range}`, fix);
      return { value };
    }
    case 'bool':
      return typeof value === 'boolean'
        ? { value }
        : fail('true or false', `set ${name} to true or false.`);
    case 'enum':
      return typeof value === 'string' && spec.values.includes(value)
        ? { value }
        : fail(
            `one of ${spec.values.join(', ')}`,
            `set ${name} to one of ${spec.values.map((v) => JSON.stringify(v)).join(', ')}.`,
          );
    case 'string':
      if (
        typeof value !== 'string' ||
        value.trim() === '' ||
        value.length > spec.maxLength ||
        // biome-ignore lint/suspicious/noControlCharactersInRegex: a run's text refuses control characters
        /[\u0000-\u001f]/.test(value)
      ) {
        return fail(
          `non-empty text of at most ${spec.maxLength} characters`,
          `set ${name} to e.g. ${JSON.stringify(spec.default)}.`,
        );
      }
      return { value: value.trim() };
    case 'list': {
      const fix = `set ${name} to a non-empty list from ${spec.values.join(', ')}, without repeats.`;
      if (!Array.isArray(value) || value.length === 0) return fail('a non-empty list', fix);
      const bad = value.filter((v) => typeof v !== 'string' || !spec.values.includes(v));
      if (bad.length > 0 || new Set(value).size !== value.length)
        return fail(`a list of distinct names from ${spec.values.join(', ')}`, fix);
      return { value: [...value] };
    }
    case 'weights': {
      const names = [...REWARDS.keys()] as string[];
      const fix = `set ${name} to an object like ${JSON.stringify(spec.default)} (missing parts keep their defaults).`;
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return fail('an object of reward weights', fix);
      const merged: Record<string, unknown> = { ...spec.default, ...value };
      const unknown = Object.keys(value).filter((k) => !names.includes(k));
      if (unknown.length > 0)
        return fail(`weights for ${names.join(', ')} only (not ${unknown.join(', ')})`, fix);
      if (Object.values(merged).some((w) => typeof w !== 'number' || !(w >= 0 && w <= 100)))
        return fail('weights from 0 to 100', fix);
      if (Object.values(merged).every((w) => w === 0))
        return fail(
          'weights with at least one above 0',
          `give ${name}.output_match or ${name}.tests a weight above 0.`,
        );
      return { value: merged };
    }
    case 'customTasks': {
      const problems = customTasksProblems(value);
      if (problems.length > 0) return { error: problems.join('\n') };
      // Keep only the filled-in alternative, so equal tasks serialize (and link) identically.
      return {
        value: (value as CustomTaskInput[]).map(({ prompt, expectedOutput, tests }) =>
          expectedOutput?.trim() ? { prompt, expectedOutput } : { prompt, tests: tests! },
        ),
      };
    }
  }
}

/** Closest known field name (edit distance at most 3), for "did you mean". */
function closestField(name: string): FieldName | null {
  const distance = (a: string, b: string) => {
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let previous = row[0]!;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const current = row[j]!;
        row[j] = Math.min(
          row[j]! + 1,
          row[j - 1]! + 1,
          previous + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1),
        );
        previous = current;
      }
    }
    return row[b.length]!;
  };
  const best = FIELD_NAMES.map((field) => [field, distance(name, field)] as const).sort(
    (a, b) => a[1] - b[1],
  )[0]!;
  return best[1] <= 3 ? best[0] : null;
}

/** Checks that hold between fields (task set vs custom tasks vs reward weights). */
function crossFieldErrors(config: RunConfig): ConfigError[] {
  if (config.tasks === 'custom' && config.customTasks.length === 0) {
    return [
      {
        field: 'tasks',
        message:
          'tasks is "custom" but there are no custom tasks. Fix: add a custom task, or set tasks to "seed".',
      },
    ];
  }
  return rewardCoverageProblems(tasksFor(config.tasks, config.customTasks), config.rewards).map(
    (message) => ({ field: 'rewards', message }),
  );
}

/**
 * Validates a (partial) config object: missing fields take defaults; unknown fields and bad
 * values are errors, and each bad field falls back to its default in the returned config.
 */
export function validateConfig(input: unknown): { config: RunConfig; errors: ConfigError[] } {
  const config = defaultConfig();
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      config,
      errors: [
        {
          field: '*',
          message: `a run config must be a JSON object, got ${show(input)}. Fix: write e.g. {"groupSize": 4}.`,
        },
      ],
    };
  }
  const errors: ConfigError[] = [];
  for (const [name, value] of Object.entries(input)) {
    if (!(name in CONFIG_SCHEMA)) {
      const near = closestField(name);
      errors.push({
        field: name,
        message: `unknown field ${JSON.stringify(name)}. Fix: ${near ? `did you mean ${near}? ` : ''}remove it, or use one of ${FIELD_NAMES.join(', ')}.`,
      });
      continue;
    }
    const checked = checkField(name as FieldName, value);
    if ('error' in checked) errors.push({ field: name, message: checked.error });
    else (config as Record<string, unknown>)[name] = checked.value;
  }
  for (const error of crossFieldErrors(config)) {
    errors.push(error);
    (config as Record<string, unknown>)[error.field] = defaultConfig()[error.field as FieldName];
  }
  return { config, errors };
}

/** A valid RunConfig from a (partial) object, or an Error listing every problem and its fix. */
export function parseRunConfig(input: unknown): RunConfig {
  const { config, errors } = validateConfig(input);
  if (errors.length > 0)
    throw new Error(`invalid run config:\n${errors.map((e) => `- ${e.message}`).join('\n')}`);
  return config;
}

/** The upper clip bound the loss uses (ε_high, or ε when unset). */
export function effectiveClipEpsHigh(config: RunConfig): number {
  return config.clipEpsHigh ?? config.clipEps;
}
