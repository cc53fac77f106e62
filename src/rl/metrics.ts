// Per-step metrics from the step's records: rollout figures come from the trajectories, spread
// figures from the advantage stage's groups, loss figures from the update, times from the trainer.
// Pure functions over plain data, so the CLI, the UI and tests aggregate the same way.
import type { GroupStats } from './advantage.ts';
import { timelineFigures, type StepTimeline } from './timeline.ts';
import type { StepMetrics, Trajectory, Turn } from './types.ts';

/** Arithmetic mean; 0 for an empty list (a step with nothing to average shows 0, not NaN). */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** Population standard deviation (the spread of this step's rewards, not an estimate). */
export function populationStd(values: readonly number[]): number {
  const m = mean(values);
  return Math.sqrt(mean(values.map((v) => (v - m) ** 2)));
}

/** Numbers the update reports (null fields when it was skipped). */
export interface UpdateStats {
  loss: number | null;
  kl: number | null;
  clipFraction: number | null;
  ratioMean: number | null;
  entropy: number | null;
  gradNorm: number | null;
  /** Why the update was skipped, else null. */
  skipped: string | null;
  trainedTrajectories: number;
}

/** Wall-clock seconds per phase of the step. */
export interface PhaseSeconds {
  generate: number;
  sandbox: number;
  train: number;
}

/** Diagnostics of one micro-batch pass, for `combineDiagnostics`. */
export interface BatchDiagnostics {
  kl: number;
  clipFraction: number;
  ratioMean: number;
  actionTokens: number;
}

/**
 * Token-weighted mean of micro-batch diagnostics (each one is a mean over its own action tokens).
 */
export function combineDiagnostics(parts: readonly BatchDiagnostics[]): BatchDiagnostics {
  const actionTokens = parts.reduce((sum, p) => sum + p.actionTokens, 0);
  const weighted = (key: 'kl' | 'clipFraction' | 'ratioMean') =>
    actionTokens === 0
      ? 0
      : parts.reduce((sum, p) => sum + p[key] * p.actionTokens, 0) / actionTokens;
  return {
    kl: weighted('kl'),
    clipFraction: weighted('clipFraction'),
    ratioMean: weighted('ratioMean'),
    actionTokens,
  };
}

/** Whether a turn called `tool` (recorded as `turn.tool`; older records only have the action). */
export function turnUsed(turn: Turn, tool: string): boolean {
  if (turn.tool !== undefined && turn.tool !== null) return turn.tool === tool;
  switch (turn.action.type) {
    case 'execute_code':
    case 'finish':
      return turn.action.type === tool;
    case 'tool_call':
      return turn.action.tool === tool;
    case 'format_error':
      return false;
  }
}

/**
 * Whether an episode ran code at least once (one that never did answered, if at all, by guessing).
 */
export function ranCode(trajectory: Pick<Trajectory, 'turns'>): boolean {
  return trajectory.turns.some((turn) => turnUsed(turn, 'execute_code'));
}

/** Whether an episode called search at least once. */
export function searched(trajectory: Pick<Trajectory, 'turns'>): boolean {
  return trajectory.turns.some((turn) => turnUsed(turn, 'search'));
}

/** Tokens the model generated in a trajectory (all turns). */
export function generatedTokens(trajectory: Trajectory): number {
  return trajectory.turns.reduce(
    (sum, turn) => sum + (turn.generated.end - turn.generated.start),
    0,
  );
}

/** Mean score of each reward part over the trajectories it was scored on. */
export function rewardPartMeans(trajectories: readonly Trajectory[]): Record<string, number> {
  const names = [...new Set(trajectories.flatMap((t) => Object.keys(t.rewardParts)))].sort();
  return Object.fromEntries(
    names.map((name) => [
      name,
      mean(trajectories.filter((t) => name in t.rewardParts).map((t) => t.rewardParts[name]!)),
    ]),
  );
}

/** The metrics record of one step. */
export function stepMetrics(input: {
  step: number;
  trajectories: readonly Trajectory[];
  groups: readonly GroupStats[];
  update: UpdateStats | null;
  seconds: PhaseSeconds;
  evalPassAt1?: number | null;
  /** Decoding steps the rollout ran (EpisodeLoopTiming.decodeSteps), where it counted them. */
  decodeSteps?: number;
  /** The step's spans (src/rl/timeline.ts); absent: the idle and overlap figures are 0. */
  timeline?: StepTimeline;
}): StepMetrics {
  const { trajectories: all, groups, update, seconds } = input;
  const rewards = all.map((t) => t.reward);
  const tokens = all.map(generatedTokens);
  const totalTokens = tokens.reduce((sum, n) => sum + n, 0);
  const count = (predicate: (t: Trajectory) => boolean) => all.filter(predicate).length;
  const share = (predicate: (t: Trajectory) => boolean) =>
    mean(all.map((t) => (predicate(t) ? 1 : 0)));
  return {
    step: input.step,
    reward_mean: mean(rewards),
    reward_max: rewards.length === 0 ? 0 : Math.max(...rewards),
    reward_std: populationStd(rewards),
    reward_parts: rewardPartMeans(all),
    pass_rate: mean(all.map((t) => (t.passed ? 1 : 0))),
    zero_std_fraction:
      groups.length === 0 ? 0 : groups.filter((g) => g.zeroStd).length / groups.length,
    trained_trajectories: update?.trainedTrajectories ?? 0,
    loss: update?.loss ?? null,
    kl: update?.kl ?? null,
    clip_fraction: update?.clipFraction ?? null,
    ratio_mean: update?.ratioMean ?? null,
    entropy: update?.entropy ?? null,
    grad_norm: update?.gradNorm ?? null,
    update_skipped: update ? update.skipped : 'no update',
    generated_tokens_mean: mean(tokens),
    turns_mean: mean(all.map((t) => t.turns.length)),
    ran_code_fraction: share(ranCode),
    search_fraction: share(searched),
    searched_and_ran_fraction: share((t) => searched(t) && ranCode(t)),
    timeouts: count((t) => t.timedOut),
    reward_hacks: count((t) => t.tampered.length > 0),
    truncations: count((t) => t.truncated),
    prefix_breaks: count((t) => t.prefixBroken),
    reward_errors: all.reduce((sum, t) => sum + t.rewardErrors.length, 0),
    format_errors: all.reduce(
      (sum, t) => sum + t.turns.filter((turn) => turn.action.type === 'format_error').length,
      0,
    ),
    tokens_per_s: seconds.generate > 0 ? totalTokens / seconds.generate : 0,
    seconds_generate: seconds.generate,
    seconds_sandbox: seconds.sandbox,
    seconds_train: seconds.train,
    ...(input.decodeSteps !== undefined ? { decode_steps: input.decodeSteps } : {}),
    eval_pass_at_1: input.evalPassAt1 ?? null,
    ...timelineFigures(input.timeline),
    ...(input.timeline ? { timeline: input.timeline } : {}),
  };
}

/**
 * One flat row per step for CSV export and charts: reward parts become `reward_<name>` columns (the
 * timeline's spans are not a column; its figures are).
 */
export function flattenMetrics(metrics: StepMetrics): Record<string, number | string | null> {
  const { reward_parts: parts, timeline: _spans, ...rest } = metrics;
  return {
    ...rest,
    ...Object.fromEntries(Object.entries(parts).map(([name, value]) => [`reward_${name}`, value])),
  };
}

/** The run summary: first and last `window` steps' mean reward and pass rate, and the gain. */
export function summarizeRun(history: readonly StepMetrics[], window = 5): Record<string, number> {
  const first = history.slice(0, window);
  const last = history.slice(-window);
  const avg = (rows: readonly StepMetrics[], key: 'reward_mean' | 'pass_rate') =>
    mean(rows.map((m) => m[key]));
  return {
    steps: history.length,
    reward_mean_first: avg(first, 'reward_mean'),
    reward_mean_last: avg(last, 'reward_mean'),
    reward_gain: avg(last, 'reward_mean') - avg(first, 'reward_mean'),
    pass_rate_first: avg(first, 'pass_rate'),
    pass_rate_last: avg(last, 'pass_rate'),
    // a step's wall time where its timeline has one: overlapped phases must not count twice
    seconds_total: history.reduce(
      (sum, m) =>
        sum +
        (m.timeline?.seconds_wall ?? m.seconds_generate + m.seconds_sandbox + m.seconds_train),
      0,
    ),
  };
}
