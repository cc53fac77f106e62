// The checks of test/run/trl_contract.test.ts: one function per rule and meaning recorded in
// test/fixtures/trl/trl_1.9.0.json (facts read from TRL's source at the pin). A rule fails when
// TRL would refuse the arguments; a meaning fails when TRL would accept them but train something
// other than the tab's run.
import type { RunConfig } from '../../src/run/config.ts';
import { stepCompletions } from '../../src/run/trl_mapping.ts';
import FACTS from '../fixtures/trl/trl_1.9.0.json' with { type: 'json' };

export { FACTS };

/** GRPO_ARGS, LORA_ARGS and train.py's source as the export wrote them, for one world size. */
export interface Exported {
  args: Record<string, unknown>;
  lora: Record<string, unknown> | null;
  microBatchSize: number;
  trainPy: string;
}

/** What the checks compare with: the tab's run. */
export interface Context {
  config: RunConfig;
  taskCount: number;
  world: number;
}

type Check = (e: Exported, c: Context) => boolean;

const num = (v: unknown): number => (typeof v === 'number' ? v : Number.NaN);
const set = (v: unknown): boolean => v !== undefined && v !== null;
const oneOf = (name: keyof typeof FACTS.enums, value: unknown): boolean =>
  (FACTS.enums[name].values as unknown[]).includes(value);
const fields = new Set([
  ...FACTS.grpo_config_fields,
  ...FACTS.base_config_fields,
  ...FACTS.training_arguments_fields,
]);
const loraFields = new Set(FACTS.lora_config_fields);

/** GRPOConfig.__post_init__'s steps_per_generation when generation_batch_size is given. */
function stepsPerGeneration(e: Exported, world: number): number {
  return num(e.args.generation_batch_size) / (num(e.args.per_device_train_batch_size) * world);
}

/** The rules TRL (and TrainingArguments, PEFT) enforce: breaking one is an error at the pin. */
export const RULES: Record<string, Check> = {
  known_field: (e) => Object.keys(e.args).every((k) => fields.has(k)),
  generation_batch_xor_steps: (e) =>
    !(set(e.args.generation_batch_size) && set(e.args.steps_per_generation)),
  generation_batch_divisible_by_global_batch: (e, c) =>
    !set(e.args.generation_batch_size) ||
    num(e.args.generation_batch_size) % (num(e.args.per_device_train_batch_size) * c.world) === 0,
  generation_batch_divisible_by_num_generations: (e) =>
    num(e.args.generation_batch_size) % num(e.args.num_generations) === 0,
  num_generations_at_least_2: (e) => num(e.args.num_generations) >= 2,
  is_clip_min_below_max: (e) =>
    !set(e.args.vllm_importance_sampling_clip_min) ||
    !set(e.args.vllm_importance_sampling_clip_max) ||
    num(e.args.vllm_importance_sampling_clip_min) < num(e.args.vllm_importance_sampling_clip_max),
  is_truncate_needs_bound: (e) =>
    e.args.vllm_importance_sampling_correction === false ||
    !String(e.args.vllm_importance_sampling_mode).endsWith('_truncate') ||
    set(e.args.vllm_importance_sampling_clip_min) ||
    // TRL's default C_max is 3.0 when the key is absent; null switches it off
    e.args.vllm_importance_sampling_clip_max !== null,
  no_auto_find_batch_size: (e) => e.args.auto_find_batch_size !== true,
  loss_type_known: (e) => oneOf('loss_type', e.args.loss_type ?? 'dapo'),
  scale_rewards_known: (e) => oneOf('scale_rewards', e.args.scale_rewards ?? 'group'),
  vllm_mode_known: (e) => oneOf('vllm_mode', e.args.vllm_mode ?? 'colocate'),
  is_mode_known: (e) =>
    oneOf('vllm_importance_sampling_mode', e.args.vllm_importance_sampling_mode ?? 'sequence_mask'),
  is_level_known: (e) =>
    oneOf('importance_sampling_level', e.args.importance_sampling_level ?? 'token'),
  lr_scheduler_known: (e) => oneOf('lr_scheduler_type', e.args.lr_scheduler_type ?? 'linear'),
  logging_steps_integer: (e) =>
    !set(e.args.logging_steps) ||
    num(e.args.logging_steps) <= 1 ||
    Number.isInteger(num(e.args.logging_steps)),
  warmup_nonnegative: (e) => !set(e.args.warmup_steps) || num(e.args.warmup_steps) >= 0,
  colocate_tp_divides_world: (e, c) =>
    (e.args.vllm_mode ?? 'colocate') !== 'colocate' ||
    c.world % num(e.args.vllm_tensor_parallel_size ?? 1) === 0,
  lora_field_known: (e) => e.lora === null || Object.keys(e.lora).every((k) => loraFields.has(k)),
};

const LOSS: Record<RunConfig['aggregation'], string> = {
  seed: 'grpo',
  token: 'dapo',
  dr_grpo: 'dr_grpo',
};

