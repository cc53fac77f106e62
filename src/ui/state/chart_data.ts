// The live charts' definitions and data, from the metrics history alone (no DOM, no uPlot), so the
// numbers each chart plots are tested in Node. uPlot takes column arrays: [steps, series1, …],
// with null for a gap (a skipped update has no loss; eval points exist only on eval steps).
import type { EvalReport } from '../../service/trainer_api.ts';
import type { StepMetrics } from '../../rl/types.ts';

/** One line (or point set) of a chart. */
export interface SeriesSpec {
  label: string;
  color: string;
  value: (metrics: StepMetrics, evalByStep: ReadonlyMap<number, number>) => number | null;
  /** Points only (no line): sparse series such as eval pass@1. */
  points?: boolean;
  dash?: number[];
  /**
   * Left out of the legend while it has no value at all: a metric that runs saved before it
   * existed lack, so their chart reads as it did then instead of listing an empty series.
   */
  optional?: boolean;
}

/** One chart. */
export interface ChartSpec {
  id: string;
  title: string;
  /** What it tells you, one line, shown under the title. */
  caption: string;
  series: SeriesSpec[];
  /** Fixed y range (rewards and rates live in [0, 1]). */
  range?: [number, number];
  /** A quantity that cannot be negative (tokens, turns, seconds, KL): its axis starts at 0. */
  nonNegative?: boolean;
  units?: string;
}

const perTurn = (m: StepMetrics) =>
  m.turns_mean > 0 ? m.generated_tokens_mean / m.turns_mean : null;

/** The charts, in display order. */
export const CHARTS: readonly ChartSpec[] = [
  {
    id: 'reward',
    title: 'Reward',
    caption:
      'mean and best reward per step, pass rate; held-out pass@1 (dots): the share of tries at tasks never trained on that pass, so 0 means none yet',
    range: [0, 1],
    series: [
      { label: 'mean', color: '#1f6feb', value: (m) => m.reward_mean },
      { label: 'max', color: '#8fb8f5', value: (m) => m.reward_max, dash: [4, 3] },
      { label: 'pass rate', color: '#2da44e', value: (m) => m.pass_rate },
      {
        label: 'eval pass@1',
        color: '#d4521a',
        value: (m, evals) => evals.get(m.step) ?? m.eval_pass_at_1,
        points: true,
      },
    ],
  },
  {
    id: 'loss',
    title: 'Loss',
    caption: 'the clipped policy-gradient loss + β·KL',
    series: [{ label: 'loss', color: '#8250df', value: (m) => m.loss }],
  },
  {
    id: 'kl',
    title: 'KL to reference',
    caption: 'k3 estimate: how far the policy moved from the base model',
    nonNegative: true, // k3 = r − 1 − log r ≥ 0
    series: [{ label: 'KL', color: '#bf3989', value: (m) => m.kl }],
  },
  {
    id: 'clip',
    title: 'Clip fraction',
    caption: 'share of action tokens whose ratio hit the clip range',
    range: [0, 1],
    series: [{ label: 'clipped', color: '#9a6700', value: (m) => m.clip_fraction }],
  },
  {
    id: 'tokens',
    title: 'Tokens',
    caption: 'generated tokens per turn and per episode',
    nonNegative: true,
    series: [
      { label: 'per turn', color: '#0969da', value: perTurn },
      {
        label: 'per episode',
        color: '#54aeff',
        value: (m) => m.generated_tokens_mean,
        dash: [4, 3],
      },
    ],
  },
  {
    id: 'turns',
    title: 'Turns per episode',
    caption: 'how many times the agent acted before it answered or ran out',
    nonNegative: true,
    series: [{ label: 'turns', color: '#1a7f37', value: (m) => m.turns_mean }],
  },
  // Tool use by tool. A run without search has searched = both = 0 (a flat line under "ran code");
  // runs saved before a metric existed have no value: a gap, not a zero.
  {
    id: 'tools',
    title: 'Tool use by tool',
    caption: 'share of episodes that searched the docs, that ran code, and that did both',
    range: [0, 1],
    series: [
      {
        label: 'searched',
        color: '#8250df',
        value: (m) => m.search_fraction ?? null,
        optional: true,
      },
      { label: 'ran code', color: '#0a7f8f', value: (m) => m.ran_code_fraction ?? null },
      {
        label: 'both',
        color: '#bc4c00',
        value: (m) => m.searched_and_ran_fraction ?? null,
        dash: [4, 3],
        optional: true,
      },
    ],
  },
  {
    id: 'time',
    title: 'Seconds per phase',
    caption: 'where a step spends its time',
    nonNegative: true,
    units: 's',
    series: [
      { label: 'generate', color: '#1f6feb', value: (m) => m.seconds_generate },
      { label: 'sandbox', color: '#d4521a', value: (m) => m.seconds_sandbox },
      { label: 'train', color: '#8250df', value: (m) => m.seconds_train },
    ],
  },
];

/**
 * The uPlot columns of `chart`: steps, then one array per series (null where there is no value).
 */
