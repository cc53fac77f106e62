// The run's record alone (src/ui/state/run_view.ts), fed the fake trainer's reports: a step built
// up phase by phase, finished steps kept to the last few, the JSONL log without token arrays, the
// step's own evaluation, a failed step dropped and a fresh run under a new id.
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/run/config.ts';
import { encodeLink } from '../../src/run/link.ts';
import { Changes } from '../../src/ui/state/run_changes.ts';
import type { Change } from '../../src/ui/state/run_types.ts';
import { RunView } from '../../src/ui/state/run_view.ts';
import { FakeTrainer } from './fake_trainer.ts';

async function setup(keepSteps?: number) {
  const trainer = new FakeTrainer({ tokenTexts: true });
  await trainer.configure(await encodeLink({ ...defaultConfig(), evalEvery: 2 }));
  const changes = new Changes();
  const seen: Change[] = [];
  changes.subscribe((change) => seen.push(change));
  let clock = 0;
  const view = new RunView(changes, () => ++clock, keepSteps);
  /** Runs one phase of the fake trainer into the view. */
  const phase = async () => {
    const report = await trainer.runPhase();
    view.takePhase(report);
    return report;
  };
  const step = async () => {
    for (;;) {
      const { metrics } = await phase();
      if (!metrics) continue;
      view.finishStep(metrics);
      return;
    }
  };
  return { view, seen, phase, step };
}

describe('RunView', () => {
  it('builds the step in progress phase by phase and files it when it finishes', async () => {
    const { view, phase } = await setup();
    const rollout = await phase();
    expect(view.nextPhase).toBe('reward');
    expect(view.current?.trajectories).toEqual(rollout.trajectories);
    expect(view.lastReport).toBe(rollout);
    expect(view.viewableSteps()).toEqual([view.current]);
    await phase();
    await phase();
    expect(view.current?.groups).not.toBeNull();
    const { metrics } = await phase();
    expect(view.finishedSteps).toBe(0); // filed only when told
    view.finishStep(metrics!);
    expect(view.current).toBeNull();
    expect(view.nextPhase).toBe('rollout');
    expect(view.finishedSteps).toBe(1);
    expect(view.rewardMean).toBe(metrics!.reward_mean);
    expect(view.steps[0]).toMatchObject({ step: 1, phase: 'update', metrics });
    expect(Object.keys(view.steps[0]!.tokenTexts ?? {})).not.toHaveLength(0);
  });

  it('keeps the last steps whole, logs every step without token arrays, and takes in its evaluation', async () => {
    const { view, step } = await setup(2);
    for (let i = 0; i < 3; i++) await step();
    expect(view.steps.map((s) => s.step)).toEqual([2, 3]);
    expect(view.trajectoryLog.map((l) => l.step)).toEqual([1, 2, 3]);
    const logged = view.trajectoryLog[0]!.trajectories[0]!;
    expect(logged).toMatchObject({ ids: [], actionMask: [], oldLogprobs: null, refLogprobs: null });
    expect(logged.turns.length).toBeGreaterThan(0);
    expect(view.evals.map((e) => e.step)).toEqual([2]);
  });

  it('drops a failed step and starts a fresh run under a new id', async () => {
    const { view, phase, step, seen } = await setup();
    await step();
    await phase();
    view.dropStep();
    expect(view.current).toBeNull();
    expect(view.nextPhase).toBe('rollout');
    expect(view.finishedSteps).toBe(1);
    const before = view.runId;
    view.clear();
    expect(view.runId).not.toBe(before);
    expect([view.metrics, view.steps, view.trajectoryLog, view.evals]).toEqual([[], [], [], []]);
    expect(seen).toEqual(['reset']);
  });
});
