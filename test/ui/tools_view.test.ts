// The page's side of tools: the trajectory viewer's search turns (their own tool, input
// and results, old trajectories still readable), the "Tool use by tool" chart, the tools field of
// the configuration form, presets, and a lesson link that turns search on.
import { describe, expect, it } from 'vitest';
import { TOOL_NAMES } from '../../src/env/tools.ts';
import { CONFIG_SCHEMA, defaultConfig } from '../../src/run/config.ts';
import { checkField } from '../../src/run/config_validation.ts';
import { decodeLink, encodeLink } from '../../src/run/link.ts';
import { PRESETS, presetConfig } from '../../src/run/presets.ts';
import { layoutProblems, type Trajectory } from '../../src/rl/types.ts';
import { CHARTS, chartColumns, legendSeries } from '../../src/ui/state/chart_data.ts';
import {
  formFields,
  listChoices,
  matchingPreset,
  presetDraft,
  presetNames,
} from '../../src/ui/state/config_fields.ts';
import { outcomeBadges, turnTool, turnViews } from '../../src/ui/state/trajectory_model.ts';
import { buildMetrics, buildTrajectory } from '../helpers/records.ts';
import { FakeTrainer } from './fake_trainer.ts';
import { buildToolTrajectory, searchResults } from './tool_trajectories.ts';

const RESULTS = searchResults([
  ['math.comb(n, k)', 'Number of ways to choose k items from n without order.'],
  ['math.perm(n, k=None)', 'Number of ways to choose k items from n with order.'],
]);

const searched = buildToolTrajectory({
  step: 1,
  taskId: 'search/comb',
  prompt: 'Print the number of ways to choose 3 items from 10 without order.',
  groupIndex: 0,
  sampleIndex: 0,
  reward: 1,
  passed: true,
  turns: [
    { kind: 'format', text: 'I will look it up.', hint: 'Reply with a code block.' },
    { kind: 'search', query: 'choose k items from n', results: RESULTS },
    { kind: 'code', code: 'import math\nprint(math.comb(10, 3))', output: '120\n' },
    { kind: 'answer', answer: '120' },
  ],
});

describe('trajectory viewer: tools', () => {
  it('shows a search turn as a call with its query and its results (mask 0), apart from code', () => {
    const { trajectory, tokenTexts } = searched;
    expect(layoutProblems(trajectory)).toEqual([]);
    const views = turnViews(trajectory, tokenTexts);
    expect(views.map((v) => [v.tool, v.outcome])).toEqual([
      [null, 'format'],
      ['search', 'tool'],
      ['execute_code', 'ok'],
      ['finish', 'answer'],
    ]);
    const search = views[1]!;
    expect(search).toMatchObject({
      callInput: 'choose k items from n',
      code: null,
      observation: RESULTS,
      answer: null,
    });
    expect(search.generated.map((s) => s.text).join('')).toBe('SEARCH: choose k items from n');
    expect(search.generated.every((s) => s.kind === 'generated')).toBe(true);
    // The results are what the model was shown, never trained on.
    expect(search.observationTokens!.every((s) => s.kind === 'shown')).toBe(true);
    expect(search.observationTokens!.map((s) => s.text).join('')).toContain(RESULTS);
    expect(views[2]).toMatchObject({ callInput: null, observation: '120\n' });
    // Without token texts the results still show, as one text.
    expect(turnViews(trajectory, null)[1]).toMatchObject({
      observation: RESULTS,
      observationTokens: null,
    });
  });

  it('badges the episodes that searched, with a count, in the tool tone', () => {
    const badges = outcomeBadges(searched.trajectory);
    expect(badges.find((b) => b.tone === 'tool')).toEqual({ label: 'search', tone: 'tool' });
    const twice: Trajectory = {
      ...searched.trajectory,
      turns: [searched.trajectory.turns[1]!, ...searched.trajectory.turns.slice(1)],
    };
    expect(outcomeBadges(twice).filter((b) => b.tone === 'tool')).toEqual([
      { label: 'search ×2', tone: 'tool' },
    ]);
  });

  it('still renders trajectories saved before tools were recorded', () => {
    const old = buildTrajectory({
      step: 1,
      taskId: 'seed/sort',
      prompt: 'Sort it.',
      groupIndex: 0,
      sampleIndex: 0,
      reward: 1,
      finalAnswer: 'x',
      turns: [
        { text: '```python\nprint(1)\n```', code: 'print(1)', result: { observation: '1\n' } },
        { text: 'FINAL ANSWER: x', code: null },
      ],
    }).trajectory;
    expect(old.turns.every((turn) => !('tool' in turn))).toBe(true);
    expect(turnViews(old).map((v) => [v.tool, v.outcome, v.callInput])).toEqual([
      ['execute_code', 'ok', null],
      ['finish', 'answer', null],
    ]);
    expect(outcomeBadges(old).map((b) => b.label)).toEqual(['passed']);
    // A tool call whose record lacks `tool` and `call`: named from the action, no result to show.
    const bare = { ...searched.trajectory.turns[1]! };
    delete bare.tool;
    delete bare.call;
    expect(turnTool(bare)).toBe('search');
    const view = turnViews({ ...searched.trajectory, turns: [bare] })[0]!;
    expect(view).toMatchObject({
      tool: 'search',
      outcome: 'tool',
      callInput: 'choose k items from n',
      observation: null,
    });
  });
});

