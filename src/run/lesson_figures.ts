// The figures a lesson compares, each computed from one run's metrics lines (and its config, for
// the episodes it sampled): pure functions, so `cli lesson`, the page's lesson cards and the lesson
// tests read the same numbers. "First" and "last" are the first and last 5 steps, as the CLI's
// run summary counts them (summarizeRun in src/rl/metrics.ts).
import { mean, summarizeRun } from '../rl/metrics.ts';
import type { StepMetrics } from '../rl/types.ts';
import type { RunConfig } from './config.ts';

/** Steps at each end of a run that "first" and "last" average over. */
export const FIGURE_WINDOW = 5;

/** How a figure reads: a share (0..1), a plain number, or seconds. */
export type FigureUnit = 'share' | 'number' | 'seconds';

/** One compared figure. */
export interface LessonFigure {
  /** Its key in `cli lesson`'s summary. */
  id: string;
  /** What it is, in words (the cards and the CLI summary). */
  label: string;
  unit: FigureUnit;
  /** Its value for one run (null when the run has nothing to say: no update, no such part). */
  value(metrics: readonly StepMetrics[], config: RunConfig): number | null;
}

const last = (metrics: readonly StepMetrics[]) => metrics.slice(-FIGURE_WINDOW);
const first = (metrics: readonly StepMetrics[]) => metrics.slice(0, FIGURE_WINDOW);
/** The mean of the values that exist, or null when none does. */
function meanOf(values: readonly (number | null | undefined)[]): number | null {
  const present = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return present.length === 0 ? null : mean(present);
}
/** A reward part's mean score over some steps (null when the part never applied). */
const part = (metrics: readonly StepMetrics[], name: string) =>
  meanOf(metrics.map((m) => m.reward_parts[name]));

const figureList = [
  {
    id: 'reward_gain',
    label: 'reward gain (last 5 steps − first 5)',
    unit: 'number',
    value: (metrics) => (metrics.length === 0 ? null : summarizeRun(metrics).reward_gain!),
  },
  {
    id: 'reward_last',
    label: 'mean reward, last 5 steps',
    unit: 'number',
    value: (metrics) => meanOf(last(metrics).map((m) => m.reward_mean)),
  },
  {
    id: 'pass_last',
    label: 'pass rate, last 5 steps',
    unit: 'share',
    value: (metrics) => meanOf(last(metrics).map((m) => m.pass_rate)),
  },
  {
    id: 'zero_signal',
    label: 'share of zero-signal groups (all rewards equal), every step',
    unit: 'share',
    value: (metrics) => meanOf(metrics.map((m) => m.zero_std_fraction)),
  },
  {
    // learning per episode: the same gain from fewer episodes is more learning per episode
    id: 'gain_per_100_episodes',
    label: 'reward gain per 100 episodes sampled',
    unit: 'number',
    value: (metrics, config) => {
      if (metrics.length === 0 || config.promptsPerStep === null) return null;
      const episodes = metrics.length * config.promptsPerStep * config.groupSize;
      return (summarizeRun(metrics).reward_gain! / episodes) * 100;
    },
  },
  {
    id: 'kl_last',
    label: 'KL to the reference, last 5 steps',
    unit: 'number',
    value: (metrics) => meanOf(last(metrics).map((m) => m.kl)),
  },
  {
    id: 'tests_first',
    label: 'hidden tests passed, first 5 steps',
    unit: 'share',
    value: (metrics) => part(first(metrics), 'tests'),
  },
  {
    id: 'tests_last',
    label: 'hidden tests passed, last 5 steps',
    unit: 'share',
    value: (metrics) => part(last(metrics), 'tests'),
  },
  {
    id: 'ran_code_last',
    label: 'share of episodes that ran code, last 5 steps',
    unit: 'share',
    value: (metrics) => meanOf(last(metrics).map((m) => m.ran_code_fraction)),
  },
  {
    id: 'search_last',
    label: 'share of episodes that searched, last 5 steps',
    unit: 'share',
    value: (metrics) => meanOf(last(metrics).map((m) => m.search_fraction ?? 0)),
  },
  {
    id: 'seconds_total',
    label: 'wall time of the steps',
    unit: 'seconds',
    value: (metrics) => (metrics.length === 0 ? null : summarizeRun(metrics).seconds_total!),
  },
  {
    id: 'overlap',
    label: 'share of a step where rollout and update overlapped',
    unit: 'share',
    value: (metrics) => meanOf(metrics.map((m) => m.overlap_fraction ?? 0)),
  },
] as const satisfies readonly LessonFigure[];

/** A figure's id. */
export type FigureId = (typeof figureList)[number]['id'];

/** The figures by id. */
export const FIGURES: ReadonlyMap<FigureId, LessonFigure> = new Map(
  figureList.map((figure) => [figure.id, figure as LessonFigure]),
);

/** A figure's value for one run. */
export function figureValue(
  id: FigureId,
  metrics: readonly StepMetrics[],
  config: RunConfig,
): number | null {
  return FIGURES.get(id)!.value(metrics, config);
}

/** A figure's value as the cards and the docs write it: 0.42, 42%, 83 s. */
export function formatFigure(id: FigureId, value: number | null): string {
  if (value === null) return '–';
  switch (FIGURES.get(id)!.unit) {
    case 'share':
      return `${Math.round(value * 100)}%`;
    case 'seconds':
      return `${Math.round(value)} s`;
    case 'number':
      return Math.abs(value) < 0.01 && value !== 0 ? value.toExponential(1) : value.toFixed(2);
  }
}
