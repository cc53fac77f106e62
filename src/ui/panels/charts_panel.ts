// Live charts (uPlot): one small chart per ChartSpec (chart_data.ts), redrawn with setData when a
// step finishes. Earlier runs overlaid (run_comparison.ts) are drawn on every chart, dashed and
// paler, under a legend that names each run and what it set differently. Each chart element carries
// `data-points` (values plotted) and `data-series` (runs drawn) for automation.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import {
  CHARTS,
  chartColumns,
  comparisonColumns,
  isolatedPoints,
  legendSeries,
  paler,
  RUN_STYLES,
  runsDrawn,
  yRange,
  type ChartSpec,
  type RunStyle,
} from '../state/chart_data.ts';
import type { ComparedRun } from '../state/run_comparison.ts';
import { h, replace } from './dom.ts';
import { formatValue } from '../state/format.ts';
import type { RunController } from '../state/run_controller.ts';

const HEIGHT = 150;

let measure: CanvasRenderingContext2D | null = null;
/** The widest of an axis's labels in `font`, px (at least 24: an axis before its first values). */
function labelWidth(values: readonly (string | number | null)[] | null, font: string): number {
  measure ??= document.createElement('canvas').getContext('2d');
  if (!measure || !values || values.length === 0) return 24;
  measure.font = font;
  return Math.max(24, ...values.map((v) => Math.ceil(measure!.measureText(String(v ?? '')).width)));
}

/** The style of the run at `index` of `runs` (earlier runs first, the current run last). */
function styleOf(runs: readonly ComparedRun[], index: number): RunStyle {
  if (runs[index]?.current) return RUN_STYLES[0]!;
  return RUN_STYLES[Math.min(index + 1, RUN_STYLES.length - 1)]!;
}

/** A chart's uPlot series for each run: the spec's series, in each run's style. */
function runSeries(chart: ChartSpec, styles: readonly RunStyle[]): uPlot.Series[] {
  return styles.flatMap((style) =>
    chart.series.map((series): uPlot.Series => {
      const color = paler(series.color, style.strength);
      return {
        label: series.label,
        stroke: color,
        width: style.strength < 1 ? 1.5 : 2,
        dash: style.dash ?? series.dash,
        spanGaps: false,
        // A line needs two values: a value with none beside it (the first step, or one
        // between gaps) gets a marker, so a chart after one step is not blank.
        points: series.points
          ? { show: true, size: 8, fill: color, stroke: color }
          : {
              show: true,
              size: 6,
              fill: color,
              stroke: color,
              filter: (u, seriesIdx) => isolatedPoints(u.data[seriesIdx] ?? []),
            },
        paths: series.points ? () => null : undefined,
      };
    }),
  );
}

function options(chart: ChartSpec, width: number, styles: readonly RunStyle[]): uPlot.Options {
  const axis = {
    stroke: '#57606a',
    grid: { stroke: '#eaeef2', width: 1 },
    ticks: { stroke: '#d0d7de', width: 1 },
    font: '12px system-ui, sans-serif',
  };
  return {
    width,
    height: HEIGHT,
    scales: {
      x: { time: false },
      // A flat series (all zeros before learning starts) would otherwise get uPlot's 0..100
      // default; an empty one −0.5..0.5, which a count of tokens can never be (chart_data.ts).
      y: {
        range: (_u, min, max) =>
          yRange(chart, min, max, (lo, hi) => {
            const [low, high] = uPlot.rangeNum(lo, hi, 0.1, true);
            return [low ?? lo, high ?? hi];
          }),
      },
    },
    // Steps are whole numbers: integer tick increments only.
    axes: [
      { ...axis, size: 30, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] },
      // formatValue keeps tiny values (a KL of 4e-7) readable instead of "0, -0".
      // As wide as its longest label: a fixed 60 px cut "-0.00425" on a phone (seen in a
      // screenshot at 390 px).
      {
        ...axis,
        size: (_u, values) => labelWidth(values, axis.font) + 18,
        values: (_u, splits) => splits.map((v) => formatValue(v)),
      },
    ],
    series: [{ label: 'step' }, ...runSeries(chart, styles)],
    legend: { show: false }, // our own legend (below the title) shows the latest values
    cursor: { drag: { x: false, y: false } },
  };
}

/** A short line in a run's style, for the legend. */
function lineSample(style: RunStyle): HTMLElement {
  const border = style.dash === null ? 'solid' : style.dash[0]! > 4 ? 'dashed' : 'dotted';
  return h('span', {
    class: 'line-sample',
    style: `border-top: 3px ${border} ${paler('#1f6feb', style.strength)}`,
  });
}

