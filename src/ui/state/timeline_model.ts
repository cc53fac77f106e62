// The timeline strip's view-model (src/ui/panels/timeline_panel.ts): the last few steps' spans
// (src/rl/timeline.ts) laid out as one row per lane, each bar as a share of its step's wall time,
// from the metrics history alone, so the layout is tested in Node.
import type { SpanKind } from '../../rl/timeline.ts';
import type { StepMetrics } from '../../rl/types.ts';

/** The kinds in legend order, with their colours. */
export const SPAN_KINDS: readonly { kind: SpanKind; label: string; color: string }[] = [
  { kind: 'generate', label: 'generate', color: '#0969da' },
  { kind: 'sandbox', label: 'sandbox', color: '#bf8700' },
  { kind: 'reward', label: 'reward', color: '#1a7f37' },
  { kind: 'update', label: 'update', color: '#8250df' },
  { kind: 'waiting', label: 'waiting', color: '#d0d7de' },
];

/** One bar: where it sits in its row, as percentages of the step's wall time. */
export interface TimelineBar {
  kind: SpanKind;
  leftPercent: number;
  widthPercent: number;
  /** The tooltip: kind and seconds. */
  title: string;
}

/** One lane of one step. */
export interface TimelineLane {
  lane: string;
  bars: TimelineBar[];
}

/** One step's strip. */
export interface TimelineStep {
  step: number;
  secondsWall: number;
  /** `idle trainer 2.1 s · idle rollout 3.0 s · overlap 0%`. */
  summary: string;
  lanes: TimelineLane[];
  /** The time axis under the strip: seconds from the step's start, as shares of its wall time. */
  ticks: TimeTick[];
}

/** One mark of a strip's time axis. */
export interface TimeTick {
  seconds: number;
  leftPercent: number;
  label: string;
}

/**
 * The time axis of a strip `wall` seconds long: marks at a round step (1, 2 or 5 × a power of
 * ten, of seconds, or of minutes past two minutes) chosen so that 3 to 6 fit, from 0.
 */
export function timeTicks(wall: number): TimeTick[] {
  if (!(wall > 0)) return [];
  const unit = wall >= 120 ? 60 : 1; // past two minutes, marks at round minutes
  const span = wall / unit;
  const raw = span / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= raw)!;
  const ticks: TimeTick[] = [];
  for (let i = 0; i * step <= span * (1 + 1e-9); i++) {
    const value = Number((i * step).toPrecision(12));
    ticks.push({
      seconds: value * unit,
      leftPercent: ((value * unit) / wall) * 100,
      label: `${Number(value.toPrecision(3))} ${unit === 60 && value > 0 ? 'min' : 's'}`,
    });
  }
  return ticks;
}

/** The card's caption: what the strips show, for synchronous or asynchronous training. */
export function timelineCaption(async: boolean): string {
  return async
    ? "The last steps, one row per worker, in seconds from the step's start. Asynchronous training: the rollout worker samples the next step while the trainer updates on this one (at most one update behind: staleness)."
    : "The last steps, one row per worker, in seconds from the step's start. Synchronous training idles the trainer while it samples and the rollout while it updates.";
}

/** Lane order: trainer, rollout, then the sandbox slots by number. */
function laneRank(lane: string): number {
  if (lane === 'trainer') return -2;
  if (lane === 'rollout') return -1;
  const slot = /^sandbox-(\d+)$/.exec(lane);
  return slot ? Number(slot[1]) : 1000;
}

/** The last `count` steps that carry a timeline, oldest first. */
export function timelineSteps(history: readonly StepMetrics[], count = 3): TimelineStep[] {
  return history
    .filter((m) => m.timeline && m.timeline.seconds_wall > 0)
    .slice(-count)
    .map((m) => {
      const { seconds_wall: wall, spans } = m.timeline!;
      const names = [...new Set(spans.map((s) => s.lane))].sort(
        (a, b) => laneRank(a) - laneRank(b) || a.localeCompare(b),
      );
      const percent = (seconds: number) => Math.min(100, Math.max(0, (seconds / wall) * 100));
      const lanes = names.map((lane) => ({
        lane,
        bars: spans
          .filter((s) => s.lane === lane && s.end > s.start)
          .map((s) => ({
            kind: s.kind,
            leftPercent: percent(s.start),
            widthPercent: percent(s.end) - percent(s.start),
            title: `${s.kind} ${(s.end - s.start).toFixed(2)} s (at ${s.start.toFixed(2)} s)`,
          })),
      }));
      const overlap = Math.round((m.overlap_fraction ?? 0) * 100);
      const summary =
        `idle trainer ${(m.seconds_idle_trainer ?? 0).toFixed(1)} s · ` +
        `idle rollout ${(m.seconds_idle_rollout ?? 0).toFixed(1)} s · overlap ${overlap}%` +
        (m.staleness !== undefined ? ` · staleness ${m.staleness}` : '') +
        (m.rollout_restarts ? ` · rollout worker restarted ×${m.rollout_restarts}` : '') +
        (m.episodes_dropped ? ` · ${m.episodes_dropped} episodes dropped` : '');
      return { step: m.step, secondsWall: wall, summary, lanes, ticks: timeTicks(wall) };
    });
}
