// The pure parts behind the panels: the config form derived from the schema, the trajectory
// viewer's grouping/filters/mask split, chart columns, error explanations and model choices.
import { describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA, FIELD_NAMES, defaultConfig } from '../../src/run/config.ts';
import { CHARTS, chartColumns, hasPoints } from '../../src/ui/state/chart_data.ts';
import {
  configProblems,
  formFields,
  humanize,
  parseNumberField,
} from '../../src/ui/state/config_fields.ts';
import { explainError } from '../../src/ui/state/errors.ts';
import { backendLabel, formatSigned, formatValue } from '../../src/ui/state/format.ts';
import { HUB_PRESETS, isHubId, modelChoice } from '../../src/ui/state/models.ts';
import {
  filterSamples,
  groupTrajectories,
  maskSummary,
  outcomeBadges,
  turnViews,
} from '../../src/ui/state/trajectory_model.ts';
import { buildMetrics, buildTrajectory } from '../helpers/records.ts';

describe('config form', () => {
  it('has exactly one field per schema entry, in named sections, model outside the generic form', () => {
    const fields = formFields();
    expect(fields.map((f) => f.name).sort()).toEqual([...FIELD_NAMES].sort());
    expect(fields.find((f) => f.name === 'model')!.generic).toBe(false);
    expect(fields.find((f) => f.name === 'aggregation')).toMatchObject({
      input: 'select',
      choices: CONFIG_SCHEMA.aggregation.values,
      section: 'GRPO update',
    });
    expect(fields.find((f) => f.name === 'clipEps')!.label).toBe('Clip ε');
    expect(fields.find((f) => f.name === 'customTasks')!.input).toBe('tasks');
    expect(fields[0]!.section).toBe('Tasks');
    expect(humanize('maxOutputChars')).toBe('Max output chars');
  });

  it("parses number text with the schema's checks and messages", () => {
    expect(parseNumberField('groupSize', ' 8 ')).toEqual({ value: 8 });
    expect(parseNumberField('groupSize', '2.5')).toEqual({
      error: expect.stringMatching(/groupSize must be a whole number.*Fix:/),
    });
    expect(parseNumberField('groupSize', '1')).toEqual({
      error: expect.stringMatching(/from 2 to 64/),
    });
    expect(parseNumberField('lr', 'abc')).toEqual({
      error: expect.stringMatching(/lr must be a number/),
    });
    expect(parseNumberField('lr', '1e-4')).toEqual({ value: 1e-4 });
    expect(parseNumberField('promptsPerStep', '')).toEqual({ value: null });
    expect(parseNumberField('steps', '')).toHaveProperty('error');
  });

  it('reports cross-field problems by field', () => {
    expect(configProblems(defaultConfig()).size).toBe(0);
    const problems = configProblems({ ...defaultConfig(), tasks: 'custom', customTasks: [] });
    expect(problems.get('tasks')?.[0]).toMatch(/no custom tasks.*Fix:/);
  });
});

const trajectories = [0, 1, 2, 3].map((sampleIndex) =>
  buildTrajectory({
    step: 1,
    taskId: 'seed/sort',
    prompt: 'Sort it.',
    groupIndex: 0,
    sampleIndex,
    reward: [0, 1, 0.5, 0][sampleIndex]!,
    timedOut: sampleIndex === 3,
    finalAnswer: sampleIndex === 3 ? null : 'x',
    turns:
      sampleIndex === 3
        ? [
            {
              text: '```python\nwhile True: pass\n```',
              code: 'while True: pass',
              result: { ok: false, timedOut: true, observation: 'TIMEOUT' },
            },
          ]
        : [
            { text: '```python\nprint(1)\n```', code: 'print(1)', result: { observation: '1\n' } },
            { text: 'FINAL ANSWER: x', code: null },
          ],
  }),
);

