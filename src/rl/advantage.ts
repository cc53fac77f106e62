// GRPO advantages, exactly as the reference design computes them: within each group of samples
// of one prompt, A_i = (r_i - mean) / std with the SAMPLE standard deviation (divide by n - 1),
// and A_i = 0 when std < 1e-8 (all rewards equal: nothing to compare, nothing to learn).
import type { Trajectory } from './types.ts';

/** Below this the group's rewards count as equal (the reference design's threshold). */
export const ZERO_STD = 1e-8;

/** One group's numbers, for the UI's phase stepper and for metrics. */
export interface GroupStats {
  groupIndex: number;
  taskId: string;
  rewards: number[];
  mean: number;
  /** Sample standard deviation (n - 1). */
  std: number;
  advantages: number[];
  /** std < ZERO_STD: every advantage is 0. */
  zeroStd: boolean;
  /**
   * Whether the group's trajectories go into the update (false only when skipping zero-std groups).
   */
  included: boolean;
}

/** Options of the advantage stage. */
export interface AdvantageOptions {
  /** Leave zero-std groups out of the update (DAPO's dynamic sampling, without resampling). */
  skipZeroStdGroups?: boolean;
}

/** Advantages of one group's rewards; throws on a non-finite reward or a group smaller than 2. */
export function groupAdvantages(rewards: readonly number[]): {
  mean: number;
  std: number;
  advantages: number[];
} {
  const n = rewards.length;
  if (n < 2) {
    throw new Error(
      `a GRPO group needs at least 2 samples to compare, got ${n}. Fix: set groupSize to 2 or more.`,
    );
  }
  rewards.forEach((r, i) => {
    if (!Number.isFinite(r)) {
      throw new Error(
        `reward of sample ${i} is ${r}; rewards must be finite numbers. Fix: make the reward function return a number in [0, 1].`,
      );
    }
  });
  const mean = rewards.reduce((sum, r) => sum + r, 0) / n;
  const std = Math.sqrt(rewards.reduce((sum, r) => sum + (r - mean) ** 2, 0) / (n - 1));
  const advantages = rewards.map((r) => (std < ZERO_STD ? 0 : (r - mean) / std));
  return { mean, std, advantages };
}

/**
 * The advantage stage over a step's trajectories: groups them by `groupIndex`, sets `advantage`.
 */
export function assignAdvantages(
  trajectories: readonly Trajectory[],
  options: AdvantageOptions = {},
): { trajectories: Trajectory[]; groups: GroupStats[]; zeroStdGroups: number } {
  const byGroup = new Map<number, number[]>(); // groupIndex -> indices into `trajectories`
  trajectories.forEach((trajectory, i) => {
    byGroup.set(trajectory.groupIndex, [...(byGroup.get(trajectory.groupIndex) ?? []), i]);
  });
  const advantage = new Array<number>(trajectories.length).fill(0);
  const groups: GroupStats[] = [];
  for (const [groupIndex, indices] of [...byGroup].sort((a, b) => a[0] - b[0])) {
    const members = indices.map((i) => trajectories[i]!);
    const rewards = members.map((t) => t.reward);
    let stats: ReturnType<typeof groupAdvantages>;
    try {
      stats = groupAdvantages(rewards);
    } catch (error) {
      throw new Error(
        `group ${groupIndex} (task ${members[0]!.taskId}): ${(error as Error).message}`,
      );
    }
    const zeroStd = stats.std < ZERO_STD;
    indices.forEach((i, k) => {
      advantage[i] = stats.advantages[k]!;
    });
    groups.push({
      groupIndex,
      taskId: members[0]!.taskId,
      rewards,
      ...stats,
      zeroStd,
      included: !(zeroStd && options.skipZeroStdGroups),
    });
  }
  return {
    trajectories: trajectories.map((t, i) => ({ ...t, advantage: advantage[i]! })),
    groups,
    zeroStdGroups: groups.filter((g) => g.zeroStd).length,
  };
}

/**
 * The trajectories that enter the update: not prefix-broken, and in an included group.
 * Prefix-broken trajectories still count in their group's mean and std (their reward is real).
 */
export function trainable(
  trajectories: readonly Trajectory[],
  groups: readonly GroupStats[],
): Trajectory[] {
  const excluded = new Set(groups.filter((g) => !g.included).map((g) => g.groupIndex));
  return trajectories.filter((t) => !t.prefixBroken && !excluded.has(t.groupIndex));
}
