// Where a step's time goes: spans on lanes (the trainer, the rollout, each sandbox worker), recorded
// as the step runs, and the three figures the CLI prints from them. Pure data and pure functions
// (besides the recorder's clock), so the metric definitions are tested on hand-made spans.
//
// Definitions (seconds within one step's wall time W, from the step's start to its update's end):
// - a lane is busy where it has a span of any kind but `waiting`; idle = W - busy;
// - `overlap_fraction` = the time where the rollout was in progress (any span on the `rollout`
//   lane, its waits on the sandbox included) while the trainer updated (`update` spans on the
//   `trainer` lane), divided by W. The synchronous loop never overlaps them: 0.
import type { CodeExecutor, ExecOutcome, RanOn } from '../env/types.ts';

/** What a lane was doing. */
export type SpanKind = 'generate' | 'sandbox' | 'reward' | 'update' | 'waiting';

/** One stretch of work on one lane; start and end in seconds from the step's start. */
export interface Span {
  /** `trainer`, `rollout` or `sandbox-<i>` (the i-th concurrent execution slot). */
  lane: string;
  kind: SpanKind;
  start: number;
  end: number;
}

/** A step's spans and its wall time (seconds). */
export interface StepTimeline {
  seconds_wall: number;
  spans: Span[];
}

/** The per-step figures derived from a timeline (StepMetrics fields). */
export interface TimelineFigures {
  seconds_idle_trainer: number;
  seconds_idle_rollout: number;
  overlap_fraction: number;
}

type Interval = readonly [number, number];

/** The union of intervals, sorted and merged. */
function merge(intervals: readonly Interval[]): Interval[] {
  const sorted = intervals.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out.at(-1);
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** Total length of a merged interval list. */
function length(intervals: readonly Interval[]): number {
  return intervals.reduce((sum, [a, b]) => sum + (b - a), 0);
}

/** Length of the intersection of two merged interval lists. */
function intersection(x: readonly Interval[], y: readonly Interval[]): number {
  let total = 0;
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const [a0, a1] = x[i]!;
    const [b0, b1] = y[j]!;
    total += Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
    if (a1 < b1) i++;
    else j++;
  }
  return total;
}

/** The spans that match, clipped to [0, wall], merged. */
function covered(timeline: StepTimeline, match: (span: Span) => boolean): Interval[] {
  const wall = timeline.seconds_wall;
  return merge(
    timeline.spans
      .filter(match)
      .map((s): Interval => [Math.max(0, s.start), Math.min(wall, s.end)]),
  );
}

/** Seconds of the step's wall time where `lane` had no span other than `waiting`. */
export function idleSeconds(timeline: StepTimeline, lane: string): number {
  const busy = length(covered(timeline, (s) => s.lane === lane && s.kind !== 'waiting'));
  return Math.max(0, timeline.seconds_wall - busy);
}

/** Share of the step's wall time where the rollout was in progress while the trainer updated. */
export function overlapFraction(timeline: StepTimeline): number {
  if (!(timeline.seconds_wall > 0)) return 0;
  const rollout = covered(timeline, (s) => s.lane === 'rollout');
  const update = covered(timeline, (s) => s.lane === 'trainer' && s.kind === 'update');
  return intersection(rollout, update) / timeline.seconds_wall;
}

/** The three per-step figures; all 0 without a timeline. */
export function timelineFigures(timeline: StepTimeline | null | undefined): TimelineFigures {
  if (!timeline) return { seconds_idle_trainer: 0, seconds_idle_rollout: 0, overlap_fraction: 0 };
  return {
    seconds_idle_trainer: idleSeconds(timeline, 'trainer'),
    seconds_idle_rollout: idleSeconds(timeline, 'rollout'),
    overlap_fraction: overlapFraction(timeline),
  };
}

/** Collects a step's spans against a clock (performance.now() milliseconds by default). */
export class TimelineRecorder {
  readonly spans: Span[] = [];
  private readonly busySlots: boolean[] = [];

  constructor(
    readonly originMs = performance.now(),
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Adds a span given in the clock's milliseconds. */
  add(lane: string, kind: SpanKind, startMs: number, endMs: number = this.now()): void {
    this.spans.push({
      lane,
      kind,
      start: (startMs - this.originMs) / 1000,
      end: (endMs - this.originMs) / 1000,
    });
  }

  /** Runs `work` and records it as a span on `lane`. */
  async time<T>(lane: string, kind: SpanKind, work: () => Promise<T>): Promise<T> {
    const started = this.now();
    try {
      return await work();
    } finally {
      this.add(lane, kind, started);
    }
  }

  /**
   * The executor, with every execution and judgement recorded as a `kind` span (timedExecutor),
   * in this recorder's clock.
   */
  executor<R extends ExecOutcome>(inner: CodeExecutor<R>, kind: SpanKind): CodeExecutor<R> {
    return timedExecutor(inner, kind, {
      now: this.now,
      busySlots: this.busySlots,
      add: (lane, k, startMs, endMs) => this.add(lane, k, startMs, endMs),
    });
  }

  /** The timeline up to now (or `endMs`). */
  finish(endMs: number = this.now()): StepTimeline {
    return { seconds_wall: (endMs - this.originMs) / 1000, spans: [...this.spans] };
  }
}

/** Where timedExecutor's spans go, in one clock's milliseconds. */
export interface SpanSink {
  /** Milliseconds on performance.now()'s scale (a RanOn's wall-clock times are converted to it). */
  now(): number;
  /** Lanes taken by calls in flight, for executors that do not say where a call ran. */
  busySlots: boolean[];
  add(lane: string, kind: SpanKind, startMs: number, endMs: number): void;
}

/**
 * `inner` with every execution and judgement recorded as a `kind` span. A pool says where a call
 * ran (asked with `trace`): the span is on that worker's lane (`sandbox-<worker>`) for the time it
 * ran there, so a program queued behind busy workers is not counted as work. An executor that does
 * not say gets the lowest lane free at the call's start, for the call's whole time.
 */
export function timedExecutor<R extends ExecOutcome>(
  inner: CodeExecutor<R>,
  kind: SpanKind,
  sink: SpanSink,
): CodeExecutor<R> {
  const timed = async <T extends object>(call: () => Promise<T & { ranOn?: RanOn }>) => {
    const busy = sink.busySlots;
    let index = busy.indexOf(false);
    if (index < 0) index = busy.push(true) - 1;
    busy[index] = true;
    const started = sink.now();
    let result: T & { ranOn?: RanOn };
    try {
      result = await call();
    } finally {
      busy[index] = false;
    }
    const { ranOn, ...rest } = result;
    if (ranOn)
      sink.add(
        `sandbox-${ranOn.worker}`,
        kind,
        ranOn.startWallMs - performance.timeOrigin,
        ranOn.endWallMs - performance.timeOrigin,
      );
    else sink.add(`sandbox-${index}`, kind, started, sink.now());
    return rest as T;
  };
  const out: CodeExecutor<R> = {
    execute: (code, options) => timed(() => inner.execute(code, { ...options, trace: true })),
  };
  if (inner.judge) {
    const judge = inner.judge.bind(inner);
    out.judge = (code, tests, options) =>
      timed(() => judge(code, tests, { ...options, trace: true }));
  }
  return out;
}
