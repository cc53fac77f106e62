// Validation of a RunConfig against its schema (config.ts): each field's value checked with a
// message that says how to fix it, unknown fields answered with the nearest name, the checks that
// hold between fields, and parsing a whole (partial) config. Separate from the schema table, which
// the UI and the link format read without these checks.
import { customTasksProblems, type CustomTaskInput } from '../tasks/custom.ts';
import { tasksFor } from '../tasks/registry.ts';
import { REWARDS, rewardCoverageProblems } from '../rl/rewards.ts';
import {
  CONFIG_SCHEMA,
  defaultConfig,
  FIELD_NAMES,
  type FieldName,
  type FieldSpec,
  type RunConfig,
} from './config.ts';

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
      if (name === 'tools') return checkTools(value as string[], spec.values);
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

/** Tools every run needs: without execute_code nothing runs, without finish no episode answers. */
const REQUIRED_TOOLS = ['execute_code', 'finish'];

/**
 * The run's tools in the schema's order whatever order they came in, so equal tool sets give the
 * same system prompt and the same link.
 */
function checkTools(
  tools: readonly string[],
  order: readonly string[],
): { value: string[] } | { error: string } {
  const missing = REQUIRED_TOOLS.filter((tool) => !tools.includes(tool));
  if (missing.length > 0) {
    const fixed = order.filter((tool) => tools.includes(tool) || missing.includes(tool));
    return {
      error: `tools must include ${REQUIRED_TOOLS.join(' and ')}, got ${show(tools)}. Fix: add ${missing.join(' and ')}, e.g. ${show(fixed)}.`,
    };
  }
  return { value: order.filter((tool) => tools.includes(tool)) };
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
  const errors = rewardCoverageProblems(
    tasksFor(config.tasks, config.customTasks),
    config.rewards,
  ).map((message) => ({ field: 'rewards', message }));
  // tool_use scores searching, so without the search tool it is 0 for every episode: a weight on it
  // only dilutes the reward.
  if ((config.rewards.tool_use ?? 0) > 0 && !config.tools.includes('search'))
    errors.push({
      field: 'rewards',
      message:
        'rewards.tool_use rewards searching, but tools has no search. Fix: add "search" to tools, or set rewards.tool_use to 0.',
    });
  return errors;
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
