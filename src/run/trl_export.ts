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
import {
  baseModelName,
  grpoMapping,
  loraMapping,
  type Mapped,
  requirementsTxt,
} from './trl_mapping.ts';
import { trlReadme } from './trl_readme.ts';

export {
  baseModelName,
  grpoMapping,
  loraMapping,
  TRL_PINS,
  TRL_VERSION,
} from './trl_mapping.ts';

/** The Python files copied as they are, in ./trl. */
const STATIC_FILES = [
  'environment.py',
  'judge_child.py',
  'rewards.py',
  'rollout.py',
  'train.py',
] as const;
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
    `MICRO_BATCH_SIZE = ${py(config.microBatchSize)}  # the tab's microBatchSize: the most sequences per pass`,
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
    'requirements.txt': requirementsTxt(),
    'README.md': trlReadme(config, runLink, tasks.length),
  };
  for (const name of STATIC_FILES) files[name] = staticFile(name);
  if (config.tools.includes('search')) {
    for (const name of SEARCH_FILES) files[name] = staticFile(name);
    files['docs.json'] = `${JSON.stringify(searchIndexData())}\n`;
  }
  files['train.py'] = trainPy(config, tasks.length);
  return files;
}