describe('chart: tool use by tool', () => {
  const tools = CHARTS.find((c) => c.id === 'tools')!;
  const column = (label: string) => tools.series.findIndex((s) => s.label === label) + 1;

  it('plots the shares that searched, ran code and did both; missing values are gaps', () => {
    expect(tools.title).toBe('Tool use by tool');
    expect(tools.series.map((s) => s.label)).toEqual(['searched', 'ran code', 'both']);
    expect(tools.range).toEqual([0, 1]);
    const legacy = buildMetrics(2, { ran_code_fraction: 0.6 });
    delete legacy.search_fraction;
    delete legacy.searched_and_ran_fraction;
    const columns = chartColumns(tools, [
      buildMetrics(1, {
        search_fraction: 0.25,
        ran_code_fraction: 0.5,
        searched_and_ran_fraction: 0.125,
      }),
      legacy,
    ]);
    expect(columns[column('searched')]).toEqual([0.25, null]);
    expect(columns[column('ran code')]).toEqual([0.5, 0.6]);
    expect(columns[column('both')]).toEqual([0.125, null]);
  });

  it("keeps a run without search readable: an old run's legend lists only ran code", () => {
    const old = [1, 2].map((step) => {
      const m = buildMetrics(step, { ran_code_fraction: 0.5 + 0.1 * step });
      delete m.search_fraction;
      delete m.searched_and_ran_fraction;
      return m;
    });
    const legend = legendSeries(tools, chartColumns(tools, old));
    expect(legend.map((l) => [l.series.label, l.latest])).toEqual([['ran code', 0.7]]);
    // search off in a current run: the metrics say 0, and 0 is shown (it is a measurement)
    const off = [buildMetrics(1, { search_fraction: 0, searched_and_ran_fraction: 0 })];
    expect(legendSeries(tools, chartColumns(tools, off)).map((l) => l.latest)).toEqual([
      0, 0.75, 0,
    ]);
    // a series that is not optional stays listed with no value yet (eval pass@1 before its eval)
    const reward = CHARTS.find((c) => c.id === 'reward')!;
    expect(
      legendSeries(reward, chartColumns(reward, [buildMetrics(1)])).map((l) => l.series.label),
    ).toContain('eval pass@1');
  });
});

