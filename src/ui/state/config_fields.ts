// The configuration form's model, derived from CONFIG_SCHEMA (no second list of fields): each
// schema field becomes an input of the right kind, its text parsed and checked by the schema's own
// checkField, so the form explains a bad value with the same words as the CLI. Pure: no DOM.
import {
  CONFIG_SCHEMA,
  FIELD_NAMES,
  type FieldName,
  type FieldSpec,
  type RunConfig,
} from '../../run/config.ts';
import { checkField, validateConfig } from '../../run/config_validation.ts';
import { PRESETS, presetConfig, type PresetName } from '../../run/presets.ts';

/** How the form shows a field. */
export type InputKind = 'number' | 'checkbox' | 'select' | 'text' | 'multi' | 'weights' | 'tasks';

/** One form field: its schema entry plus presentation. */
export interface FormField {
  name: FieldName;
  label: string;
  help: string;
  input: InputKind;
  /** Choices of a select or multi field. */
  choices: readonly string[];
  section: string;
  /** Whether the field's input is shown in the generic form (the model has its own panel). */
  generic: boolean;
}

/**
 * Sections of the form, in order. Presentation only: a schema field not named here lands in
 * "More", so a new schema field always shows up.
 */
const SECTIONS: readonly (readonly [string, readonly string[]])[] = [
  ['Tasks', ['tasks', 'customTasks', 'rewards', 'partialCredit']],
  [
    'Rollout',
    [
      'tools',
      'groupSize',
      'promptsPerStep',
      'taskSampling',
      'maxTurns',
      'maxNewTokens',
      'temperature',
      'parser',
      'timeoutMs',
      'maxOutputChars',
    ],
  ],
  [
    'GRPO update',
    [
      'clipEps',
      'clipEpsHigh',
      'klCoef',
      'ppoEpochs',
      'aggregation',
      'skipZeroStdGroups',
      'microBatchSize',
      'microBatchTokens',
      'activationBudgetMB',
    ],
  ],
  ['Optimizer', ['lr', 'weightDecay', 'gradClip']],
  ['Fine-tuning', ['finetune', 'loraRank', 'loraAlpha', 'loraTargets']],
  ['Run', ['steps', 'seed', 'backend', 'evalEvery', 'async']],
];

/** Labels that read better than the humanized field name (symbols from the paper). */
const LABELS: Partial<Record<string, string>> = {
  groupSize: 'Group size G',
  clipEps: 'Clip ε',
  clipEpsHigh: 'Clip ε high',
  klCoef: 'KL β',
  lr: 'Learning rate',
  ppoEpochs: 'PPO epochs',
  maxNewTokens: 'Tokens per turn',
  maxTurns: 'Turns',
  loraRank: 'LoRA rank',
  loraAlpha: 'LoRA alpha',
  loraTargets: 'LoRA targets',
  tools: 'Tools',
  timeoutMs: 'Timeout (ms)',
  maxOutputChars: 'Output chars',
  evalEvery: 'Eval every',
  promptsPerStep: 'Prompts per step',
  customTasks: 'Custom tasks',
  skipZeroStdGroups: 'Skip zero-std groups',
  microBatchSize: 'Micro-batch',
  microBatchTokens: 'Micro-batch tokens',
  activationBudgetMB: 'Activation budget (MB)',
  gradClip: 'Grad clip',
  partialCredit: 'Partial credit',
  async: 'Async rollout',
};

