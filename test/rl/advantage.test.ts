// GRPO advantages on hand-worked groups: (r - mean) / sample std, 0 when all rewards are equal.
import { describe, expect, it } from 'vitest';
import { assignAdvantages, groupAdvantages, trainable } from '../../src/rl/advantage.ts';
import { newTrajectory, type Trajectory } from '../../src/rl/types.ts';

const trajectory = (
  groupIndex: number,
  sampleIndex: number,
  reward: number,
  extra: Partial<Trajectory> = {},
): Trajectory => ({
  ...newTrajectory({
    id: `0/${groupIndex}/${sampleIndex}`,
    taskId: `task${groupIndex}`,
    groupIndex,
    sampleIndex,
    prompt: 'p',
  }),
  reward,
  ...extra,
});

describe('groupAdvantages', () => {
  it('equal rewards give advantage 0 and std 0', () => {
    expect(groupAdvantages([1, 1, 1, 1])).toEqual({ mean: 1, std: 0, advantages: [0, 0, 0, 0] });
    expect(groupAdvantages([0, 0, 0, 0]).advantages).toEqual([0, 0, 0, 0]);
  });

  it('one winner of four: mean 0.25, sample std 0.5, advantages 1.5 and -0.5', () => {
    // deviations 0.75, -0.25 x3; sum of squares 0.5625 + 3 * 0.0625 = 0.75; / (4 - 1) = 0.25
    const { mean, std, advantages } = groupAdvantages([0, 1, 0, 0]);
    expect(mean).toBe(0.25);
    expect(std).toBeCloseTo(0.5, 12);
    expect(advantages.map((a) => Number(a.toFixed(12)))).toEqual([-0.5, 1.5, -0.5, -0.5]);
  });

  it('a group of two: advantages ±1/sqrt(2) (sample std uses n - 1)', () => {
    // mean 0.5, std = sqrt((0.25 + 0.25) / 1) = sqrt(0.5)
    const { advantages } = groupAdvantages([1, 0]);
    expect(advantages[0]).toBeCloseTo(Math.SQRT1_2, 12);
    expect(advantages[1]).toBeCloseTo(-Math.SQRT1_2, 12);
  });

  it('graded rewards', () => {
    // [0, 0.5, 1]: mean 0.5, std sqrt((0.25 + 0 + 0.25) / 2) = 0.5
    expect(groupAdvantages([0, 0.5, 1]).advantages).toEqual([-1, 0, 1]);
  });

  it('differences below 1e-8 in std count as equal', () => {
    expect(groupAdvantages([0.3, 0.3 + 1e-12, 0.3]).advantages).toEqual([0, 0, 0]);
  });

  it('a NaN reward or a group of one is a clear error', () => {
    expect(() => groupAdvantages([1, Number.NaN, 0])).toThrow(/sample 1 is NaN.*Fix/);
    expect(() => groupAdvantages([1])).toThrow(/at least 2.*Fix: set groupSize/);
  });
});

describe('assignAdvantages', () => {
  const batch = [
    trajectory(1, 0, 1),
    trajectory(0, 0, 0),
    trajectory(0, 1, 1),
    trajectory(1, 1, 1),
    trajectory(0, 2, 0, { prefixBroken: true }),
    trajectory(0, 3, 0),
  ];

  it('groups by groupIndex, sets each advantage, reports per-group stats', () => {
    const { trajectories, groups, zeroStdGroups } = assignAdvantages(batch);
    expect(trajectories.map((t) => Number(t.advantage.toFixed(12)))).toEqual([
      0, -0.5, 1.5, 0, -0.5, -0.5,
    ]);
    expect(groups.map((g) => [g.groupIndex, g.taskId, g.mean, g.zeroStd, g.included])).toEqual([
      [0, 'task0', 0.25, false, true],
      [1, 'task1', 1, true, true],
    ]);
    expect(groups[0]!.rewards).toEqual([0, 1, 0, 0]);
    expect(zeroStdGroups).toBe(1);
    expect(batch[0]!.advantage).toBe(0); // input records are not mutated
    expect(batch[2]!.advantage).toBe(0);
  });

  it('skipZeroStdGroups leaves those groups out of the update but still counts them', () => {
    const kept = assignAdvantages(batch, { skipZeroStdGroups: false });
    expect(trainable(kept.trajectories, kept.groups).map((t) => t.id)).toEqual([
      '0/1/0',
      '0/0/0',
      '0/0/1',
      '0/1/1',
      '0/0/3',
    ]);
    const skipped = assignAdvantages(batch, { skipZeroStdGroups: true });
    expect(skipped.zeroStdGroups).toBe(1);
    expect(skipped.groups[1]!.included).toBe(false);
    // prefix-broken trajectories are out of the update either way
    expect(trainable(skipped.trajectories, skipped.groups).map((t) => t.id)).toEqual([
      '0/0/0',
      '0/0/1',
      '0/0/3',
    ]);
  });

  it('names the group and task of a bad reward', () => {
    expect(() =>
      assignAdvantages([trajectory(3, 0, 1), trajectory(3, 1, Number.POSITIVE_INFINITY)]),
    ).toThrow(/group 3 \(task task3\).*Infinity/);
  });
});
