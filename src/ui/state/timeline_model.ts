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
      return { step: m.step, secondsWall: wall, summary, lanes };
    });
}