export function chartColumns(
  chart: ChartSpec,
  metrics: readonly StepMetrics[],
  evals: readonly EvalReport[] = [],
): (number | null)[][] {
  const evalByStep = new Map(evals.map((e) => [e.step, e.passAt1]));
  const finite = (value: number | null) =>
    value !== null && Number.isFinite(value) ? value : null;
  return [
    metrics.map((m) => m.step),
    ...chart.series.map((series) => metrics.map((m) => finite(series.value(m, evalByStep)))),
  ];
}

/** The series the legend lists: all but optional ones with no value in `columns`. */
export function legendSeries(
  chart: ChartSpec,
  columns: readonly (number | null)[][],
): { series: SeriesSpec; latest: number | null }[] {
  return chart.series.flatMap((series, i) => {
    const column = columns[i + 1] ?? [];
    const latest = [...column].reverse().find((v) => v !== null) ?? null;
    return series.optional && latest === null ? [] : [{ series, latest }];
  });
}

/** Whether a chart has at least one value to draw. */
export function hasPoints(columns: readonly (number | null)[][]): boolean {
  return columns.slice(1).some((column) => column.some((value) => value !== null));
}

/**
 * The y range `chart` draws, given its values' `min` and `max` (null before any value) and `nice`,
 * the padding uPlot gives a range: a fixed range as it is; [0, 1] before any value (an empty axis,
 * not −0.5..0.5); one value (min = max) padded by half its size; a non-negative quantity's axis
 * never below 0 (unless a value is: it is drawn, not cut off).
 */
export function yRange(
  chart: ChartSpec,
  min: number | null,
  max: number | null,
  nice: (min: number, max: number) => [number, number],
): [number, number] {
  if (chart.range) return chart.range;
  if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  let [low, high] =
    min === max
      ? [min - (Math.abs(min) || 1) * 0.5, max + (Math.abs(max) || 1) * 0.5]
      : nice(min, max);
  if (chart.nonNegative && min >= 0) {
    low = Math.max(0, low);
    if (max === 0) high = 1; // all zeros: 0..1, as before any value
  }
  return [low, high];
}

/**
 * The indices of `column`'s values that a line cannot show: those with no value on either side (a
 * series' first step, or a value between gaps). The chart draws a marker there, so one point is
 * not a blank chart.
 */
export function isolatedPoints(column: ArrayLike<number | null | undefined>): number[] {
  const has = (i: number) => i >= 0 && i < column.length && column[i] != null;
  const isolated: number[] = [];
  for (let i = 0; i < column.length; i++)
    if (has(i) && !has(i - 1) && !has(i + 1)) isolated.push(i);
  return isolated;
}

/** One run's data on a chart. */
export interface ChartRun {
  metrics: readonly StepMetrics[];
  evals?: readonly EvalReport[];
}

/**
 * The uPlot columns of `chart` for several runs drawn together: the steps any run has, then each
 * run's series in turn (null where a run has no such step: a shorter run ends early).
 */
export function comparisonColumns(
  chart: ChartSpec,
  runs: readonly ChartRun[],
): (number | null)[][] {
  const steps = [...new Set(runs.flatMap((run) => run.metrics.map((m) => m.step)))].sort(
    (a, b) => a - b,
  );
  const columns: (number | null)[][] = [steps];
  for (const run of runs) {
    const own = chartColumns(chart, run.metrics, run.evals);
    const at = new Map(own[0]!.map((step, i) => [step, i]));
    for (const column of own.slice(1))
      columns.push(
        steps.map((step) => {
          const i = at.get(step);
          return i === undefined ? null : (column[i] ?? null);
        }),
      );
  }
  return columns;
}

/** How many of the runs in `columns` (comparisonColumns) have a value on the chart. */
export function runsDrawn(chart: ChartSpec, columns: readonly (number | null)[][]): number {
  const width = chart.series.length;
  let drawn = 0;
  for (let start = 1; start < columns.length; start += width)
    if (columns.slice(start, start + width).some((column) => column.some((v) => v !== null)))
      drawn++;
  return drawn;
}

/** How an earlier run's lines differ from the current run's: dashed, and paler. */
export interface RunStyle {
  /** The dash pattern (null: the series' own, solid for most). */
  dash: number[] | null;
  /** How much of the series' colour is kept (the rest is white). */
  strength: number;
}

/** Line styles by a run's place: the current run, then the earlier runs overlaid. */
export const RUN_STYLES: readonly RunStyle[] = [
  { dash: null, strength: 1 },
  { dash: [7, 4], strength: 0.6 },
  { dash: [2, 3], strength: 0.6 },
  { dash: [10, 3, 2, 3], strength: 0.6 },
];

/** `color` (#rrggbb) mixed with white, keeping `strength` of it. */
export function paler(color: string, strength: number): string {
  const match = /^#([0-9a-f]{6})$/i.exec(color);
  if (!match || strength >= 1) return color;
  const value = Number.parseInt(match[1]!, 16);
  const mix = (shift: number) =>
    Math.round(((value >> shift) & 255) * strength + 255 * (1 - strength))
      .toString(16)
      .padStart(2, '0');
  return `#${mix(16)}${mix(8)}${mix(0)}`;
}
