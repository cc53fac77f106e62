// Verifiable rewards, composable with weights (docs/architecture.md §9.6: a registry). Each part
// scores a finished episode in [0, 1] and is logged on the trajectory; the reward is the weighted
// mean of the parts that APPLY to the task (a part applies when the task has what it checks: an
// expected output, or hidden tests) and have a weight above 0. So the seed tasks get exactly the
// reference design's reward (output_match alone), and a built-in task with the defaults gets the
// mean of output_match and tests.
//
// Rules: a timed-out episode scores 0 overall (the reference ends the episode at TIMEOUT). A part
// that throws, or returns something outside [0, 1], scores 0 and is recorded as a reward error; it
// never crashes the run.
import type { Trajectory, RewardError } from './types.ts';
import { turnUsed } from './metrics.ts';
import type { CodeExecutor } from '../env/types.ts';
import type { Task } from '../tasks/task.ts';
import {
  hiddenTests,
  newNonce,
  parseTestsReport,
  testCount,
  testsProgram,
} from '../tasks/tests_harness.ts';

/** How many hidden tests the final code passed, as the `tests` part counted them. */
export interface TestCounts {
  passed: number;
  total: number;
}

/** What a part found besides its score (the `tests` part: tampering and counts). */
export interface RewardFindings {
  tampered: string[];
  testCounts: TestCounts | null;
  /** Where the judge could not keep Python's meaning, in words (Judgement.limits). */
  judgeLimits?: string[];
}

/** What a reward part may read: the finished episode, the task, and a sandbox. */
export interface RewardContext {
  task: Task;
  trajectory: Pick<Trajectory, 'turns' | 'finalAnswer' | 'timedOut'>;
  executor: CodeExecutor;
  partialCredit: boolean;
  timeoutMs: number;
  /** Filled by parts as they score (scoreTrajectory puts them on the trajectory). */
  findings?: RewardFindings;
}

/** One reward part. */
export interface RewardPart {
  /** One line for the UI. */
  description: string;
  /** Counts toward `passed` (pass@1); the format reward does not. */
  correctness: boolean;
  applies(task: Task): boolean;
  score(context: RewardContext): number | Promise<number>;
}