/** The meanings: TRL accepts the arguments and trains the tab's run. */
export const MEANINGS: Record<string, Check> = {
  one_optimizer_step_per_epoch: (e, c) =>
    !set(e.args.steps_per_generation) &&
    num(e.args.gradient_accumulation_steps) === stepsPerGeneration(e, c.world),
  max_steps_counts_optimizer_steps: (e, c) =>
    num(e.args.max_steps) === c.config.steps * c.config.ppoEpochs &&
    num(e.args.num_iterations) === c.config.ppoEpochs,
  constant_lr: (e) => e.args.lr_scheduler_type === 'constant',
  per_turn_limit: (e, c) =>
    (e.args.generation_kwargs as { max_tokens?: unknown } | undefined)?.max_tokens ===
    c.config.maxNewTokens,
  dr_grpo_normaliser: (e, c) =>
    num(e.args.max_completion_length) === c.config.maxTurns * c.config.maxNewTokens,
  batch_is_the_tabs: (e, c) =>
    num(e.args.num_generations) === c.config.groupSize &&
    num(e.args.generation_batch_size) === stepCompletions(c.config, c.taskCount),
  micro_batch_cap: (e, c) =>
    num(e.args.per_device_train_batch_size) <= Math.max(1, c.config.microBatchSize),
  importance_sampling_masked: (e) =>
    e.args.vllm_importance_sampling_correction === false ||
    (e.args.vllm_importance_sampling_mode === 'token_truncate' &&
      (e.args.importance_sampling_level ?? 'token') === 'token'),
  loss_type_matches_aggregation: (e, c) => e.args.loss_type === LOSS[c.config.aggregation],
  same_hyperparameters: (e, c) =>
    num(e.args.learning_rate) === c.config.lr &&
    num(e.args.weight_decay) === c.config.weightDecay &&
    num(e.args.max_grad_norm) === c.config.gradClip &&
    num(e.args.temperature) === c.config.temperature &&
    num(e.args.beta) === c.config.klCoef &&
    num(e.args.epsilon) === c.config.clipEps &&
    num(e.args.epsilon_high) === (c.config.clipEpsHigh ?? c.config.clipEps) &&
    num(e.args.seed) === c.config.seed &&
    e.args.scale_rewards === 'group',
  no_truncated_sampling: (e) =>
    num(e.args.top_p ?? 1) === 1 && num(e.args.top_k ?? 0) === 0 && !set(e.args.min_p),
  kl_reference_adapters_off: (e) => !/PeftModel\.from_pretrained\(/.test(e.trainPy),
};

/** Every rule and meaning the arguments break, by id. */
export function violations(e: Exported, c: Context): string[] {
  return Object.entries({ ...RULES, ...MEANINGS })
    .filter(([, check]) => !check(e, c))
    .map(([id]) => id);
}

/** train.py's and rewards.py's command-line options, as their sources declare them. */
export function scriptOptions(source: string): Set<string> {
  const options = new Set<string>();
  for (const m of source.matchAll(/add_argument\(\s*'(--[\w-]+)'/g)) options.add(m[1]!);
  for (const m of source.matchAll(/sys\.argv\[1:?\] == \[?'(--[\w-]+)'/g)) options.add(m[1]!);
  return options;
}

const SERVE_OPTIONS = new Set(FACTS.commands.vllm_serve.options);
const LAUNCH_OPTIONS = new Set(FACTS.commands.accelerate_launch.options);

/**
 * What is wrong with the commands of the exported README.md: an option `trl vllm-serve`,
 * `accelerate launch`, train.py or rewards.py does not have at the pins, data parallelism on the
 * server (vLLM refuses it for dense models), or a server recipe that leaves out the ports the
 * trainer needs open. Empty when every command would run.
 */
export function readmeCommandProblems(
  readme: string,
  scripts: Record<'train.py' | 'rewards.py', string>,
): string[] {
  const problems: string[] = [];
  const lines = readme
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.startsWith('    ') && !line.trim().startsWith('#'))
    .map((line) => line.replace(/\s+#.*$/, '').trim());
  const optionName = (token: string) => token.replace(/^--/, '').split('=')[0]!;
  const scriptsCalled = new Set<string>();
  for (const line of lines) {
    const words = line.split(/\s+/).filter((w) => !/^[A-Z_]+=/.test(w));
    const at = (i: number) => words[i] ?? '';
    let rest = words;
    if (at(0) === 'trl' && at(1) === 'vllm-serve') {
      for (const w of words.slice(2).filter((w) => w.startsWith('--'))) {
        const name = optionName(w).replaceAll('-', '_');
        if (!SERVE_OPTIONS.has(name)) problems.push(`trl vllm-serve has no option ${w}`);
        if (name === 'data_parallel_size')
          problems.push(`${line}: ${FACTS.commands.vllm_serve.dense_data_parallel.says}`);
      }
      continue;
    }
    if (at(0) === 'accelerate' && at(1) === 'launch') {
      const script = words.findIndex((w) => w.endsWith('.py'));
      for (const w of words.slice(2, script).filter((w) => w.startsWith('--'))) {
        if (!LAUNCH_OPTIONS.has(optionName(w)))
          problems.push(`accelerate launch has no option ${w}`);
      }
      rest = words.slice(script);
    } else if (at(0) === 'python') {
      rest = words.slice(1);
    } else {
      continue;
    }
    const name = rest[0] as 'train.py' | 'rewards.py';
    if (!(name in scripts)) {
      problems.push(`${line}: runs ${rest[0]}, which the export does not have`);
      continue;
    }
    scriptsCalled.add(name);
    const known = scriptOptions(scripts[name]);
    for (const w of rest.slice(1).filter((w) => w.startsWith('--'))) {
      if (!known.has(w.split('=')[0]!)) problems.push(`${name} has no option ${w}`);
    }
  }
  if (!lines.some((l) => /accelerate launch .*--num_processes/.test(l))) {
    problems.push('no `accelerate launch --num_processes N` recipe');
  }
  if (!lines.some((l) => /--num_machines/.test(l))) problems.push('no multi-node recipe');
  const ports = [FACTS.commands.vllm_serve.port_default, FACTS.commands.group_port.default];
  for (const port of ports) {
    if (!readme.includes(String(port)))
      problems.push(`the server recipe does not name port ${port}`);
  }
  if (!scriptsCalled.has('train.py')) problems.push('no train.py command');
  return problems;
}
