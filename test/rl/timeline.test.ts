// The timeline's figures on hand-made spans (src/rl/timeline.ts), the recorder's sandbox lanes, and
// a real synchronous step's timeline through the Trainer (tiny random model, fake sandbox).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../src/kernels/backend.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { CausalLM } from '../../src/model/model.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { flattenMetrics } from '../../src/rl/metrics.ts';
import {
  idleSeconds,
  overlapFraction,
  timelineFigures,
  TimelineRecorder,
  type Span,
  type StepTimeline,
} from '../../src/rl/timeline.ts';
import { SpanLog } from '../../src/training/worker_spans.ts';
import { Trainer } from '../../src/training/trainer.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { resolveRun } from '../../src/run/resolve.ts';
import type { CodeExecutor, ExecOutcome } from '../../src/env/types.ts';
import type { Task } from '../../src/tasks/task.ts';
import { loadTokenizer } from '../../src/tokenizer/index.ts';
import { buildMetrics } from '../helpers/records.ts';
import { PRINT_SEVEN, TINY_BYTE_MODEL } from '../helpers/tiny_trainer.ts';

const span = (lane: string, kind: Span['kind'], start: number, end: number): Span => ({
  lane,
  kind,
  start,
  end,
});

describe('timeline figures on hand-made spans', () => {
  // the synchronous loop: rollout 0-4 s (3 s generating, 1 s waiting on the sandbox), reward 4-5,
  // update 5-8; the trainer waits while the rollout runs
  const sync: StepTimeline = {
    seconds_wall: 8,
    spans: [
      span('trainer', 'waiting', 0, 4),
      span('rollout', 'generate', 0, 2),
      span('rollout', 'waiting', 2, 3),
      span('sandbox-0', 'sandbox', 2, 3),
      span('rollout', 'generate', 3, 4),
      span('trainer', 'reward', 4, 5),
      span('sandbox-0', 'reward', 4, 4.5),
      span('trainer', 'update', 5, 8),
    ],
  };

  it('sync: the trainer idles through the rollout, the rollout through reward and update, no overlap', () => {
    expect(idleSeconds(sync, 'trainer')).toBeCloseTo(4);
    // busy only while generating: 3 of 8 s
    expect(idleSeconds(sync, 'rollout')).toBeCloseTo(5);
    expect(overlapFraction(sync)).toBe(0);
    expect(timelineFigures(sync)).toEqual({
      seconds_idle_trainer: idleSeconds(sync, 'trainer'),
      seconds_idle_rollout: idleSeconds(sync, 'rollout'),
      overlap_fraction: 0,
    });
  });

  it('overlapped: the share of wall time where the rollout is under way during the update', () => {
    // the next step's rollout (generating, then waiting on the sandbox) runs 1-7 s while the
    // update runs 2-6 s: 4 s of 8 overlap
    const overlapped: StepTimeline = {
      seconds_wall: 8,
      spans: [
        span('trainer', 'waiting', 0, 1),
        span('trainer', 'reward', 1, 2),
        span('trainer', 'update', 2, 6),
        span('rollout', 'generate', 1, 3),
        span('rollout', 'waiting', 3, 4),
        span('rollout', 'generate', 4, 7),
        span('rollout', 'waiting', 7, 8),
      ],
    };
    expect(overlapFraction(overlapped)).toBeCloseTo(4 / 8);
    expect(idleSeconds(overlapped, 'trainer')).toBeCloseTo(3); // 0-1 and 6-8
    expect(idleSeconds(overlapped, 'rollout')).toBeCloseTo(3); // 0-1, 3-4, 7-8
  });

  it('overlapping spans on one lane count once, and spans are clipped to the wall time', () => {
    const t: StepTimeline = {
      seconds_wall: 10,
      spans: [
        span('trainer', 'update', 1, 5),
        span('trainer', 'update', 3, 6),
        span('trainer', 'reward', 9, 12),
        span('rollout', 'generate', -2, 2),
        span('rollout', 'generate', 4, 4.5),
      ],
    };
    expect(idleSeconds(t, 'trainer')).toBeCloseTo(10 - 5 - 1);
    expect(idleSeconds(t, 'rollout')).toBeCloseTo(10 - 2 - 0.5);
    // update 1-6 meets rollout 0-2 (1 s) and 4-4.5 (0.5 s)
    expect(overlapFraction(t)).toBeCloseTo(1.5 / 10);
  });

  it('no timeline, or a zero wall time, gives zeros, not NaN', () => {
    expect(timelineFigures(undefined)).toEqual({
      seconds_idle_trainer: 0,
      seconds_idle_rollout: 0,
      overlap_fraction: 0,
    });
    expect(overlapFraction({ seconds_wall: 0, spans: [span('trainer', 'update', 0, 0)] })).toBe(0);
  });

  it('the CSV row keeps the figures and leaves the spans out', () => {
    const row = flattenMetrics(
      buildMetrics(1, { overlap_fraction: 0.25, timeline: { seconds_wall: 1, spans: [] } }),
    );
    expect(row.overlap_fraction).toBe(0.25);
    expect(row).not.toHaveProperty('timeline');
  });
});

