// The TRL export against TRL's own rules at the pinned release (facts recorded from its source in
// test/fixtures/trl/trl_1.9.0.json): every preset's exported GRPO_ARGS and LORA_ARGS, read from
// train.py as Python literals, and train.py's batch for 1 to 8 processes, pass every rule (TRL
// would not refuse them) and every meaning (TRL would train the tab's run); a process count that
// cannot share the batch is refused with the fix. Each rule and meaning is shown to catch its own
// breach by a mutation of valid arguments.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAdamWConfig } from '../../src/model/adamw.ts';
import type { RunConfig } from '../../src/run/config.ts';
import { PRESETS, type PresetName, presetConfig } from '../../src/run/presets.ts';
import { exportTrlProject } from '../../src/run/trl_export.ts';
import { ADAM, batchPlan, requirementsTxt, TRL_PINS } from '../../src/run/trl_mapping.ts';
import {
  type Context,
  type Exported,
  FACTS,
  MEANINGS,
  RULES,
  readmeCommandProblems,
  scriptOptions,
  violations,
} from './trl_contract_rules.ts';

const run = promisify(execFile);

// Reads the mapping as tools would, without running train.py: the top-level literals by ast; then
// imports train.py (no TRL needed) for its batch at each world size.
const READ = `
import ast, json, sys
source = open('train.py').read()
values = {}
for node in ast.parse(source).body:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        name = node.targets[0].id
        if name in ('GRPO_ARGS', 'LORA_ARGS', 'MICRO_BATCH_SIZE'):
            values[name] = ast.literal_eval(node.value)
import train
worlds = {}
for world in range(1, 9):
    try:
        worlds[world] = train.batch_for_world(values['GRPO_ARGS'], values['MICRO_BATCH_SIZE'], world)
    except ValueError as error:
        worlds[world] = str(error)
print(json.dumps({'values': values, 'worlds': worlds, 'source': source}))
`;

interface Read {
  values: {
    GRPO_ARGS: Record<string, unknown>;
    LORA_ARGS: Record<string, unknown> | null;
    MICRO_BATCH_SIZE: number;
  };
  worlds: Record<string, Record<string, unknown> | string>;
  source: string;
}

/** Presets and variants that reach every mapped branch (loss types, full fine-tuning, batches). */
const CASES: [string, RunConfig][] = [
  ...[...PRESETS.keys()].map((name): [string, RunConfig] => [
    name,
    presetConfig(name as PresetName),
  ]),
  [
    'default, token aggregation',
    presetConfig('default', { aggregation: 'token', clipEpsHigh: 0.28 }),
  ],
  ['default, dr_grpo, full', presetConfig('default', { aggregation: 'dr_grpo', finetune: 'full' })],
  ['every task a step', presetConfig('default', { promptsPerStep: null, microBatchSize: 16 })],
  [
    'more prompts than tasks',
    presetConfig('reference', { promptsPerStep: 5, groupSize: 8, microBatchSize: 5 }),
  ],
];

