// The RunConfig schema: defaults, type and range checks with fixes, unknown keys, cross-field
// rules.
import { describe, expect, it } from 'vitest';
import {
  CONFIG_SCHEMA,
  FIELD_NAMES,
  defaultConfig,
  effectiveClipEpsHigh,
} from '../../src/run/config.ts';
import { checkField, parseRunConfig, validateConfig } from '../../src/run/config_validation.ts';
import { LORA_TARGETS } from '../../src/model/lora_targets.ts';

describe('defaults', () => {
  it("reproduce the reference design's run where it has a value", () => {
    expect(defaultConfig()).toMatchObject({
      groupSize: 4,
      maxTurns: 3,
      steps: 30,
      lr: 5e-5,
      clipEps: 0.2,
      klCoef: 0.04,
      temperature: 1.0,
      maxNewTokens: 128,
      timeoutMs: 10_000,
      maxOutputChars: 500,
      ppoEpochs: 1,
      aggregation: 'seed',
      tasks: 'seed',
      customTasks: [],
      clipEpsHigh: null,
      gradClip: 1.0,
      parser: 'strict',
      backend: 'auto',
      model: 'demo',
      skipZeroStdGroups: false,
      rewards: { output_match: 1, tests: 1, final_answer: 0, format: 0 },
    });
    expect(effectiveClipEpsHigh(defaultConfig())).toBe(0.2);
    expect(parseRunConfig({})).toEqual(defaultConfig());
  });

  it('are fresh copies, and every default passes its own check', () => {
    const a = defaultConfig();
    a.loraTargets.pop();
    a.rewards.tests = 0;
    expect(defaultConfig().loraTargets).toHaveLength(7);
    expect(defaultConfig().rewards.tests).toBe(1);
    for (const name of FIELD_NAMES)
      expect(checkField(name, defaultConfig()[name]), name).toEqual({
        value: defaultConfig()[name],
      });
  });

  it("short keys are unique; LoRA targets are the model's", () => {
    const keys = FIELD_NAMES.map((name) => CONFIG_SCHEMA[name].key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(CONFIG_SCHEMA.loraTargets.values).toBe(LORA_TARGETS);
  });
});

describe('validation', () => {
  const errorsOf = (input: unknown) => validateConfig(input).errors.map((e) => e.message);

  it('wrong types and out-of-range values say how to fix', () => {
    expect(errorsOf({ groupSize: 1 })).toEqual([
      'groupSize must be a whole number from 2 to 64, got 1. Fix: set groupSize to a whole number from 2 to 64, e.g. 4.',
    ]);
    expect(errorsOf({ groupSize: '4' })[0]).toMatch(
      /groupSize must be a whole number, got "4". Fix: set groupSize/,
    );
    expect(errorsOf({ groupSize: 2.5 })[0]).toMatch(/must be a whole number/);
    expect(errorsOf({ loraAlpha: 0 })[0]).toMatch(
      /loraAlpha must be a number above 0 and at most 4096, got 0. Fix/,
    );
    expect(errorsOf({ lr: 0 })).toEqual([]); // a control run: the weights never change
    expect(errorsOf({ lr: -1e-3 })[0]).toMatch(/lr must be a number from 0 to 1, got -0.001. Fix/);
    expect(errorsOf({ temperature: Number.NaN })[0]).toMatch(/temperature must be a number/);
    expect(errorsOf({ aggregation: 'mean' })[0]).toMatch(
      /aggregation must be one of seed, token, dr_grpo, got "mean". Fix: set aggregation to one of "seed", "token", "dr_grpo"/,
    );
    expect(errorsOf({ skipZeroStdGroups: 'yes' })[0]).toMatch(/true or false/);
    expect(errorsOf({ loraTargets: ['q_proj', 'qkv'] })[0]).toMatch(
      /loraTargets must be a list of distinct names from q_proj.*Fix/,
    );
    expect(errorsOf({ loraTargets: [] })[0]).toMatch(/non-empty list/);
    expect(errorsOf({ model: '' })[0]).toMatch(
      /model must be non-empty text.*Fix: set model to e.g. "demo"/,
    );
    expect(errorsOf({ clipEpsHigh: -1 })[0]).toMatch(/or null for the default behaviour/);
    expect(errorsOf([])[0]).toMatch(/must be a JSON object.*Fix/);
  });

  it('unknown keys are errors, with a suggestion', () => {
    expect(errorsOf({ gropSize: 4 })[0]).toMatch(
      /unknown field "gropSize". Fix: did you mean groupSize\? remove it/,
    );
    expect(errorsOf({ zzzzzzzzzz: 1 })[0]).not.toMatch(/did you mean/);
  });

  it('reward weights merge with defaults; unknown parts and all-zero weights are errors', () => {
    expect(parseRunConfig({ rewards: { tests: 0 } }).rewards).toEqual({
      output_match: 1,
      tests: 0,
      final_answer: 0,
      format: 0,
      tool_use: 0,
    });
    expect(errorsOf({ rewards: { speed: 1 } })[0]).toMatch(/not speed/);
    expect(errorsOf({ rewards: { output_match: 0, tests: 0 } })[0]).toMatch(/at least one above 0/);
  });

  it('custom tasks: validated, normalized, and checked against the set and the weights', () => {
    const custom = [
      { prompt: 'Define add(a, b).', tests: 'assert add(1, 2) == 3', expectedOutput: null },
    ];
    expect(parseRunConfig({ tasks: 'custom', customTasks: custom }).customTasks).toEqual([
      { prompt: 'Define add(a, b).', tests: 'assert add(1, 2) == 3' },
    ]);
    expect(errorsOf({ customTasks: [{ prompt: '', expectedOutput: '1' }] })[0]).toMatch(
      /custom task 1: the prompt is empty. Fix/,
    );
    expect(errorsOf({ tasks: 'custom' })[0]).toMatch(/no custom tasks. Fix: add a custom task/);
    expect(errorsOf({ customTasks: custom, rewards: { tests: 0 } })[0]).toMatch(
      /custom\/1 has no reward.*Fix: give tests a weight above 0/,
    );
  });

  it('falls back field by field and collects every error; parseRunConfig throws them all', () => {
    const { config, errors } = validateConfig({ groupSize: 8, maxTurns: 0, steps: 'ten' });
    expect(config.groupSize).toBe(8);
    expect(config.maxTurns).toBe(3);
    expect(config.steps).toBe(30);
    expect(errors.map((e) => e.field)).toEqual(['maxTurns', 'steps']);
    expect(() => parseRunConfig({ maxTurns: 0, steps: 'ten' })).toThrow(
      /invalid run config:\n- maxTurns .*\n- steps /,
    );
  });
});

describe('tools', () => {
  const errorsOf = (input: unknown) => validateConfig(input).errors.map((e) => e.message);

  it("default to today's two actions; any order is stored in the canonical order", () => {
    expect(defaultConfig().tools).toEqual(['execute_code', 'finish']);
    expect(parseRunConfig({ tools: ['finish', 'search', 'execute_code'] }).tools).toEqual([
      'execute_code',
      'search',
      'finish',
    ]);
    expect(parseRunConfig({ tools: ['finish', 'execute_code'] }).tools).toEqual([
      'execute_code',
      'finish',
    ]);
  });

  it('must keep execute_code and finish, with the list that fixes it', () => {
    expect(errorsOf({ tools: ['search', 'finish'] })).toEqual([
      'tools must include execute_code and finish, got ["search","finish"]. Fix: add execute_code, e.g. ["execute_code","search","finish"].',
    ]);
    expect(errorsOf({ tools: ['execute_code'] })[0]).toMatch(
      /Fix: add finish, e.g. \["execute_code","finish"\]/,
    );
    expect(errorsOf({ tools: ['execute_code', 'browse', 'finish'] })[0]).toMatch(
      /tools must be a list of distinct names from execute_code, search, finish/,
    );
    expect(errorsOf({ tools: [] })[0]).toMatch(/non-empty list/);
    expect(validateConfig({ tools: ['search'] }).config.tools).toEqual(['execute_code', 'finish']);
  });

  it('a tool_use weight needs the search tool (it would only dilute the reward)', () => {
    expect(defaultConfig().rewards.tool_use).toBe(0);
    expect(errorsOf({ rewards: { tool_use: 0.5 } })).toEqual([
      'rewards.tool_use rewards searching, but tools has no search. Fix: add "search" to tools, or set rewards.tool_use to 0.',
    ]);
    expect(
      parseRunConfig({
        tasks: 'search',
        tools: ['execute_code', 'search', 'finish'],
        rewards: { tool_use: 0.5 },
      }).rewards.tool_use,
    ).toBe(0.5);
  });
});
