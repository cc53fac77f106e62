// Export a run as a TRL project (docs/trl_export.md): a folder that runs the same experiment with
// TRL's GRPOTrainer on GPUs. The Python files are kept as real files in ./trl (linted like the
// sandbox harness) and copied as they are; everything they must agree on with the tab (the system
// prompt, the format-error texts, TIMEOUT, the limits, the reward weights, the tasks' hidden tests
// split into expression and expected value) is written into protocol.py and tasks.jsonl from the
// tab's own TypeScript values here, so the two cannot drift.
import { TIMEOUT_OBSERVATION } from '../env/exec_result.ts';
import { searchIndexData } from '../env/search/index.ts';
import { searchTool } from '../env/tools.ts';
import type { PlainValue, EncodedValue } from '../env/plain_value.ts';
import { OBSERVATION_PREFIX, parseStrict, systemPrompt } from '../rl/actions.ts';
import { REWARDS, weightOf } from '../rl/rewards.ts';
import { tasksFor } from '../tasks/registry.ts';
import type { Task } from '../tasks/task.ts';
import { hiddenTests } from '../tasks/tests_harness.ts';
import type { RunConfig } from './config.ts';

/** The TRL release train.py is written against (requirements.txt pins it). */
export const TRL_VERSION = '0.27.0';

/** The Python files copied as they are, in ./trl. */
const STATIC_FILES = ['environment.py', 'rewards.py', 'train.py'] as const;
/** The search tool's Python port, copied (with docs.json) when the run uses search. */
const SEARCH_FILES = ['docs_search.py'] as const;

const inlined: Record<string, string> | undefined = import.meta.env
  ? import.meta.glob<string>('./trl/*.py', { query: '?raw', import: 'default', eager: true })
  : undefined;
const here = import.meta.url;

function staticFile(name: string): string {
  if (inlined) {
    const text = inlined[`./trl/${name}`];
    if (text === undefined) throw new Error(`the TRL export has no file ${name}`);
    return text;
  }
  const fs = process.getBuiltinModule('node:fs');
  return fs.readFileSync(new URL(`trl/${name}`, here), 'utf8');
}

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