/** Trims and collapses runs of whitespace, so answers that differ only in spacing compare equal. */
export function normalizeWhitespace(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

/** The reference rule: the last non-empty line (stripped) of an observation. */
export function lastLine(observation: string): string | null {
  const lines = observation
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return lines.at(-1) ?? null;
}

/** The code of the episode's last executed turn: what the agent "submitted". */
export function finalCode(trajectory: RewardContext['trajectory']): string | null {
  return (
    trajectory.turns
      .map((turn) => turn.execution?.code)
      .filter((code) => code !== undefined)
      .at(-1) ?? null
  );
}

const rewardTable = {
  output_match: {
    description: 'the last non-empty line of any execution equals the expected output',
    correctness: true,
    applies: (task) => task.expectedOutput !== null,
    score: ({ task, trajectory }) => {
      const expected = task.expectedOutput!.trim();
      return trajectory.turns.some(
        (turn) => turn.execution && lastLine(turn.execution.result.observation) === expected,
      )
        ? 1
        : 0;
    },
  },
  tests: {
    description: 'the final code passes every hidden test in the sandbox',
    correctness: true,
    applies: (task) => task.tests !== null && task.tests.length > 0,
    score: async ({ task, trajectory, executor, partialCredit, timeoutMs, findings }) => {
      const code = finalCode(trajectory);
      if (code === null) return 0;
      const tests = task.tests!;
      // Only asserts count; setup lines run before the asserts that use them.
      const total = testCount(tests);
      if (total === 0) return 0;
      if (executor.judge) {
        // The verdict is computed where the program cannot reach it (docs/sandbox.md "The judge").
        const judged = await executor.judge(code, hiddenTests(tests), { timeoutMs });
        if (findings) {
          findings.tampered = [...judged.tampered];
          findings.testCounts = { passed: judged.passed, total: judged.total };
          if (judged.limits && judged.limits.length > 0) findings.judgeLimits = [...judged.limits];
        }
        if (
          judged.tampered.length > 0 ||
          judged.timedOut ||
          judged.total !== total ||
          judged.tests.length !== total
        )
          return 0;
        return partialCredit
          ? judged.passed / judged.total
          : judged.passed === judged.total
            ? 1
            : 0;
      }
      // An executor that only runs programs (a CPython subprocess in tests, the demo scripts): the
      // legacy single program, whose report a program could forge, and no tamper detection.
      const nonce = newNonce();
      const result = await executor.execute(testsProgram(code, tests, nonce), { timeoutMs });
      const report = result.timedOut ? null : parseTestsReport(result.observation, nonce, total);
      if (findings) findings.testCounts = report;
      if (!report || report.total === 0) return 0;
      return partialCredit ? report.passed / report.total : report.passed === report.total ? 1 : 0;
    },
  },
  final_answer: {
    description: 'the FINAL ANSWER text equals the expected output (whitespace normalized)',
    correctness: true,
    applies: (task) => task.expectedOutput !== null,
    score: ({ task, trajectory }) =>
      trajectory.finalAnswer !== null &&
      normalizeWhitespace(trajectory.finalAnswer) === normalizeWhitespace(task.expectedOutput!)
        ? 1
        : 0,
  },
  format: {
    description: 'every turn was a well-formed action and the episode ended with FINAL ANSWER',
    correctness: false,
    applies: () => true,
    score: ({ trajectory }) => {
      const wellFormed = trajectory.turns.every(
        (turn) =>
          turn.action.type === 'finish' ||
          turn.action.type === 'tool_call' ||
          (turn.action.type === 'execute_code' && !turn.action.unterminated),
      );
      return wellFormed && trajectory.turns.at(-1)?.action.type === 'finish' ? 1 : 0;
    },
  },
  tool_use: {
    description: 'the episode searched the docs before it first ran code (shaping, off by default)',
    correctness: false,
    applies: () => true,
    // An episode that searched and then answered without code still searched first: the other
    // parts judge the answer; this one only asks whether a look-up came before a guess in code.
    score: ({ trajectory }) => {
      const first = (tool: string) => {
        const index = trajectory.turns.findIndex((turn) => turnUsed(turn, tool));
        return index < 0 ? Number.POSITIVE_INFINITY : index;
      };
      const search = first('search');
      return search < first('execute_code') ? 1 : 0;
    },
  },
} satisfies Record<string, RewardPart>;

/** A reward part's name. */
export type RewardName = keyof typeof rewardTable;
/** Reward parts by name; the same map gives the config and the UI their names. */
export const REWARDS: ReadonlyMap<RewardName, RewardPart> = new Map(
  Object.entries(rewardTable) as [RewardName, RewardPart][],
);
/**
 * Parts a weights object may leave out (then 0, off): shaping parts added after weights were
 * written into configs, scripts and saved runs. A validated RunConfig always has them all.
 */
type OptionalPart = 'tool_use';
/** A weight per reward part (0 = off). */
export type RewardWeights = Record<Exclude<RewardName, OptionalPart>, number> &
  Partial<Record<OptionalPart, number>>;

/** A part's weight (a part left out weighs 0). */
export function weightOf(weights: RewardWeights, name: RewardName): number {
  return weights[name] ?? 0;
}

/** How to score: weights, partial credit for tests, and the sandbox timeout for test runs. */
export interface RewardSettings {
  weights: RewardWeights;
  partialCredit: boolean;
  timeoutMs: number;
}

/** The parts that count for a task under these weights. */
export function activeRewards(task: Task, weights: RewardWeights): RewardName[] {
  return [...REWARDS]
    .filter(([name, part]) => weightOf(weights, name) > 0 && part.applies(task))
    .map(([name]) => name);
}

/**
 * Tasks for which no correctness reward applies (they could never be learned): one message each.
 */
export function rewardCoverageProblems(tasks: readonly Task[], weights: RewardWeights): string[] {
  return tasks
    .filter((task) => !activeRewards(task, weights).some((name) => REWARDS.get(name)!.correctness))
    .map(
      (task) =>
        `task ${task.id} has no reward that applies to it (it has ${task.expectedOutput !== null ? 'an expected output' : 'hidden tests'}). ` +
        `Fix: give ${task.expectedOutput !== null ? 'output_match or final_answer' : 'tests'} a weight above 0.`,
    );
}

/**
 * The reward stage: scores one finished trajectory and returns it with reward, parts, errors,
 * `passed` and `tampered` (the judge's tamper reasons; the `tests` part scores 0 when there are
 * any). The hidden-test counts ride along as `testCounts`, a non-enumerable property (null when the
 * `tests` part did not run), so the record's wire format does not change.
 */
export async function scoreTrajectory<T extends RewardContext['trajectory']>(
  trajectory: T,
  task: Task,
  settings: RewardSettings,
  executor: CodeExecutor,
): Promise<
  T &
    Pick<
      Trajectory,
      'reward' | 'rewardParts' | 'rewardErrors' | 'passed' | 'tampered' | 'judgeLimits'
    > & {
      readonly testCounts: TestCounts | null;
    }
> {
  const active = activeRewards(task, settings.weights);
  const rewardParts: Record<string, number> = {};
  const rewardErrors: RewardError[] = [];
  if (active.length === 0)
    rewardErrors.push({
      part: '*',
      message: `no reward applies to task ${task.id} with these weights`,
    });
  const findings: RewardFindings = { tampered: [], testCounts: null };
  const context: RewardContext = {
    task,
    trajectory,
    executor,
    partialCredit: settings.partialCredit,
    timeoutMs: settings.timeoutMs,
    findings,
  };
  for (const name of active) {
    if (trajectory.timedOut) {
      rewardParts[name] = 0;
      continue;
    }
    try {
      const value = await REWARDS.get(name)!.score(context);
      if (typeof value !== 'number' || !(value >= 0 && value <= 1))
        throw new Error(`returned ${String(value)}, not a number in [0, 1]`);
      rewardParts[name] = value;
    } catch (error) {
      rewardParts[name] = 0;
      rewardErrors.push({
        part: name,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }
  const weight = (name: RewardName) => weightOf(settings.weights, name);
  const weightSum = active.reduce((sum, name) => sum + weight(name), 0);
  const reward =
    weightSum > 0
      ? active.reduce((sum, name) => sum + weight(name) * rewardParts[name]!, 0) / weightSum
      : 0;
  const correctness = active.filter((name) => REWARDS.get(name)!.correctness);
  const passed =
    !trajectory.timedOut &&
    correctness.length > 0 &&
    correctness.every((name) => rewardParts[name] === 1);
  const scored = {
    ...trajectory,
    reward,
    rewardParts,
    rewardErrors,
    passed,
    tampered: findings.tampered,
    ...(findings.judgeLimits ? { judgeLimits: findings.judgeLimits } : {}),
  };
  return Object.defineProperty(scored, 'testCounts', {
    value: findings.testCounts,
    enumerable: false,
  }) as typeof scored & { readonly testCounts: TestCounts | null };
}