/** "maxNewTokens" → "Max new tokens". */
export function humanize(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function inputKind(spec: FieldSpec): InputKind {
  switch (spec.kind) {
    case 'int':
    case 'number':
      return 'number';
    case 'bool':
      return 'checkbox';
    case 'enum':
      return 'select';
    case 'string':
      return 'text';
    case 'list':
      return 'multi';
    case 'weights':
      return 'weights';
    case 'customTasks':
      return 'tasks';
  }
}

/** Every schema field as a form field, grouped by section in display order. */
export function formFields(): FormField[] {
  const sectionOf = new Map<string, string>();
  for (const [section, names] of SECTIONS) for (const name of names) sectionOf.set(name, section);
  const order = [...SECTIONS.map(([section]) => section), 'More'];
  const fields = FIELD_NAMES.map((name): FormField => {
    const spec: FieldSpec = CONFIG_SCHEMA[name];
    return {
      name,
      label: LABELS[name] ?? humanize(name),
      help: spec.help,
      input: inputKind(spec),
      choices: spec.kind === 'enum' || spec.kind === 'list' ? spec.values : [],
      section: sectionOf.get(name) ?? 'More',
      generic: name !== 'model',
    };
  });
  const position = (field: FormField) => {
    const list = SECTIONS.find(([section]) => section === field.section)?.[1] ?? [];
    return (
      order.indexOf(field.section) * 1000 +
      (list.includes(field.name) ? list.indexOf(field.name) : 999)
    );
  };
  return fields.sort((a, b) => position(a) - position(b));
}

/** A number field's value as the text its input shows (null → empty). */
export function numberText(value: number | null): string {
  return value === null ? '' : String(value);
}

/**
 * Parses a number input's text for `name` and checks it against the schema. Empty text means null
 * for nullable fields. Returns the value, or the schema's message (which says how to fix it).
 */
export function parseNumberField(
  name: FieldName,
  text: string,
): { value: unknown } | { error: string } {
  const spec: FieldSpec = CONFIG_SCHEMA[name];
  const trimmed = text.trim();
  if (trimmed === '' && (spec.kind === 'int' || spec.kind === 'number') && spec.nullable)
    return checkField(name, null);
  const value = trimmed === '' ? Number.NaN : Number(trimmed);
  const checked = checkField(name, Number.isNaN(value) ? trimmed : value);
  return checked;
}

/** Field-level and cross-field problems of a whole config, by field name. */
export function configProblems(config: RunConfig): Map<string, string[]> {
  const problems = new Map<string, string[]>();
  for (const error of validateConfig(config).errors)
    problems.set(error.field, [...(problems.get(error.field) ?? []), error.message]);
  return problems;
}

/** A list field's checkboxes: every value the schema allows, in its order, checked when chosen. */
export function listChoices(
  field: FormField,
  chosen: readonly string[],
): { value: string; checked: boolean }[] {
  return field.choices.map((value) => ({ value, checked: chosen.includes(value) }));
}

/** The presets the form offers (src/run/presets.ts), in their order. */
export function presetNames(): PresetName[] {
  return [...PRESETS.keys()];
}

/**
 * A preset as the form's draft. The model stays: the model card picks it, and a preset that names
 * one would otherwise swap the loaded model without the card's memory check.
 */
export function presetDraft(name: PresetName, model: string): RunConfig {
  return { ...presetConfig(name), model };
}

/** Presets validated once: the form asks which one the draft is on every keystroke. */
let presetConfigs: Map<PresetName, RunConfig> | null = null;

/** The first preset whose every field but the model equals `config`'s, or null (a custom run). */
export function matchingPreset(config: RunConfig): PresetName | null {
  presetConfigs ??= new Map(presetNames().map((name) => [name, presetConfig(name)]));
  const same = (a: RunConfig, b: RunConfig) =>
    FIELD_NAMES.every(
      (name) => name === 'model' || JSON.stringify(a[name]) === JSON.stringify(b[name]),
    );
  return presetNames().find((name) => same(presetConfigs!.get(name)!, config)) ?? null;
}

/** Where the form stands, for its buttons and hint. */
export interface FormStanding {
  /** The draft's valid values differ from the applied config. */
  edited: boolean;
  /** Inputs whose text the schema refuses (they never reach the draft). */
  refused: number;
  /** Fields with a problem in the draft (a field's own or a clash between fields). */
  problems: number;
  /** Custom tests still being compiled by the sandbox. */
  checking: boolean;
  /** The run is idle, so a config can be applied. */
  canConfigure: boolean;
}

/**
 * Which of Apply and Revert can be pressed, and the hint beside them. Revert is on whenever the
 * form differs from the applied config, a refused input ("abc" in a number field) included: it is
 * how a teacher gets back to what runs. Apply needs a valid edit.
 */
export function formButtons(form: FormStanding): { apply: boolean; revert: boolean; hint: string } {
  const ok = form.refused === 0 && form.problems === 0 && !form.checking;
  return {
    apply: form.edited && ok && form.canConfigure,
    revert: form.edited || form.refused > 0,
    hint:
      form.checking && form.refused === 0 && form.problems === 0
        ? 'Checking the tests…'
        : !ok
          ? 'Fix the highlighted fields first.'
          : form.edited
            ? 'Apply restarts the run from step 0.'
            : 'Tap a field (or hover its name) for its help.',
  };
}

/**
 * A field's messages, each once: the refused input's and the draft's problems can say the same
 * thing (a custom task the schema refuses is both), and a message may hold several lines.
 */
export function fieldMessages(refused: string | undefined, problems: readonly string[]): string[] {
  const lines = [refused, ...problems]
    .filter((m): m is string => Boolean(m))
    .flatMap((m) => m.split('\n'))
    .filter((line) => line.trim() !== '');
  return [...new Set(lines)];
}