describe('trajectory viewer model', () => {
  const records = trajectories.map((t) => t.trajectory);

  it('groups by prompt and filters failures, timeouts, best and worst', () => {
    const other = { ...records[0]!, id: '1/1/0', groupIndex: 1, taskId: 'seed/fibonacci' };
    const groups = groupTrajectories([other, records[2]!, records[0]!, records[1]!, records[3]!]);
    expect(groups.map((g) => g.taskId)).toEqual(['seed/sort', 'seed/fibonacci']);
    expect(groups[0]!.samples.map((t) => t.sampleIndex)).toEqual([0, 1, 2, 3]);
    expect(filterSamples(records, 'failures').map((t) => t.sampleIndex)).toEqual([0, 2, 3]);
    expect(filterSamples(records, 'timeouts').map((t) => t.sampleIndex)).toEqual([3]);
    expect(filterSamples(records, 'best').map((t) => t.sampleIndex)).toEqual([1]);
    expect(filterSamples(records, 'worst').map((t) => t.sampleIndex)).toEqual([0]);
    expect(filterSamples([], 'best')).toEqual([]);
  });

  it('badges outcomes', () => {
    expect(outcomeBadges(records[1]!).map((b) => b.label)).toEqual(['passed']);
    expect(outcomeBadges(records[3]!).map((b) => b.label)).toEqual(['failed', 'timeout']);
  });

  it('badges and filters tampered episodes, saying what was seen', () => {
    const hacked = {
      ...records[2]!,
      tampered: ['redefines builtin exec', 'exits before its tests'],
    };
    const badges = outcomeBadges(hacked);
    expect(badges.map((b) => b.label)).toEqual(['failed', 'tampered']);
    expect(badges[1]!.detail).toBe(
      'Reward hacking caught: the program tried to change how it is judged, so its tests scored 0 (the judge saw: redefines builtin exec; exits before its tests).',
    );
    expect(filterSamples([records[0]!, hacked, records[1]!], 'tampered')).toEqual([hacked]);
    expect(filterSamples(records, 'tampered')).toEqual([]);
  });

  it('splits turns into generated tokens (mask 1) and shown tokens (mask 0)', () => {
    const { trajectory, tokenTexts } = trajectories[1]!;
    const exact = turnViews(trajectory, tokenTexts);
    expect(exact).toHaveLength(2);
    expect(exact[0]!.generated.map((s) => s.text).join('')).toBe('```python\nprint(1)\n```');
    expect(exact[0]!.generated.every((s) => s.kind === 'generated')).toBe(true);
    expect(exact[0]!.observationTokens!.every((s) => s.kind === 'shown')).toBe(true);
    expect(exact[0]!.observationTokens!.map((s) => s.text).join('')).toContain(
      'Execution result:\n1\n',
    );
    expect(exact[0]).toMatchObject({ code: 'print(1)', observation: '1\n', outcome: 'ok' });
    expect(exact[1]).toMatchObject({ outcome: 'answer', answer: 'x', observationTokens: null });
    // Without token texts: one generated segment per turn, no observation tokens.
    const rough = turnViews(trajectory, null);
    expect(rough[0]!.generated).toEqual([{ text: '```python\nprint(1)\n```', kind: 'generated' }]);
    expect(rough[0]!.observationTokens).toBeNull();
    expect(turnViews(trajectories[3]!.trajectory)[0]!.outcome).toBe('timeout');
    const { total, trained } = maskSummary(trajectory);
    expect(trained).toBe(trajectory.actionMask.filter((m) => m === 1).length);
    expect(total).toBe(trajectory.ids.length);
  });
});

describe('chart columns', () => {
  it('plots steps against each series, with gaps for nulls and eval points where evaluated', () => {
    const metrics = [
      buildMetrics(1, { loss: 0.5 }),
      buildMetrics(2, { loss: null, update_skipped: 'non-finite' }),
      buildMetrics(3, { loss: 0.25, eval_pass_at_1: 0.4 }),
    ];
    const reward = CHARTS.find((c) => c.id === 'reward')!;
    const columns = chartColumns(reward, metrics, [{ step: 2, passAt1: 0.3, perTask: {} }]);
    expect(columns[0]).toEqual([1, 2, 3]);
    expect(columns[reward.series.findIndex((s) => s.label === 'eval pass@1') + 1]).toEqual([
      null,
      0.3,
      0.4,
    ]);
    const loss = chartColumns(CHARTS.find((c) => c.id === 'loss')!, metrics);
    expect(loss[1]).toEqual([0.5, null, 0.25]);
    const tokens = chartColumns(CHARTS.find((c) => c.id === 'tokens')!, [
      buildMetrics(1, { generated_tokens_mean: 90, turns_mean: 1.5 }),
    ]);
    expect(tokens[1]).toEqual([60]);
    expect(hasPoints(chartColumns(CHARTS.find((c) => c.id === 'loss')!, []))).toBe(false);
    const tools = CHARTS.find((c) => c.id === 'tools')!;
    const legacy = { ...buildMetrics(2) } as Partial<ReturnType<typeof buildMetrics>>;
    delete legacy.ran_code_fraction; // a run saved before the metric existed
    expect(
      chartColumns(tools, [
        buildMetrics(1, { ran_code_fraction: 0.5 }),
        legacy as ReturnType<typeof buildMetrics>,
      ])[tools.series.findIndex((s) => s.label === 'ran code') + 1],
    ).toEqual([0.5, null]);
    expect(CHARTS.map((c) => c.id)).toEqual([
      'reward',
      'loss',
      'kl',
      'clip',
      'tokens',
      'turns',
      'tools',
      'time',
    ]);
  });
});

