// Step metrics from hand-built records.
import { describe, expect, it } from 'vitest';
import { assignAdvantages } from '../../src/rl/advantage.ts';
import {
  combineDiagnostics,
  flattenMetrics,
  populationStd,
  stepMetrics,
  summarizeRun,
} from '../../src/rl/metrics.ts';
import { newTrajectory, type Trajectory, type Turn } from '../../src/rl/types.ts';

const turn = (tokens: number, type: 'execute_code' | 'finish' | 'format_error'): Turn => ({
  generated: { start: 10, end: 10 + tokens },
  observation: null,
  text: '',
  stop: 'eos',
  execution: null,
  action:
    type === 'execute_code'
      ? { type, code: 'x', unterminated: false }
      : type === 'finish'
        ? { type, answer: '1' }
        : { type, observation: 'o' },
});
const trajectory = (group: number, sample: number, fields: Partial<Trajectory>): Trajectory => ({
  ...newTrajectory({
    id: `0/${group}/${sample}`,
    taskId: `t${group}`,
    groupIndex: group,
    sampleIndex: sample,
    prompt: 'p',
  }),
  ...fields,
});

describe('stepMetrics', () => {
  const trajectories = [
    trajectory(0, 0, {
      reward: 1,
      passed: true,
      rewardParts: { output_match: 1 },
      turns: [turn(10, 'execute_code'), turn(4, 'finish')],
    }),
    trajectory(0, 1, {
      reward: 0,
      rewardParts: { output_match: 0 },
      turns: [turn(6, 'format_error'), turn(8, 'execute_code')],
      truncated: true,
    }),
    trajectory(1, 0, {
      reward: 0.5,
      rewardParts: { output_match: 1, tests: 0 },
      turns: [turn(20, 'execute_code')],
      timedOut: true,
      rewardErrors: [{ part: 'tests', message: 'x' }],
    }),
    trajectory(1, 1, {
      reward: 0.5,
      rewardParts: { output_match: 0, tests: 1 },
      turns: [turn(12, 'execute_code')],
      prefixBroken: true,
      tampered: ['reads interpreter frames (sys._getframe)'],
    }),
  ];
  const { groups } = assignAdvantages(trajectories);
  const update = {
    loss: 0.1,
    kl: 0.01,
    clipFraction: 0.2,
    ratioMean: 1.01,
    entropy: 1.5,
    gradNorm: 0.7,
    skipped: null,
    trainedTrajectories: 3,
  };
  const m = stepMetrics({
    step: 7,
    trajectories,
    groups,
    update,
    seconds: { generate: 2, sandbox: 0.5, train: 1 },
  });

  it('summarizes rewards, parts, pass rate and zero-std groups', () => {
    expect(m.step).toBe(7);
    expect(m.reward_mean).toBe(0.5);
    expect(m.reward_max).toBe(1);
    expect(m.reward_std).toBeCloseTo(Math.sqrt(0.125), 12); // deviations .5, -.5, 0, 0
    expect(m.reward_parts).toEqual({ output_match: 0.5, tests: 0.5 }); // tests averaged over the 2 that had it
    expect(m.pass_rate).toBe(0.25);
    expect(m.zero_std_fraction).toBe(0.5); // group 1 rewards are equal
  });

  it('counts tokens, turns, flags and errors; tokens/s over generation time', () => {
    expect(m.generated_tokens_mean).toBe((14 + 14 + 20 + 12) / 4);
    expect(m.turns_mean).toBe(1.5);
    expect(m.ran_code_fraction).toBe(1); // the format error of trajectory 1 is followed by code
    const guessed = trajectory(2, 0, { turns: [turn(5, 'finish')] });
    const noCode = trajectory(2, 1, { turns: [turn(5, 'format_error'), turn(3, 'finish')] });
    expect(
      stepMetrics({
        step: 1,
        trajectories: [...trajectories, guessed, noCode],
        groups,
        update,
        seconds: { generate: 1, sandbox: 0, train: 0 },
      }).ran_code_fraction,
    ).toBe(4 / 6);
    expect([m.timeouts, m.truncations, m.prefix_breaks, m.reward_errors, m.format_errors]).toEqual([
      1, 1, 1, 1, 1,
    ]);
    expect(m.reward_hacks).toBe(1);
    expect(m.tokens_per_s).toBe(60 / 2);
    expect([
      m.loss,
      m.kl,
      m.clip_fraction,
      m.grad_norm,
      m.update_skipped,
      m.trained_trajectories,
    ]).toEqual([0.1, 0.01, 0.2, 0.7, null, 3]);
  });

  it('tool use by tool: the shares that searched, and that searched and ran code', () => {
    const search = (recorded: boolean): Turn => ({
      ...turn(3, 'finish'),
      action: { type: 'tool_call', tool: 'search', input: 'choose k of n' },
      ...(recorded ? { tool: 'search' } : {}),
    });
    // a turn recorded through the registry under another tool name is not a search
    const other: Turn = {
      ...turn(3, 'finish'),
      action: { type: 'tool_call', tool: 'read_file', input: 'a' },
      tool: 'read_file',
    };
    const episodes = [
      trajectory(3, 0, { turns: [search(true), turn(8, 'execute_code'), turn(2, 'finish')] }),
      trajectory(3, 1, { turns: [search(false), turn(2, 'finish')] }), // saved before turn.tool
      trajectory(3, 2, { turns: [turn(8, 'execute_code'), search(true)] }),
      trajectory(3, 3, { turns: [other, turn(8, 'execute_code')] }),
      trajectory(3, 4, { turns: [turn(5, 'format_error')] }),
    ];
    const tools = stepMetrics({
      step: 1,
      trajectories: episodes,
      groups: [],
      update: null,
      seconds: { generate: 1, sandbox: 0, train: 0 },
    });
    expect(tools.search_fraction).toBe(3 / 5);
    expect(tools.searched_and_ran_fraction).toBe(2 / 5);
    expect(tools.ran_code_fraction).toBe(3 / 5);
    // runs without search have 0, not a missing value (the chart draws a flat line)
    expect([m.search_fraction, m.searched_and_ran_fraction]).toEqual([0, 0]);
  });

  it('a skipped update shows nulls and the reason', () => {
    const skipped = stepMetrics({
      step: 1,
      trajectories,
      groups,
      update: { ...update, loss: null, kl: null, skipped: 'non-finite loss' },
      seconds: { generate: 0, sandbox: 0, train: 0 },
    });
    expect([skipped.loss, skipped.kl, skipped.update_skipped, skipped.tokens_per_s]).toEqual([
      null,
      null,
      'non-finite loss',
      0,
    ]);
    expect(
      stepMetrics({
        step: 1,
        trajectories: [],
        groups: [],
        update: null,
        seconds: { generate: 0, sandbox: 0, train: 0 },
      }),
    ).toMatchObject({ reward_mean: 0, reward_max: 0, update_skipped: 'no update' });
  });

  it('flattens reward parts into columns', () => {
    const row = flattenMetrics(m);
    expect(row.reward_output_match).toBe(0.5);
    expect(row.reward_tests).toBe(0.5);
    expect('reward_parts' in row).toBe(false);
  });
});

