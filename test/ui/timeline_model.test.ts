// The timeline strip's layout from the metrics history (src/ui/state/timeline_model.ts).
import { describe, expect, it } from 'vitest';
import { timeTicks, timelineCaption, timelineSteps } from '../../src/ui/state/timeline_model.ts';
import { buildMetrics } from '../helpers/records.ts';

describe('timelineSteps', () => {
  const timeline = {
    seconds_wall: 4,
    spans: [
      { lane: 'sandbox-1', kind: 'sandbox' as const, start: 1, end: 2 },
      { lane: 'rollout', kind: 'generate' as const, start: 0, end: 1 },
      { lane: 'trainer', kind: 'update' as const, start: 3, end: 4 },
      { lane: 'sandbox-0', kind: 'reward' as const, start: 2, end: 3 },
      { lane: 'sandbox-10', kind: 'sandbox' as const, start: 1, end: 1.5 },
    ],
  };

  it('keeps the last steps that have a timeline, lanes in worker order, bars as shares of the wall', () => {
    const history = [
      buildMetrics(1, { timeline }),
      buildMetrics(2), // saved before the timeline: no strip
      buildMetrics(3, { timeline, seconds_idle_trainer: 3, overlap_fraction: 0.25 }),
      buildMetrics(4, { timeline, staleness: 1 }),
    ];
    const steps = timelineSteps(history, 2);
    expect(steps.map((s) => s.step)).toEqual([3, 4]);
    const [three, four] = steps;
    expect(three!.lanes.map((l) => l.lane)).toEqual([
      'trainer',
      'rollout',
      'sandbox-0',
      'sandbox-1',
      'sandbox-10',
    ]);
    expect(three!.lanes[0]!.bars).toEqual([
      { kind: 'update', leftPercent: 75, widthPercent: 25, title: 'update 1.00 s (at 3.00 s)' },
    ]);
    expect(three!.summary).toBe('idle trainer 3.0 s · idle rollout 0.0 s · overlap 25%');
    expect(four!.summary).toContain('staleness 1');
  });

  it('an empty history or one without timelines shows nothing', () => {
    expect(timelineSteps([])).toEqual([]);
    expect(timelineSteps([buildMetrics(1)])).toEqual([]);
  });
});

describe('the time axis and the caption', () => {
  it('marks round seconds from 0 to the wall, 3 to 6 of them, in s or min', () => {
    expect(timeTicks(4).map((t) => t.label)).toEqual(['0 s', '1 s', '2 s', '3 s', '4 s']);
    expect(timeTicks(4).map((t) => t.leftPercent)).toEqual([0, 25, 50, 75, 100]);
    expect(timeTicks(13.7).map((t) => t.seconds)).toEqual([0, 5, 10]);
    expect(timeTicks(0.9).map((t) => t.label)).toEqual(['0 s', '0.2 s', '0.4 s', '0.6 s', '0.8 s']);
    expect(timeTicks(400).map((t) => t.label)).toEqual(['0 s', '2 min', '4 min', '6 min']);
    expect(timeTicks(400)[1]!.seconds).toBe(120);
    for (const wall of [0.05, 1, 3, 7.5, 42, 99, 250, 3600]) {
      const ticks = timeTicks(wall);
      expect(ticks.length, String(wall)).toBeGreaterThanOrEqual(3);
      expect(ticks.length, String(wall)).toBeLessThanOrEqual(6);
      expect(ticks.at(-1)!.leftPercent).toBeLessThanOrEqual(100);
    }
    expect(timeTicks(0)).toEqual([]);
    expect(
      timelineSteps([buildMetrics(1, { timeline: { seconds_wall: 2, spans: [] } })])[0]!.ticks,
    ).toHaveLength(5);
  });

  it('describes asynchronous training when async is on', () => {
    expect(timelineCaption(false)).toMatch(/Synchronous training idles the trainer/);
    expect(timelineCaption(true)).toMatch(
      /^The last steps.*Asynchronous training: the rollout worker samples the next step while the trainer updates/,
    );
    expect(timelineCaption(true)).not.toMatch(/Synchronous/);
  });
});