describe('errors', () => {
  it('keeps our own "Fix:" and classifies by kind', () => {
    const hub = explainError(
      new Error(
        'cannot reach the hub at https://huggingface.co to get config.json of a/b (Failed to fetch). Fix: check the connection.',
      ),
      'loading the model',
    );
    expect(hub).toMatchObject({
      kind: 'network',
      title: 'Cannot reach the model hub',
      fix: 'check the connection.',
      during: 'loading the model',
    });
    expect(hub.message).not.toContain('Fix:');
    expect(
      explainError(Object.assign(new Error('x'), { name: 'QuotaExceededError' }), 'saving').kind,
    ).toBe('storage');
    expect(explainError(new Error('Pyodide failed to start'), 'starting').kind).toBe('sandbox');
    const other = explainError('weird', 'training');
    expect(other).toMatchObject({ kind: 'other', message: 'weird' });
    expect(other.fix).toMatch(/reload/);
  });
});

describe('models', () => {
  it('resolves config model names to worker choices', () => {
    const context = { hubBaseUrl: 'https://huggingface.co', picked: null };
    expect(modelChoice('demo', context)).toEqual({ kind: 'demo' });
    expect(modelChoice(HUB_PRESETS[0]!.repo, context)).toEqual({
      kind: 'hub',
      repo: 'HuggingFaceTB/SmolLM2-135M-Instruct',
    });
    expect(modelChoice('a/b', { ...context, hubBaseUrl: 'http://127.0.0.1:9/' })).toEqual({
      kind: 'hub',
      repo: 'a/b',
      baseUrl: 'http://127.0.0.1:9',
    });
    const files = [new File(['{}'], 'config.json')];
    expect(modelChoice('tiny', { ...context, picked: { name: 'tiny', files } })).toEqual({
      kind: 'files',
      files,
    });
    expect(() => modelChoice('tiny', context)).toThrow(/not loaded in this tab.*Fix:/);
    expect(isHubId('owner/name')).toBe(true);
    expect(isHubId('folder')).toBe(false);
  });
});

describe('format', () => {
  it('labels backends and numbers', () => {
    const base = { adapter: null, simd: null, fma: null, threads: null, skipped: [] };
    expect(backendLabel({ ...base, name: 'wasm', simd: true, fma: false, threads: 1 })).toBe(
      'WASM · SIMD · 1 thread',
    );
    expect(backendLabel({ ...base, name: 'wasm', simd: true, fma: true, threads: 1 })).toBe(
      'WASM · SIMD + FMA · 1 thread',
    ); // relaxed SIMD
    expect(
      backendLabel({
        ...base,
        name: 'webgpu',
        adapter: {
          vendor: 'google',
          architecture: 'swiftshader',
          device: '',
          description: '',
          isFallback: true,
        },
      }),
    ).toBe('WebGPU · google swiftshader (software)');
    expect(backendLabel({ ...base, name: 'cpu' })).toBe('CPU (plain JavaScript)');
    expect([
      formatValue(null),
      formatValue(0.123456),
      formatValue(0.00002),
      formatValue(1234.5),
    ]).toEqual(['–', '0.123', '2.0e-5', '1235']);
    expect([formatSigned(0.8660254), formatSigned(-0.5), formatSigned(0.001)]).toEqual([
      '+0.87',
      '−0.50',
      '0',
    ]);
  });
});
