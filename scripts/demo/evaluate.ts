// pass@1 of a model on tasks, measured the way a run measures it: real multi-turn rollouts
// (src/rl/rollout.ts) in the sandbox, scored by the default rewards (output_match + tests).
import type { CausalLM } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { modelSampler } from '../../src/rl/policy.ts';
import { ranCode, searched, turnUsed } from '../../src/rl/metrics.ts';
import { runEpisodes } from '../../src/rl/episode_loop.ts';
import type { Trajectory } from '../../src/rl/types.ts';
import type { CodeExecutor } from '../../src/env/types.ts';
import { scoreTrajectory, type RewardSettings } from '../../src/rl/rewards.ts';
import type { Task } from '../../src/tasks/task.ts';
import type { Tokenizer } from '../../src/tokenizer/tokenizer.ts';
import type { RunConfig } from '../../src/run/config.ts';
import { resolveRun } from '../../src/run/resolve.ts';

/** Rollout settings of an evaluation (the default run's unless changed). */
export interface EvalSettings {
  samples: number;
  seed: number;
  temperature: number;
  maxNewTokens: number;
  maxTurns: number;
  timeoutMs: number;
  /**
   * The run's tools (its system prompt and parser); absent = execute_code and finish, today's
   * default run.
   */
  tools?: readonly string[];
  /** The rewards that score an episode; absent = the default run's. */
  rewards?: RewardSettings;
}

/** A run's own rollout settings, tools and rewards, for `samples` per task from `seed`. */
export function runEvalSettings(config: RunConfig, samples: number, seed: number): EvalSettings {
  return {
    samples,
    seed,
    temperature: config.temperature,
    maxNewTokens: config.maxNewTokens,
    maxTurns: config.maxTurns,
    timeoutMs: config.timeoutMs,
    tools: config.tools,
    rewards: resolveRun(config).trainer.rewards,
  };
}

/** The default run's rollout settings (RunConfig defaults): temperature 1, 128 tokens, 3 turns. */
export const DEFAULT_EVAL: EvalSettings = {
  samples: 4,
  seed: 0,
  temperature: 1,
  maxNewTokens: 128,
  maxTurns: 3,
  timeoutMs: 5000,
};

/** The default run's rewards. */
export const DEFAULT_REWARDS: RewardSettings = {
  weights: { output_match: 1, tests: 1, final_answer: 0, format: 0 },
  partialCredit: false,
  timeoutMs: 5000,
};

/** What an evaluation found. */
export interface EvalReport {
  passAt1: number;
  /** Pass rate of each task over its samples. */
  byTask: Record<string, number>;
  meanTurns: number;
  /** Share of episodes that ended with a final answer. */
  answered: number;
  /** Share of episodes that ran code at least once. */
  ranCode: number;
  /** Share of episodes that called search at least once. */
  searched: number;
  /** Share of episodes that searched before their first code run (search before coding). */
  searchedFirst: number;
  seconds: number;
  trajectories: Trajectory[];
}

/**
 * Whether the episode searched before it first ran code (the `tool_use` reward's condition): its
 * first search or code turn is a search.
 */
export function searchedFirst(trajectory: Trajectory): boolean {
  const first = trajectory.turns.find(
    (turn) => turnUsed(turn, 'search') || turnUsed(turn, 'execute_code'),
  );
  return first !== undefined && turnUsed(first, 'search');
}

/** Rolls out `samples` episodes per task and scores them. */
export async function evaluate(
  model: CausalLM,
  tokenizer: Tokenizer,
  tasks: readonly Task[],
  executor: CodeExecutor,
  settings: EvalSettings = DEFAULT_EVAL,
): Promise<EvalReport> {
  const started = performance.now();
  const { trajectories } = await runEpisodes(
    tasks,
    { sampler: modelSampler(model), tokenizer, executor, rng: new Rng(settings.seed) },
    {
      groupSize: settings.samples,
      maxTurns: settings.maxTurns,
      maxNewTokens: settings.maxNewTokens,
      temperature: settings.temperature,
      parser: 'strict',
      timeoutMs: settings.timeoutMs,
      step: 0,
      ...(settings.tools ? { tools: settings.tools } : {}),
    },
  );
  const scored: Trajectory[] = [];
  for (const t of trajectories)
    scored.push(
      await scoreTrajectory(
        t,
        tasks[t.groupIndex]!,
        { ...(settings.rewards ?? DEFAULT_REWARDS), timeoutMs: settings.timeoutMs },
        executor,
      ),
    );
  const byTask: Record<string, number> = {};
  for (const task of tasks) {
    const mine = scored.filter((t) => t.taskId === task.id);
    byTask[task.id] = mine.filter((t) => t.passed).length / Math.max(1, mine.length);
  }
  return {
    passAt1: scored.filter((t) => t.passed).length / Math.max(1, scored.length),
    byTask,
    meanTurns: scored.reduce((s, t) => s + t.turns.length, 0) / Math.max(1, scored.length),
    answered:
      scored.filter((t) => t.finishReason === 'final_answer').length / Math.max(1, scored.length),
    ranCode: scored.filter(ranCode).length / Math.max(1, scored.length),
    searched: scored.filter(searched).length / Math.max(1, scored.length),
    searchedFirst: scored.filter(searchedFirst).length / Math.max(1, scored.length),
    seconds: (performance.now() - started) / 1000,
    trajectories: scored,
  };
}