/** A Python literal for a JSON-able value (JSON strings are valid Python strings). */
function py(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot write ${value} into Python`);
    return String(value);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(py).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${JSON.stringify(k)}: ${py(v)}`)
    .join(', ')}}`;
}

/** The judge's wire encoding of a plain value (the inverse of decodePlain). */
export function encodePlain(value: PlainValue): EncodedValue {
  switch (value.type) {
    case 'str':
      return ['s', value.value];
    case 'bool':
      return ['b', value.value];
    case 'none':
      return ['n'];
    case 'int':
      return ['i', value.value < 0n ? `-${(-value.value).toString(16)}` : value.value.toString(16)];
    case 'float': {
      const v = value.value;
      return [
        'f',
        Number.isNaN(v) ? 'nan' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : String(v),
      ];
    }
    case 'list':
      return ['l', value.items.map(encodePlain)];
    case 'tuple':
      return ['t', value.items.map(encodePlain)];
    case 'set':
      return ['S', value.items.map(encodePlain)];
    case 'dict':
      return ['d', value.entries.map(([k, v]) => [encodePlain(k), encodePlain(v)])];
  }
}

/** One line of tasks.jsonl: the task, its hidden tests as sources and as the judge's probes. */
export function taskLine(task: Task): Record<string, unknown> {
  return {
    id: task.id,
    source: task.source,
    split: task.split,
    prompt: task.prompt,
    expected_output: task.expectedOutput,
    tests: task.tests,
    probes: hiddenTests(task.tests ?? []).map((test) =>
      test.kind === 'value'
        ? { kind: 'value', expr: test.expr, expected: encodePlain(test.expected) }
        : { kind: 'statement', source: test.source },
    ),
    solution: task.solution,
  };
}

/** A marker the wrong-fence text is written with, so Python can put the tag in. */
const TAG_SLOT = 'zztagzz';

function formatErrorText(text: string, tools: readonly string[]): string {
  const action = parseStrict(text, tools);
  if (action.type !== 'format_error') throw new Error(`expected a format error for ${text}`);
  return action.observation;
}

/** protocol.py: every constant the Python files share with the tab. */
function protocolPy(config: RunConfig, runLink: string | null): string {
  const tools = config.tools;
  const call = config.tools.includes('search') ? searchTool.call : undefined;
  const searchCall = call
    ? {
        tool: 'search',
        marker: call.marker,
        fence: call.fence,
        empty_line_observation: formatErrorText(`${call.marker}:`, tools),
        empty_block_observation: formatErrorText(`\`\`\`${call.fence}\n\`\`\``, tools),
      }
    : null;
  const weights = Object.fromEntries(
    [...REWARDS.keys()].map((name) => [name, weightOf(config.rewards, name)]),
  );
  const lines: [string, unknown][] = [
    ['RUN_LINK', runLink],
    ['MODEL', config.model],
    ['SYSTEM_PROMPT', systemPrompt(config.tools)],
    ['OBSERVATION_PREFIX', OBSERVATION_PREFIX],
    ['TIMEOUT_OBSERVATION', TIMEOUT_OBSERVATION],
    ['FORMAT_ERROR_OBSERVATION', formatErrorText('no action here', tools)],
    ['EMPTY_ANSWER_OBSERVATION', formatErrorText('FINAL ANSWER:', tools)],
    ['EMPTY_BLOCK_OBSERVATION', formatErrorText('```python\n```', tools)],
    ['WRONG_FENCE_OBSERVATION', formatErrorText(`\`\`\`${TAG_SLOT}\nx\n\`\`\``, tools)],
    ['TAG_SLOT', TAG_SLOT],
    ['TOOLS', [...config.tools]],
    ['SEARCH_CALL', searchCall],
    ['PARSER', config.parser],
    ['MAX_TURNS', config.maxTurns],
    ['MAX_NEW_TOKENS', config.maxNewTokens],
    ['TIMEOUT_S', config.timeoutMs / 1000],
    ['MAX_OUTPUT_CHARS', config.maxOutputChars],
    ['REWARD_NAMES', [...REWARDS.keys()]],
    ['REWARD_WEIGHTS', weights],
    ['PARTIAL_CREDIT', config.partialCredit],
  ];
  return [
    "# Written by `export-trl` from the tab's TypeScript constants (src/run/trl_export.ts): do not",
    '# edit; export the run again instead.',
    ...lines.map(([name, value]) => `${name} = ${py(value)}`),
    '',
  ].join('\n');
}

/** A GRPOConfig or LoraConfig field: its value and, where TRL differs, why this value. */
interface Mapped {
  value: unknown;
  note?: string;
}