describe('helpers', () => {
  it('combines micro-batch diagnostics weighted by action tokens', () => {
    expect(
      combineDiagnostics([
        { kl: 0.1, clipFraction: 0, ratioMean: 1, actionTokens: 30 },
        { kl: 0.3, clipFraction: 0.5, ratioMean: 1.2, actionTokens: 10 },
      ]),
    ).toEqual({
      kl: expect.closeTo(0.15, 12),
      clipFraction: 0.125,
      ratioMean: expect.closeTo(1.05, 12),
      actionTokens: 40,
    });
    expect(combineDiagnostics([])).toEqual({
      kl: 0,
      clipFraction: 0,
      ratioMean: 0,
      actionTokens: 0,
    });
  });

  it('population std and the run summary', () => {
    expect(populationStd([2, 4, 4, 4, 5, 5, 7, 9])).toBe(2);
    const history = [0.1, 0.2, 0.1, 0.2, 0.1, 0.5, 0.6, 0.5, 0.6, 0.5].map((r, i) => ({
      ...stepMetrics({
        step: i,
        trajectories: [],
        groups: [],
        update: null,
        seconds: { generate: 1, sandbox: 1, train: 1 },
      }),
      reward_mean: r,
    }));
    expect(summarizeRun(history)).toMatchObject({
      steps: 10,
      reward_mean_first: expect.closeTo(0.14, 12),
      reward_mean_last: expect.closeTo(0.54, 12),
      reward_gain: expect.closeTo(0.4, 12),
      seconds_total: 30,
    });
    // with timelines, the steps' wall times (an overlapped step's phases overlap)
    const timed = history.map((m) => ({ ...m, timeline: { seconds_wall: 2, spans: [] } }));
    expect(summarizeRun(timed).seconds_total).toBe(20);
  });
});