describe('configuration: tools', () => {
  const field = formFields().find((f) => f.name === 'tools')!;

  it("lists the schema's tools as checkboxes with the schema's help", () => {
    expect(field).toMatchObject({
      label: 'Tools',
      input: 'multi',
      choices: TOOL_NAMES,
      section: 'Rollout',
      help: CONFIG_SCHEMA.tools.help,
      generic: true,
    });
    expect(listChoices(field, defaultConfig().tools)).toEqual([
      { value: 'execute_code', checked: true },
      { value: 'search', checked: false },
      { value: 'finish', checked: true },
    ]);
  });

  it('a lesson link with tools round-trips into the form and back out', async () => {
    const link = await decodeLink('https://x.test/#v=1&seed=0&tools=execute_code,search,finish');
    expect(link.fallbacks).toEqual([]);
    expect(link.config.tools).toEqual(['execute_code', 'search', 'finish']);
    // The form's draft is the controller's config (configPanel clones it): every box ticked.
    expect(listChoices(field, structuredClone(link.config).tools)).toEqual(
      TOOL_NAMES.map((value) => ({ value, checked: true })),
    );
    const fragment = await encodeLink(link.config);
    expect(fragment).toContain('&tools=execute_code,search,finish');
    expect((await decodeLink(fragment)).config).toEqual(link.config);
    // The default run's link says nothing about tools (today's links are unchanged).
    expect(await encodeLink({ ...defaultConfig(), seed: 0 })).toBe('#v=2&p=reference&seed=0');
    // Any order ticks the same boxes and makes the same link.
    const shuffled = await decodeLink('#v=1&seed=0&tools=search,finish,execute_code');
    expect(await encodeLink(shuffled.config)).toBe(fragment);
  });

  it('unticking a required tool shows the validation message the form puts under the field', () => {
    const unticked = listChoices(field, TOOL_NAMES.slice())
      .filter((c) => c.value !== 'finish')
      .map((c) => c.value);
    expect(checkField('tools', unticked)).toEqual({
      error: expect.stringMatching(/tools must include execute_code and finish.*Fix: add finish/),
    });
  });

  it('a link naming an unknown tool opens with the default tools and says why', async () => {
    const link = await decodeLink('#v=1&seed=0&tools=execute_code,browse,finish');
    expect(link.config.tools).toEqual(CONFIG_SCHEMA.tools.default);
    expect(link.fallbacks.map((f) => f.field)).toEqual(['tools']);
    expect(link.fallbacks[0]!.reason).toMatch(/execute_code, search, finish/);
  });
});

describe('presets', () => {
  it('offers every preset, and names the one the form holds (the model aside)', async () => {
    expect(presetNames()).toEqual([...PRESETS.keys()]);
    // the tools preset is offered, and picking it ticks search
    expect(presetNames()).toContain('search');
    expect(
      listChoices(formFields().find((f) => f.name === 'tools')!, presetConfig('search').tools),
    ).toContainEqual({ value: 'search', checked: true });
    for (const name of presetNames()) {
      expect(matchingPreset(presetConfig(name))).toBe(name);
      // a preset's link reopens as that preset
      const reopened = await decodeLink(await encodeLink(presetConfig(name)));
      expect(matchingPreset(reopened.config)).toBe(name);
    }
    const draft = presetDraft('default', 'HuggingFaceTB/SmolLM2-135M-Instruct');
    expect(draft.model).toBe('HuggingFaceTB/SmolLM2-135M-Instruct');
    expect(matchingPreset(draft)).toBe('default');
    expect(matchingPreset({ ...draft, groupSize: draft.groupSize + 1 })).toBeNull();
  });
});

describe('fake trainer with search on', () => {
  it('rolls out search turns the viewer reads and measures the tool shares', async () => {
    const trainer = new FakeTrainer();
    const config = {
      ...presetConfig('default'),
      seed: 3,
      tools: [...TOOL_NAMES],
    };
    await trainer.configure(await encodeLink(config));
    let rollout: Trajectory[] = [];
    const metrics = await trainer.runStep((report) => {
      if (report.phase === 'rollout') rollout = report.trajectories;
    });
    const searchedCount = rollout.filter((t) =>
      turnViews(t).some((v) => v.tool === 'search'),
    ).length;
    expect(searchedCount).toBeGreaterThan(0);
    for (const t of rollout) expect(layoutProblems(t)).toEqual([]);
    expect(metrics.search_fraction).toBeCloseTo(searchedCount / rollout.length);
    expect(metrics.searched_and_ran_fraction).toBeLessThanOrEqual(metrics.search_fraction!);
    // search off: nobody searches
    await trainer.configure(await encodeLink(presetConfig('default')));
    expect((await trainer.runStep(() => {})).search_fraction).toBe(0);
  });
});
