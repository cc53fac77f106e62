// What makes one run differ from another, in words a class reads: "learning rate 0",
// "G 8, 3 prompts per step", "tools: run code, give the answer". The compare legend, the lesson
// cards and `cli lesson` name runs this way, always against a base run (the page's default run
// unless said otherwise), so two runs that differ in one field read as that one field.
import { CONFIG_SCHEMA, FIELD_NAMES, type FieldName, type RunConfig } from './config.ts';
import { presetConfig } from './presets.ts';

/** Names a class knows a field by, where the schema's name is not already that. */
const FIELD_WORDS: Partial<Record<FieldName, string>> = {
  lr: 'learning rate',
  groupSize: 'G',
  promptsPerStep: 'prompts per step',
  klCoef: 'β',
  ppoEpochs: 'PPO epochs',
  maxTurns: 'turns',
  maxNewTokens: 'tokens per turn',
  evalEvery: 'held-out eval every',
  async: 'async rollout',
  rewards: 'reward',
  timeoutMs: 'timeout ms',
  taskSampling: 'task sampling',
  skipZeroStdGroups: 'skip zero-signal groups',
  partialCredit: 'partial credit',
};

/** Tool names as the page's checkboxes say them. */
const TOOL_WORDS: Record<string, string> = {
  execute_code: 'run code',
  search: 'search',
  finish: 'give the answer',
};

/** One field that differs: its name in words, and its value in words. */
export interface FieldChange {
  field: FieldName;
  words: string;
}

/** A field's value as words. */
function valueWords(field: FieldName, value: unknown): string {
  const spec = CONFIG_SCHEMA[field];
  if (value === null) return 'none';
  switch (spec.kind) {
    case 'bool':
      return value ? 'on' : 'off';
    case 'list':
      return field === 'tools'
        ? (value as string[]).map((tool) => TOOL_WORDS[tool] ?? tool).join(', ')
        : (value as string[]).join(', ');
    case 'weights':
      // the parts that count, largest first: what the reward pays for
      return Object.entries(value as Record<string, number>)
        .filter(([, weight]) => weight > 0)
        .sort((a, b) => b[1] - a[1])
        .map(([name, weight]) => `${name.replace('_', ' ')} ×${weight}`)
        .join(' + ');
    case 'customTasks':
      return `${(value as unknown[]).length} custom task${(value as unknown[]).length === 1 ? '' : 's'}`;
    default:
      return String(value);
  }
}

/** The fields where `config` differs from `base`, each in words, in the schema's order. */
export function configChanges(config: RunConfig, base: RunConfig): FieldChange[] {
  return FIELD_NAMES.filter(
    (field) => JSON.stringify(config[field]) !== JSON.stringify(base[field]),
  ).map((field) => {
    const name = FIELD_WORDS[field] ?? field;
    const value = valueWords(field, config[field]);
    // tools and reward read as "tools: run code, give the answer"; a number as "G 8"
    const separator = field === 'tools' || field === 'rewards' ? ': ' : ' ';
    const words =
      field === 'evalEvery' && config.evalEvery === 0
        ? 'no held-out eval'
        : `${name}${separator}${value}`;
    return { field, words };
  });
}

/**
 * How `config` differs from `base` (default: the page's default run) in one line: "learning rate
 * 0, seed 2", or `same` (default "the default run") when nothing differs. `omit` leaves fields out
 * (a legend that names the seed elsewhere).
 */
export function describeChanges(
  config: RunConfig,
  base: RunConfig = presetConfig('default'),
  options: { omit?: readonly FieldName[]; same?: string } = {},
): string {
  const changes = configChanges(config, base).filter(
    (change) => !options.omit?.includes(change.field),
  );
  return changes.length === 0
    ? (options.same ?? 'the default run')
    : changes.map((c) => c.words).join(', ');
}

/**
 * What makes runs hard to compare (each a sentence, empty when they are comparable): another
 * model or another task set. Comparing them is allowed; the page says so.
 */
export function comparisonCaveats(configs: readonly RunConfig[]): string[] {
  const caveats: string[] = [];
  const distinct = (field: 'model' | 'tasks') => new Set(configs.map((c) => c[field]));
  if (distinct('model').size > 1)
    caveats.push(
      `These runs train different models (${[...distinct('model')].join(', ')}): a difference in their curves may be the model's, not the setting's.`,
    );
  if (distinct('tasks').size > 1)
    caveats.push(
      `These runs train on different task sets (${[...distinct('tasks')].join(', ')}): their rewards measure different tasks.`,
    );
  return caveats;
}