/** The run's hyper-parameters as GRPOConfig keyword arguments (docs/trl_export.md has the table). */
export function grpoMapping(config: RunConfig, taskCount: number): Record<string, Mapped> {
  const prompts = config.promptsPerStep ?? taskCount;
  const completions = prompts * config.groupSize;
  const perDevice = Math.min(config.microBatchSize, completions);
  const loss: Record<RunConfig['aggregation'], Mapped> = {
    seed: {
      value: 'grpo',
      note: "'seed': mean over each trajectory's tokens, then over trajectories",
    },
    token: {
      value: 'dapo',
      note: "'token': one mean over every token of the batch (TRL normalises by the global batch's tokens)",
    },
    dr_grpo: { value: 'dr_grpo' },
  };
  return {
    output_dir: { value: 'output' },
    max_steps: { value: config.steps },
    num_generations: { value: config.groupSize, note: 'G, samples per prompt' },
    generation_batch_size: {
      value: completions,
      note: `prompts per step (${config.promptsPerStep === null ? `every task: ${taskCount}` : prompts}) x G`,
    },
    per_device_train_batch_size: {
      value: perDevice,
      note: 'microBatchSize; the tab also caps tokens per pass (microBatchTokens), which TRL does not',
    },
    gradient_accumulation_steps: {
      value: Math.ceil(completions / perDevice),
      note: 'one optimizer step per batch of prompts x G completions, on one GPU; divide by the GPU count',
    },
    temperature: { value: config.temperature },
    learning_rate: { value: config.lr },
    weight_decay: { value: config.weightDecay, note: 'AdamW, as the tab' },
    max_grad_norm: { value: config.gradClip, note: '0 = no clipping in both' },
    beta: { value: config.klCoef, note: 'k3 estimator against the adapters-off model in both' },
    epsilon: { value: config.clipEps },
    epsilon_high: { value: config.clipEpsHigh ?? config.clipEps },
    num_iterations: { value: config.ppoEpochs, note: 'ppoEpochs' },
    loss_type: loss[config.aggregation],
    scale_rewards: {
      value: 'group',
      note: 'the tab: (r - mean) / std (n - 1), 0 when std < 1e-8; TRL: (r - mean) / (std + 1e-4)',
    },
    max_completion_length: {
      value: config.maxTurns * (config.maxNewTokens + Math.ceil(config.maxOutputChars / 2) + 32),
      note: `all turns of an episode with their observations; each turn is generated with at most ${config.maxNewTokens} tokens (MAX_NEW_TOKENS)`,
    },
    seed: { value: config.seed, note: 'same seed, not the same samples: another sampler' },
    use_vllm: { value: true, note: "rollout_func generates each turn through TRL's vLLM helper" },
    vllm_mode: { value: 'colocate' },
    report_to: { value: 'none' },
    logging_steps: { value: 1 },
  };
}

/** The run's adapters as LoraConfig keyword arguments, or null for full fine-tuning. */
export function loraMapping(config: RunConfig): Record<string, Mapped> | null {
  if (config.finetune !== 'lora') return null;
  return {
    r: { value: config.loraRank },
    lora_alpha: {
      value: config.loraAlpha,
      note: 'scale alpha / r, as the tab (use_rslora stays off)',
    },
    lora_dropout: { value: 0 },
    target_modules: { value: [...config.loraTargets] },
    bias: { value: 'none' },
    task_type: { value: 'CAUSAL_LM' },
  };
}

function mappingBlock(entries: Record<string, Mapped>): string {
  return Object.entries(entries)
    .map(
      ([key, { value, note }]) =>
        `    ${JSON.stringify(key)}: ${py(value)},${note ? `  # ${note}` : ''}`,
    )
    .join('\n');
}

function trainPy(config: RunConfig, taskCount: number): string {
  const lora = loraMapping(config);
  const model = baseModelName(config.model);
  const block = [
    '# @@MAPPING@@ (written by the exporter from the run config)',
    `MODEL = ${py(model)}${model === null ? "  # the run's model is the tab's embedded demo: pass --model" : ''}`,
    `GRPO_ARGS = {\n${mappingBlock(grpoMapping(config, taskCount))}\n}`,
    lora === null
      ? "LORA_ARGS = None  # the run trains every parameter (finetune: 'full')"
      : `LORA_ARGS = {\n${mappingBlock(lora)}\n}`,
    '# @@END MAPPING@@',
  ].join('\n');
  const source = staticFile('train.py');
  const start = source.indexOf('# @@MAPPING@@');
  const end = source.indexOf('# @@END MAPPING@@');
  if (start < 0 || end < 0) throw new Error('train.py has lost its mapping markers');
  return source.slice(0, start) + block + source.slice(end + '# @@END MAPPING@@'.length);
}