describe('TimelineRecorder', () => {
  it('puts concurrent executions on separate sandbox lanes and reuses a freed one', async () => {
    let clock = 1000;
    const recorder = new TimelineRecorder(1000, () => clock);
    const resolvers: (() => void)[] = [];
    const inner: CodeExecutor = {
      execute: () =>
        new Promise((resolve) => {
          resolvers.push(() =>
            resolve({ ok: true, observation: '', timedOut: false, error: null }),
          );
        }),
    };
    const timed = recorder.executor(inner, 'sandbox');
    const a = timed.execute('a');
    const b = timed.execute('b');
    clock = 1500;
    resolvers[0]!();
    await a;
    const c = timed.execute('c'); // lane 0 is free again
    clock = 2000;
    resolvers[1]!();
    resolvers[2]!();
    await Promise.all([b, c]);
    const lanes = recorder.spans.map((s) => [s.lane, s.start, s.end]);
    expect(lanes).toEqual([
      ['sandbox-0', 0, 0.5],
      ['sandbox-1', 0, 1],
      ['sandbox-0', 0.5, 1],
    ]);
    expect(recorder.finish().seconds_wall).toBe(1);
  });

  it("puts a pool's traced call on the lane of the worker that ran it, for the time it ran there", async () => {
    let clock = 1000;
    const recorder = new TimelineRecorder(1000, () => clock);
    const asked: unknown[] = [];
    const origin = performance.timeOrigin;
    const inner: CodeExecutor = {
      execute: async (_code, options) => {
        asked.push(options);
        clock = 3000; // queued 1 s behind busy workers, then ran 0.5 s on worker 1
        return {
          ok: true,
          observation: '7\n',
          timedOut: false,
          error: null,
          ranOn: { worker: 1, startWallMs: origin + 2500, endWallMs: origin + 3000 },
        } as ExecOutcome;
      },
    };
    const result = await recorder.executor(inner, 'sandbox').execute('print(7)', { timeoutMs: 9 });
    expect(asked).toEqual([{ timeoutMs: 9, trace: true }]);
    expect(result).toEqual({ ok: true, observation: '7\n', timedOut: false, error: null });
    expect(recorder.spans).toEqual([{ lane: 'sandbox-1', kind: 'sandbox', start: 1.5, end: 2 }]);
  });
});

describe("a synchronous step's timeline", () => {
  const modelConfig = TINY_BYTE_MODEL;
  const task: Task = PRINT_SEVEN;
  let model: CausalLM;
  beforeAll(async () => {
    await selectBackend({ force: 'wasm' });
    model = CausalLM.fromWeights(modelConfig, randomWeights(modelConfig, 1), { kind: 'full' });
  });
  afterAll(() => model?.dispose());

  it('records the phases on their lanes and never overlaps rollout and update', async () => {
    const tokenizer = await loadTokenizer(directorySource('test/fixtures/tokenizers/bytes'));
    const executor: CodeExecutor = {
      execute: async () => ({ ok: true, observation: '7', timedOut: false, error: null }),
    };
    const config = presetConfig('default', {
      groupSize: 2,
      maxTurns: 1,
      maxNewTokens: 4,
      klCoef: 0,
      evalEvery: 0,
    });
    const trainer = new Trainer(
      { model, tokenizer, executor, reference: null },
      { ...resolveRun(config).trainer, tasks: [task], evalTasks: [], promptsPerStep: 1 },
    );
    try {
      const metrics = await trainer.runStep();
      const timeline = metrics.timeline!;
      const kinds = (lane: string) =>
        new Set(timeline.spans.filter((s) => s.lane === lane).map((s) => s.kind));
      expect(kinds('trainer')).toEqual(new Set(['waiting', 'reward', 'update']));
      expect(kinds('rollout').has('generate')).toBe(true);
      expect(metrics.overlap_fraction).toBe(0);
      expect(metrics.seconds_idle_trainer).toBeGreaterThan(0);
      expect(metrics.seconds_idle_rollout).toBeGreaterThan(0);
      for (const s of timeline.spans) {
        expect(s.start).toBeGreaterThanOrEqual(0);
        expect(s.end).toBeGreaterThanOrEqual(s.start);
        expect(s.end).toBeLessThanOrEqual(timeline.seconds_wall + 1e-9);
      }
      // the update starts after the rollout's last span ends
      const rolloutEnd = Math.max(
        ...timeline.spans.filter((s) => s.lane === 'rollout').map((s) => s.end),
      );
      const update = timeline.spans.find((s) => s.kind === 'update')!;
      expect(update.start).toBeGreaterThanOrEqual(rolloutEnd);
    } finally {
      trainer.dispose();
    }
  });
});

describe('SpanLog (a rollout worker streaming its spans)', () => {
  it('counts an open span as running until now, a closed one as it was, and closes the open on death', () => {
    const log = new SpanLog();
    log.add({ id: 1, lane: 'rollout', kind: 'generate', startWallMs: 100, endWallMs: null });
    log.add({ id: 2, lane: 'sandbox-0', kind: 'sandbox', startWallMs: 50, endWallMs: 80 });
    expect(log.since(90, 150).map((s) => [s.lane, s.startWallMs, s.endWallMs])).toEqual([
      ['rollout', 100, 150],
    ]);
    log.add({ id: 1, lane: 'rollout', kind: 'generate', startWallMs: 100, endWallMs: 120 });
    expect(log.since(0, 200).map((s) => s.endWallMs)).toEqual([120, 80]);
    log.add({ id: 3, lane: 'rollout', kind: 'generate', startWallMs: 130, endWallMs: null });
    log.closeOpen(140);
    expect(log.since(125, 1000).map((s) => s.endWallMs)).toEqual([140]);
  });
});