describe('the TRL export against TRL 1.9.0', () => {
  const dirs: string[] = [];
  const read = new Map<string, Read>();
  const dry = new Map<string, string>();

  beforeAll(async () => {
    for (const [name, config] of CASES) {
      const dir = await mkdtemp(join(tmpdir(), 'trl-contract-'));
      dirs.push(dir);
      for (const [file, text] of Object.entries(exportTrlProject(config))) {
        await writeFile(join(dir, file), text);
      }
      const { stdout } = await run('python3', ['-c', READ], {
        cwd: dir,
        maxBuffer: 16 * 1024 * 1024,
      });
      read.set(name, JSON.parse(stdout) as Read);
      if (PRESETS.has(name as PresetName)) {
        dry.set(name, (await run('python3', ['train.py', '--dry-run'], { cwd: dir })).stdout);
      }
    }
  }, 60_000);

  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  const taskCount = (config: RunConfig) =>
    exportTrlProject(config)
      ['tasks.jsonl']!.split('\n')
      .filter((l) => l !== '').length;

  it('records a check for every rule and meaning of the fixture, and no other', () => {
    expect(Object.keys(RULES).sort()).toEqual(FACTS.rules.map((r) => r.id).sort());
    expect(Object.keys(MEANINGS).sort()).toEqual(FACTS.meanings.map((m) => m.id).sort());
    for (const fact of [...FACTS.rules, ...FACTS.meanings]) expect(fact.where).toMatch(/\S/);
  });

  it.each(CASES)(
    '%s: GRPO_ARGS pass every rule and meaning at every world size that can share the batch',
    (name, config) => {
      const r = read.get(name)!;
      const tasks = taskCount(config);
      let shared = 0;
      for (let world = 1; world <= 8; world++) {
        const got = r.worlds[String(world)]!;
        const context: Context = { config, taskCount: tasks, world };
        let plan: ReturnType<typeof batchPlan> | null = null;
        try {
          plan = batchPlan(
            r.values.GRPO_ARGS.generation_batch_size as number,
            config.microBatchSize,
            world,
          );
        } catch (error) {
          // train.py refuses the same world sizes, with the same fix
          expect({ world, refused: got }).toEqual({ world, refused: (error as Error).message });
          expect(got).toMatch(/Fix: launch a process count that divides/);
          continue;
        }
        shared++;
        const args = got as Record<string, unknown>;
        expect({
          world,
          per: args.per_device_train_batch_size,
          acc: args.gradient_accumulation_steps,
        }).toEqual({
          world,
          per: plan.perDevice,
          acc: plan.accumulation,
        });
        const exported: Exported = {
          args,
          lora: r.values.LORA_ARGS,
          microBatchSize: r.values.MICRO_BATCH_SIZE,
          trainPy: r.source,
        };
        expect({ world, broken: violations(exported, context) }).toEqual({ world, broken: [] });
      }
      expect(shared).toBeGreaterThan(0);
      // world size 1 is GRPO_ARGS as written
      expect(r.worlds['1']).toEqual(r.values.GRPO_ARGS);
      expect(r.values.LORA_ARGS === null).toBe(config.finetune === 'full');
    },
  );

  it.each([...PRESETS.keys()])(
    '%s: train.py --dry-run, without TRL, replays an episode as the ids of the rendered chat and prints the batches',
    (name) => {
      const [mapping, episode, tokens] = dry
        .get(name)!
        .split(/\n(?=\{)/)
        .map((part) => JSON.parse(part));
      expect(mapping.grpo_config).toEqual(read.get(name)!.values.GRPO_ARGS);
      expect(episode.reward).toBe(1);
      expect(tokens.token_replay).toMatchObject({
        ids_are_the_rendered_chat: true,
        template_problem: null,
      });
      expect(tokens.token_replay.sampled_tokens).toBeGreaterThan(0);
      expect(tokens.token_replay.observation_tokens).toBeGreaterThan(0);
      const worlds = read.get(name)!.worlds;
      for (let world = 1; world <= 8; world++) {
        const got = worlds[String(world)]!;
        expect(tokens.batch_by_world_size[String(world)]).toEqual(
          typeof got === 'string'
            ? got
            : {
                per_device_train_batch_size: got.per_device_train_batch_size,
                gradient_accumulation_steps: got.gradient_accumulation_steps,
              },
        );
      }
    },
  );

  it('catches each rule and meaning it checks, by a mutation of valid arguments', () => {
    const config = presetConfig('default');
    const r = read.get('default')!;
    const valid: Exported = {
      args: r.values.GRPO_ARGS,
      lora: r.values.LORA_ARGS,
      microBatchSize: r.values.MICRO_BATCH_SIZE,
      trainPy: r.source,
    };
    const context: Context = { config, taskCount: taskCount(config), world: 1 };
    expect(violations(valid, context)).toEqual([]);
    const withArgs = (change: Record<string, unknown>): Exported => ({
      ...valid,
      args: { ...valid.args, ...change },
    });
    // The crash: 18 completions in passes of 4 do not divide.
    const mutations: Record<string, [Exported, Partial<Context>?]> = {
      known_field: [withArgs({ max_new_tokens: 128 })],
      generation_batch_xor_steps: [withArgs({ steps_per_generation: 6 })],
      generation_batch_divisible_by_global_batch: [withArgs({ per_device_train_batch_size: 4 })],
      generation_batch_divisible_by_num_generations: [withArgs({ num_generations: 4 })],
      num_generations_at_least_2: [
        withArgs({
          num_generations: 1,
          generation_batch_size: 3,
          per_device_train_batch_size: 3,
          gradient_accumulation_steps: 1,
        }),
      ],
      is_clip_min_below_max: [withArgs({ vllm_importance_sampling_clip_min: 5 })],
      is_truncate_needs_bound: [withArgs({ vllm_importance_sampling_clip_max: null })],
      no_auto_find_batch_size: [withArgs({ auto_find_batch_size: true })],
      loss_type_known: [withArgs({ loss_type: 'seed' })],
      scale_rewards_known: [withArgs({ scale_rewards: 'std' })],
      vllm_mode_known: [withArgs({ vllm_mode: 'colocated' })],
      is_mode_known: [withArgs({ vllm_importance_sampling_mode: 'token' })],
      is_level_known: [withArgs({ importance_sampling_level: 'episode' })],
      lr_scheduler_known: [withArgs({ lr_scheduler_type: 'flat' })],
      logging_steps_integer: [withArgs({ logging_steps: 2.5 })],
      warmup_nonnegative: [withArgs({ warmup_steps: -1 })],
      colocate_tp_divides_world: [withArgs({ vllm_tensor_parallel_size: 2 })],
      lora_field_known: [{ ...valid, lora: { ...valid.lora, alpha: 16 } }],
      // the half run, decaying rate, unlimited turns, wrong normaliser and IS
      one_optimizer_step_per_epoch: [withArgs({ gradient_accumulation_steps: 5 })],
      max_steps_counts_optimizer_steps: [withArgs({ max_steps: config.steps })],
      constant_lr: [withArgs({ lr_scheduler_type: 'linear' })],
      per_turn_limit: [withArgs({ generation_kwargs: undefined })],
      dr_grpo_normaliser: [withArgs({ max_completion_length: 1230 })],
      batch_is_the_tabs: [withArgs({ generation_batch_size: 36, gradient_accumulation_steps: 12 })],
      micro_batch_cap: [
        withArgs({ per_device_train_batch_size: 6, gradient_accumulation_steps: 3 }),
      ],
      importance_sampling_masked: [withArgs({ vllm_importance_sampling_mode: 'sequence_mask' })],
      loss_type_matches_aggregation: [withArgs({ loss_type: 'dapo' })],
      same_hyperparameters: [withArgs({ learning_rate: 1e-6 })],
      no_truncated_sampling: [withArgs({ top_p: 0.95 })],
      kl_reference_adapters_off: [
        {
          ...valid,
          trainPy: `${valid.trainPy}\npolicy = PeftModel.from_pretrained(policy, adapter)\n`,
        },
      ],
    };
    expect(Object.keys(mutations).sort()).toEqual(
      [...Object.keys(RULES), ...Object.keys(MEANINGS)].sort(),
    );
    for (const [id, [mutated, extra]] of Object.entries(mutations)) {
      expect({ id, caught: violations(mutated, { ...context, ...extra }).includes(id) }).toEqual({
        id,
        caught: true,
      });
    }
  });

  it.each(CASES)(
    "%s: the README's commands use only options the pinned tools have, and no server data parallelism",
    (_name, config) => {
      const files = exportTrlProject(config);
      const scripts = { 'train.py': files['train.py']!, 'rewards.py': files['rewards.py']! };
      expect(readmeCommandProblems(files['README.md']!, scripts)).toEqual([]);
    },
  );

  it('catches each kind of broken README command, by a mutation of a valid README', () => {
    const files = exportTrlProject(presetConfig('default'));
    const scripts = { 'train.py': files['train.py']!, 'rewards.py': files['rewards.py']! };
    expect([...scriptOptions(scripts['rewards.py'])].sort()).toEqual(['--score', '--self-test']);
    expect(scriptOptions(scripts['train.py'])).toContain('--vllm-server');
    const readme = files['README.md']!;
    const serve = /^ {4}.*trl vllm-serve .*$/m.exec(readme)![0];
    const mutations: [string, RegExp][] = [
      [readme.replace(serve, `${serve} --data-parallel-size 2`), /errors for a dense model/],
      [readme.replace(serve, `${serve} --tp 2`), /trl vllm-serve has no option --tp/],
      [readme.replace('--num_processes N', '--nproc N'), /accelerate launch has no option --nproc/],
      [readme.replace('--vllm-server http', '--server http'), /train.py has no option --server/],
      [readme.replace('--self-test', '--selftest'), /rewards.py has no option --selftest/],
      [
        readme.replace('python train.py --dry-run', 'python train_grpo.py --dry-run'),
        /train_grpo.py/,
      ],
      [readme.replaceAll('51216', 'NCCL'), /does not name port 51216/],
      [readme.replaceAll('--num_machines', '--machines'), /no multi-node recipe/],
    ];
    for (const [mutated, caught] of mutations) {
      expect(readmeCommandProblems(mutated, scripts).join('\n')).toMatch(caught);
    }
  });

  it('pins TRL and every package it needs exactly, inside the ranges TRL accepts', () => {
    expect(TRL_PINS).toEqual(FACTS.pins);
    expect(requirementsTxt().trim().split('\n')).toEqual(
      Object.entries(FACTS.pins).map(
        ([name, version]) => `${name === 'trl' ? 'trl[vllm]' : name}==${version}`,
      ),
    );
    const atLeast = (version: string, floor: string) => {
      const [a, b] = [version, floor].map((v) => v.split('.').map(Number));
      for (let i = 0; i < 3; i++) if (a![i] !== b![i]) return a![i]! > b![i]!;
      return true;
    };
    const floor = (spec: string) => /^>=([\d.]+)/.exec(spec)![1]!;
    for (const name of ['accelerate', 'datasets', 'transformers', 'peft', 'vllm'] as const) {
      expect({ name, ok: atLeast(TRL_PINS[name], floor(FACTS.accepted[name])) }).toEqual({
        name,
        ok: true,
      });
    }
    const ceiling = /<=([\d.]+)/.exec(FACTS.accepted.vllm)![1]!;
    expect(atLeast(ceiling, TRL_PINS.vllm)).toBe(true);
    expect(FACTS.sources.trl.tag).toBe(`v${TRL_PINS.trl}`);
  });

  it("maps the tab's AdamW constants, which TrainingArguments' defaults equal", () => {
    expect(ADAM).toEqual({
      beta1: defaultAdamWConfig.beta1,
      beta2: defaultAdamWConfig.beta2,
      epsilon: defaultAdamWConfig.epsilon,
    });
  });
});