/**
 * The legend over the charts while earlier runs are overlaid: each run's line style, its name, and
 * what it set differently from the current run; then why the runs may not compare like with like.
 */
function drawLegend(
  legend: HTMLElement,
  runs: readonly ComparedRun[],
  styles: readonly RunStyle[],
  caveats: readonly string[],
): void {
  legend.hidden = runs.length < 2;
  if (legend.hidden) return;
  replace(
    legend,
    ...runs.map((run, i) =>
      h(
        'div',
        { class: 'compare-run', 'data-testid': 'compare-run', 'data-current': String(run.current) },
        lineSample(styles[i]!),
        h('b', null, run.label),
        run.current ? ' (this run)' : run.differs ? `: ${run.differs}` : '',
      ),
    ),
    ...caveats.map((text) =>
      h('div', { class: 'compare-caveat', 'data-testid': 'compare-caveat' }, text),
    ),
  );
}

/** The charts column. */
export function chartsPanel(controller: RunController): HTMLElement {
  const charts: {
    spec: ChartSpec;
    root: HTMLElement;
    plot: uPlot | null;
    host: HTMLElement;
    legend: HTMLElement;
    empty: HTMLElement;
  }[] = CHARTS.map((spec) => {
    const host = h('div');
    const legend = h('div', { class: 'chart-legend' });
    const empty = h('div', { class: 'chart-empty' }, 'waiting for the first step');
    const root = h(
      'div',
      { class: 'chart', 'data-testid': `chart-${spec.id}`, 'data-points': '0' },
      h('div', { class: 'chart-head' }, h('h3', null, spec.title), legend),
      h('div', { class: 'caption' }, spec.caption),
      h('div', { class: 'chart-body' }, host, empty),
    );
    return { spec, root, plot: null, host, legend, empty };
  });
  // The charts sit in a grid (styles.css): one column beside the run, two or more where the panel
  // is wide (narrow windows put it under the step's panel), so each chart takes its cell's width.
  const section = h(
    'section',
    { class: 'card', 'data-control': 'charts' },
    h('h2', null, 'Training curves'),
    h('div', { class: 'charts' }, ...charts.map((c) => c.root)),
  );

  const width = (root: HTMLElement) => Math.max(200, root.clientWidth);
  const compareLegend = h('div', { class: 'compare-legend', 'data-testid': 'compare-legend' });
  compareLegend.hidden = true;
  section.insertBefore(compareLegend, section.querySelector('.charts'));
  // the runs' styles the plots were made with: another set of runs needs new uPlot series
  let drawnStyles = '';
  const draw = () => {
    const { runs, caveats } = controller.comparison;
    const styles = runs.map((_, i) => styleOf(runs, i));
    const restyle = JSON.stringify(styles) !== drawnStyles;
    drawnStyles = JSON.stringify(styles);
    drawLegend(compareLegend, runs, styles, caveats);
    const current = runs.find((r) => r.current);
    for (const chart of charts) {
      const columns = comparisonColumns(chart.spec, runs);
      const points = columns
        .slice(1)
        .reduce((n, col) => n + col.filter((v) => v !== null).length, 0);
      chart.root.setAttribute('data-points', String(points));
      chart.root.setAttribute('data-series', String(runsDrawn(chart.spec, columns)));
      chart.empty.hidden = points > 0;
      // the chart's own legend: the current run's latest values
      const own = chartColumns(chart.spec, current?.metrics ?? [], current?.evals ?? []);
      replace(
        chart.legend,
        ...legendSeries(chart.spec, own).map(({ series, latest }) =>
          h(
            'span',
            null,
            h('span', { class: 'swatch', style: `background:${series.color}` }),
            `${series.label} ${formatValue(latest)}${chart.spec.units ?? ''}`,
          ),
        ),
      );
      if (chart.plot && restyle) {
        chart.plot.destroy();
        chart.plot = null;
      }
      if (!chart.plot) {
        if (!section.isConnected) continue;
        chart.plot = new uPlot(
          options(chart.spec, width(chart.root), styles),
          columns as uPlot.AlignedData,
          chart.host,
        );
      } else {
        chart.plot.setData(columns as uPlot.AlignedData);
      }
    }
  };
  controller.subscribe((change) => {
    if (change === 'step' || change === 'reset' || change === 'compare') draw();
  });
  // uPlot needs a width: draw once the section is in the page, and follow its size.
  const resize = new ResizeObserver(() => {
    if (charts.some((c) => !c.plot)) draw();
    for (const chart of charts) chart.plot?.setSize({ width: width(chart.root), height: HEIGHT });
  });
  resize.observe(section);
  return section;
}
