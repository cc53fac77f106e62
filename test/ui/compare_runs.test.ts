// Compared runs: the run history (cap, replace, delete, light trajectories, a full quota), the
// charts' columns for several runs, and a lesson trained by the controller against the fake
// trainer: both runs kept, the earlier overlaid, a pause that stops the lesson.
import { describe, expect, it } from 'vitest';
import { lessonById } from '../../src/run/lessons.ts';
import { memoryCheckpointStore, memoryRecordStore } from '../../src/service/checkpoint_store.ts';
import {
  HISTORY_STEPS,
  memoryRunHistory,
  RunHistory,
  type SavedRun,
} from '../../src/service/run_history.ts';
import { CHARTS, comparisonColumns, paler, runsDrawn } from '../../src/ui/state/chart_data.ts';
import { lessonPlan } from '../../src/ui/state/lesson_runner.ts';
import { RunController } from '../../src/ui/state/run_controller.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { buildMetrics, buildTrajectory } from '../helpers/records.ts';
import { FakeTrainer } from './fake_trainer.ts';

function savedRun(id: string, savedAt: number, steps = 1): SavedRun {
  return {
    id,
    savedAt,
    reason: 'finished',
    label: id,
    lesson: null,
    config: presetConfig('default'),
    modelName: 'demo',
    metrics: Array.from({ length: steps }, (_, i) => buildMetrics(i + 1)),
    evals: [],
    steps: Array.from({ length: steps }, (_, i) => ({
      step: i + 1,
      trajectories: [
        buildTrajectory({
          step: i + 1,
          taskId: 'seed/fibonacci',
          prompt: 'F(10)?',
          groupIndex: 0,
          sampleIndex: 0,
          turns: [{ text: 'FINAL ANSWER: 55', code: null }],
          reward: 1,
        }).trajectory,
      ],
    })),
  };
}

describe('run history', () => {
  it('keeps the newest runs up to its cap, replaces a run saved again, and deletes', async () => {
    const history = memoryRunHistory(3);
    for (let i = 1; i <= 4; i++) await history.save(savedRun(`r${i}`, i));
    expect((await history.list()).map((r) => r.id)).toEqual(['r4', 'r3', 'r2']);
    await history.save(savedRun('r2', 10));
    expect((await history.list()).map((r) => r.id)).toEqual(['r2', 'r4', 'r3']);
    await history.remove('r4');
    expect((await history.list()).map((r) => r.id)).toEqual(['r2', 'r3']);
    expect(await history.load('r4')).toBeNull();
    await history.clear();
    expect(await history.list()).toEqual([]);
  });

  it("keeps the last steps' trajectories without what only the update reads", async () => {
    const history = memoryRunHistory();
    await history.save(savedRun('long', 1, HISTORY_STEPS + 5));
    const loaded = (await history.load('long'))!;
    expect(loaded.metrics).toHaveLength(HISTORY_STEPS + 5);
    expect(loaded.steps.map((s) => s.step)[0]).toBe(6);
    expect(loaded.steps).toHaveLength(HISTORY_STEPS);
    const t = loaded.steps[0]!.trajectories[0]!;
    expect([t.ids, t.actionMask, t.oldLogprobs, t.reward]).toEqual([[], [], null, 1]);
  });

  it('makes room when the quota is full, then says what to do', async () => {
    const quota = Object.assign(new Error('full'), { name: 'QuotaExceededError' });
    const trajectories = memoryRecordStore<unknown>();
    let refuse = 0;
    const put = trajectories.put.bind(trajectories);
    trajectories.put = async (key, value) => {
      if (refuse-- > 0) throw quota;
      return put(key, value);
    };
    const history = new RunHistory(memoryRecordStore(), trajectories as never);
    await history.save(savedRun('old', 1));
    refuse = 1;
    await history.save(savedRun('new', 2));
    expect((await history.list()).map((r) => r.id)).toEqual(['new']);
    refuse = 99;
    await expect(history.save(savedRun('newer', 3))).rejects.toThrow(
      /storage is full.*Fix: delete earlier runs under Compare runs/,
    );
  });
});

describe('charts for several runs', () => {
  const reward = CHARTS.find((c) => c.id === 'reward')!;
  it('aligns runs of different lengths by step, null where a run has no step', () => {
    const a = [1, 2, 3].map((s) => buildMetrics(s, { reward_mean: s / 10 }));
    const b = [1, 2].map((s) => buildMetrics(s, { reward_mean: s }));
    const columns = comparisonColumns(reward, [{ metrics: a }, { metrics: b }]);
    expect(columns[0]).toEqual([1, 2, 3]);
    expect(columns).toHaveLength(1 + 2 * reward.series.length);
    expect(columns[1]).toEqual([0.1, 0.2, 0.3]);
    expect(columns[1 + reward.series.length]).toEqual([1, 2, null]);
    expect(runsDrawn(reward, columns)).toBe(2);
    expect(runsDrawn(reward, comparisonColumns(reward, [{ metrics: a }, { metrics: [] }]))).toBe(1);
  });

  it('draws earlier runs paler', () => {
    expect(paler('#000000', 0.5)).toBe('#808080');
    expect(paler('#1f6feb', 1)).toBe('#1f6feb');
  });
});

describe('a lesson on the page', () => {
  function setup() {
    const trainer = new FakeTrainer({});
    const history = memoryRunHistory();
    const controller = new RunController({
      trainer,
      proxy: (f) => f,
      checkpoints: memoryCheckpointStore(),
      history,
    });
    return { controller, history };
  }

  it("trains the lesson's runs one after another, keeps each, and overlays the earlier", async () => {
    const { controller, history } = setup();
    const plan = lessonPlan(lessonById('basics'), 2, { steps: 3 });
    await controller.start(plan.runs[0]!.config);
    controller.openLesson(plan);
    expect(controller.lesson?.state).toBe('ready');
    expect(await controller.runLesson(plan)).toBe(true);
    expect(controller.lesson).toMatchObject({ state: 'done', run: 1 });
    expect(controller.lesson!.summary!.effect.of).toBe(1);
    const { runs, lesson, caveats } = controller.comparison;
    expect(lesson).toBe('basics');
    expect(caveats).toEqual([]);
    expect(runs.map((r) => [r.label, r.current, r.metrics.length, r.config.lr, r.differs])).toEqual(
      [
        ['learning', false, 3, 2e-3, 'learning rate 0.002'],
        ['learning rate 0', true, 3, 0, ''],
      ],
    );
    const kept = await history.list();
    expect(kept.map((r) => [r.label, r.reason, r.lesson])).toEqual([
      ['learning rate 0', 'lesson', { id: 'basics', run: 1, seed: 2 }],
      ['learning', 'lesson', { id: 'basics', run: 0, seed: 2 }],
    ]);
  });

  it('stops when a run is paused, and a plain run is kept under its changes in words', async () => {
    const { controller } = setup();
    const config = presetConfig('default', { steps: 2, groupSize: 4 });
    await controller.start(config);
    await controller.train();
    expect(controller.history.map((r) => [r.label, r.reason])).toEqual([
      ['steps 2, G 4', 'finished'],
    ]);
    const plan = lessonPlan(lessonById('kl'), 1, { steps: 3 });
    const running = controller.runLesson(plan);
    await new Promise<void>((resolve) => {
      const stop = controller.subscribe(() => {
        if (controller.state === 'training' && controller.lesson?.state === 'running') {
          stop();
          resolve();
        }
      });
    });
    controller.pause();
    expect(await running).toBe(false);
    expect(controller.lesson?.state).toBe('stopped');
  });
});
