// What the Update panel says under a step's numbers: which samples the update pushed up or down,
// or, when no group had different rewards, that every advantage was 0 and the rewards taught this
// update nothing (GRPO learns only from groups whose samples differ). Pure: no DOM.
import type { GroupStats } from '../../rl/advantage.ts';
import type { StepMetrics, Trajectory } from '../../rl/types.ts';

/** The update's sentence, and whether any sample had a nonzero advantage. */
export interface UpdateSummary {
  signal: boolean;
  text: string;
}

/** Below this an advantage counts as 0 (the advantage stage's zero-std rule gives exact zeros). */
const ZERO = 1e-9;

/**
 * The sentence for an update: green and red samples when some advantage is nonzero; otherwise
 * why nothing was learned from the rewards, and what the update did instead (nothing, when the
 * gradient was 0; else only the KL penalty's pull back toward the reference moved the weights).
 */
export function updateSummary(
  trajectories: readonly Pick<Trajectory, 'advantage' | 'groupIndex'>[],
  groups: readonly Pick<GroupStats, 'zeroStd' | 'included'>[] | null,
  metrics: Pick<StepMetrics, 'grad_norm' | 'update_skipped'> | null,
): UpdateSummary {
  const uniform = groups?.filter((g) => g.zeroStd).length ?? 0;
  const signal =
    trajectories.some((t) => Math.abs(t.advantage) > ZERO) &&
    (groups === null || groups.some((g) => !g.zeroStd && g.included));
  if (signal) {
    const some =
      uniform > 0
        ? ` ${uniform} of ${groups!.length} groups had equal rewards: their advantages are 0 and they taught nothing.`
        : '';
    return {
      signal,
      text: `Green samples had a positive advantage (their tokens were made more likely), red ones negative.${some}`,
    };
  }
  const why =
    groups !== null && groups.length > 0 && uniform === groups.length
      ? `No group had different rewards (${groups.length === 1 ? 'its samples all scored' : `in each of the ${groups.length} groups every sample scored`} the same), so every advantage is 0`
      : 'Every advantage is 0';
  const norm = metrics?.grad_norm ?? null;
  const effect =
    metrics?.update_skipped || norm === null || norm === 0
      ? 'this update changed nothing'
      : 'the rewards taught this update nothing (only the KL penalty, pulling back toward the reference, moved the weights)';
  return {
    signal,
    text: `${why} and ${effect}: GRPO learns only from groups whose samples differ.`,
  };
}