function readme(config: RunConfig, runLink: string | null, taskCount: number): string {
  const model = baseModelName(config.model);
  return `# TRL export of a run

${runLink ? `Exported from the run link (the page's address followed by this):\n\n    ${runLink}\n` : 'Exported from a run config.'}

${taskCount} tasks (set \`${config.tasks}\`${config.customTasks.length > 0 ? ` plus ${config.customTasks.length} custom` : ''}), model ${model ? `\`${model}\`` : "the tab's embedded demo model (no hub id: pass `--model`)"}, ${config.finetune === 'lora' ? `LoRA r=${config.loraRank}, alpha=${config.loraAlpha}` : 'full fine-tuning'}.

## Run it

    pip install -r requirements.txt
    python rewards.py --self-test      # any machine, Python 3.10+, no GPU
    python train.py --dry-run          # no TRL needed: tasks, config mapping, one scripted episode
    python train.py${model ? '                    ' : ' --model Qwen/Qwen2.5-0.5B-Instruct'}  # GPU, TRL ${TRL_VERSION} with vLLM
    python train.py --adapter DIR      # start from a PEFT adapter the tab exported

## Files

- \`tasks.jsonl\`: the tasks (prompt, expected output, hidden tests, and the tests split for the judge).
- \`protocol.py\`: every string and limit the tab uses (system prompt, format errors, TIMEOUT, turns, tokens, output tail, reward weights), written from the tab's source.
- \`environment.py\`: the agent loop (fenced Python runs, FINAL ANSWER:, ${config.tools.includes('search') ? 'SEARCH: and ```search calls, ' : ''}the observation format).
${config.tools.includes('search') ? "- `docs_search.py`, `docs.json`: the search tool's offline docs index (the tab's entries and its own index data) and a port of its ranking; `python docs_search.py` reads one JSON query a line.\n" : ''}- \`rewards.py\`: the reward parts and weights, and the judge for hidden tests.
- \`train.py\`: GRPOConfig and LoraConfig mapped field by field (comments where TRL differs).

## What differs from the tab

- Programs run in a CPython subprocess (resource limits, a deadline), not in Pyodide: the same Python
  language, but the interpreter's version and the traceback text may differ.
- The tests judge is a CPython port of the tab's: expected values never enter the judged process and
  are compared here as plain data; tampering it detects scores 0. The tab's judge (Pyodide, with its
  own lockdown) checks more kinds of tampering.
- Sampling is TRL's (vLLM): the same seed does not give the tab's samples; advantages divide by
  std + 1e-4 instead of the tab's exact zero-std rule; see the comments in train.py.
- **Not run by the exporter:** \`python train.py\` with TRL. It was written against TRL ${TRL_VERSION}'s
  documented \`rollout_func\` API (and \`trl.experimental.openenv.generate_rollout_completions\`),
  but the machines that test the exporter have no GPU and no network for \`pip install\`, so TRL,
  vLLM and PEFT were never installed there and this project has never trained with it. What is
  tested: \`python rewards.py --self-test\`, \`python train.py --dry-run\` (everything but the
  trainer) and, in the tab's test suite, that rewards.py${config.tools.includes('search') ? ', the search tool' : ''} and the parsers give the tab's
  results. Expect to fix small API mismatches on a first GPU run; the reward and environment
  code is the part that is checked.
`;
}

/** The files of the TRL project for a run: name -> text. */
export function exportTrlProject(
  config: RunConfig,
  options: { runLink?: string | null } = {},
): Record<string, string> {
  const runLink = options.runLink ?? null;
  const tasks = tasksFor(config.tasks, config.customTasks);
  const files: Record<string, string> = {
    'tasks.jsonl': `${tasks.map((task) => JSON.stringify(taskLine(task))).join('\n')}\n`,
    'protocol.py': protocolPy(config, runLink),
    'requirements.txt': `trl[vllm]==${TRL_VERSION}\npeft\ndatasets\ntransformers\n`,
    'README.md': readme(config, runLink, tasks.length),
  };
  for (const name of STATIC_FILES) files[name] = staticFile(name);
  if (config.tools.includes('search')) {
    for (const name of SEARCH_FILES) files[name] = staticFile(name);
    files['docs.json'] = `${JSON.stringify(searchIndexData())}\n`;
  }
  files['train.py'] = trainPy(config, tasks.length);
  return files;
}
