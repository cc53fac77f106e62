// The one record that carries a trajectory through rollout -> reward -> advantage -> update
// (docs/architecture.md §1, §9.5), and the per-step metrics record. Stages are functions from
// records to records; nothing here touches tensors, so every stage can be tested on plain data.
//
// Token-aligned arrays (`ids`, `actionMask`, `oldLogprobs`, `refLogprobs`) all have length T, the
// packed sequence length: position t holds token ids[t]; logprob[t] = log p(ids[t] | ids[<t]).
// Position 0 is never an action (nothing predicts it).

import type { ExecOutcome } from '../env/types.ts';
import type { StepTimeline } from './timeline.ts';

/**
 * Loss aggregation modes (src/rl/loss.ts), in the order the UI lists them; here so config needs no
 * tfjs.
 */
export const AGGREGATIONS = ['seed', 'token', 'dr_grpo'] as const;
/** How per-token losses become one number. */
export type Aggregation = (typeof AGGREGATIONS)[number];

/**
 * A chat message as the model's chat template renders it. A type alias, not an interface, so it
 * stays assignable to the tokenizer's ChatMessage (which has an index signature).
 */
export type Message = {
  role: 'system' | 'user' | 'assistant';
  content: string;
};

/** A parsed model turn (see src/rl/actions.ts for the grammar). */
export type Action =
  | {
      type: 'execute_code';
      code: string /** the fence was never closed (e.g. cut by max tokens) */;
      unterminated: boolean;
    }
  | { type: 'finish'; answer: string }
  /** A call to a registered tool other than the two built-in actions (e.g. `SEARCH: query`). */
  | { type: 'tool_call'; tool: string; input: string }
  | { type: 'format_error'; observation: string };

/** One call to a tool other than execute_code and finish (search): what went in and came back. */
export interface ToolCall {
  tool: string;
  input: string;
  observation: string;
  durationMs: number;
}

/** A half-open token range [start, end) into the trajectory's `ids`. */
export interface TokenSpan {
  start: number;
  end: number;
}

/** Why generation of one turn stopped. */
export type TurnStop = 'eos' | 'stop' | 'length';

/** One code execution inside an episode. */
export interface Execution {
  code: string;
  result: ExecOutcome;
  durationMs: number;
}

/** One assistant turn and, when the episode went on, the observation appended after it. */
export interface Turn {
  /** Tokens the model sampled this turn (action mask 1 on exactly these). */
  generated: TokenSpan;
  /** Chat markup + observation tokens appended after the turn; null on the last turn. */
  observation: TokenSpan | null;
  /** The decoded generated text. */
  text: string;
  stop: TurnStop;
  action: Action;
  execution: Execution | null;
  /**
   * The tool this turn called through the registry (`execute_code`, `search`, `finish`, ...), null
   * for a format error. Absent on trajectories saved before tools were recorded.
   */
  tool?: string | null;
  /** The call and its result for tools other than execute_code and finish; null otherwise. */
  call?: ToolCall | null;
}

/** How an episode ended. */
export type FinishReason = 'final_answer' | 'timeout' | 'max_turns' | 'context_full' | 'error';

/** A named reward failure, recorded instead of crashing the run. */
export interface RewardError {
  part: string;
  message: string;
}

/** One episode of one task, from rollout to update. */
export interface Trajectory {
  /** Unique within a step, e.g. `3/1/2` (step/group/sample). */
  id: string;
  taskId: string;
  /** Index of the GRPO group (one group per prompt per step) and of the sample within it. */
  groupIndex: number;
  sampleIndex: number;
  prompt: string;
  messages: Message[];
  ids: number[];
  /** 1 on tokens the model generated, 0 on prompt, chat markup and observations. */
  actionMask: number[];
  turns: Turn[];
  /** Rollout-time log-probs (length T, 0 where the mask is 0); null until recorded. */
  oldLogprobs: number[] | null;
  /**
   * Reference-model (adapters off) log-probs, same layout, 0 before the first generated token (a
   * group's prompt runs once, unscored); null when there is no KL term.
   */
  refLogprobs: number[] | null;
  reward: number;
  /** Each reward part's unweighted score in [0, 1], by reward name. */
  rewardParts: Record<string, number>;
  rewardErrors: RewardError[];
  /**
   * Tampering the sandbox's judge saw while the final code ran against the hidden tests (short
   * reasons, e.g. "redefines builtin exec"); non-empty means the `tests` part scored 0.
   */
  tampered: string[];
  /**
   * Where the judge could not keep Python's meaning for the final code's tests (a program object
   * compared by identity, an argument change it could not carry back), in words; absent when none.
   */
  judgeLimits?: string[];
  /** Whether every correctness check that applies passed (pass@1 counts these). */
  passed: boolean;
  advantage: number;
  /** Some turn stopped at maxNewTokens. */
  truncated: boolean;
  timedOut: boolean;
  /** A turn's context was not an exact token prefix of the next; left out of the update. */
  prefixBroken: boolean;
  finishReason: FinishReason;
  /** The text after `FINAL ANSWER:`, or null when the episode never answered. */
  finalAnswer: string | null;
}

/** A trajectory with nothing generated yet: the rollout fills it in. */
export function newTrajectory(
  fields: Pick<Trajectory, 'id' | 'taskId' | 'groupIndex' | 'sampleIndex' | 'prompt'>,
): Trajectory {
  return {
    ...fields,
    messages: [],
    ids: [],
    actionMask: [],
    turns: [],
    oldLogprobs: null,
    refLogprobs: null,
    reward: 0,
    rewardParts: {},
    rewardErrors: [],
    tampered: [],
    passed: false,
    advantage: 0,
    truncated: false,
    timedOut: false,
    prefixBroken: false,
    finishReason: 'max_turns',
    finalAnswer: null,
  };
}

/**
 * Problems with a trajectory's token layout (empty when consistent); cheap enough to run every
 * step.
 */
export function layoutProblems(trajectory: Trajectory): string[] {
  const problems: string[] = [];
  const length = trajectory.ids.length;
  if (trajectory.actionMask.length !== length)
    problems.push(`actionMask has ${trajectory.actionMask.length} entries for ${length} ids`);
  if (trajectory.actionMask.some((m) => m !== 0 && m !== 1))
    problems.push('actionMask holds values other than 0 and 1');
  if (trajectory.actionMask[0] === 1)
    problems.push('actionMask[0] is 1, but nothing predicts the first token');
  for (const name of ['oldLogprobs', 'refLogprobs'] as const) {
    const values = trajectory[name];
    if (values && values.length !== length)
      problems.push(`${name} has ${values.length} entries for ${length} ids`);
  }
  const masked = new Array<number>(length).fill(0);
  let previousEnd = 0;
  trajectory.turns.forEach((turn, i) => {
    for (const [label, span] of [
      ['generated', turn.generated],
      ['observation', turn.observation],
    ] as const) {
      if (!span) continue;
      if (span.start < previousEnd || span.end < span.start || span.end > length) {
        problems.push(
          `turn ${i} ${label} span [${span.start}, ${span.end}) is out of order or outside [0, ${length})`,
        );
        continue;
      }
      previousEnd = span.end;
      if (label === 'generated') for (let t = span.start; t < span.end; t++) masked[t] = 1;
    }
  });
  if (problems.length === 0 && masked.some((m, t) => m !== trajectory.actionMask[t])) {
    problems.push("actionMask differs from the union of the turns' generated spans");
  }
  return problems;
}

/**
 * Metrics of one training step. Keys are snake_case because this record IS the wire format:
 * the CLI's JSON lines (`train` prints at least step, reward_mean, loss, kl) and the CSV export.
 */
export interface StepMetrics {
  step: number;
  reward_mean: number;
  reward_max: number;
  reward_std: number;
  /** Mean of each reward part's score over the step's trajectories. */
  reward_parts: Record<string, number>;
  /** Fraction of trajectories with `passed`. */
  pass_rate: number;
  /** Fraction of groups whose rewards were all equal (advantage 0). */
  zero_std_fraction: number;
  /** Trajectories that went into the update (after prefix breaks and skipped groups). */
  trained_trajectories: number;
  /** Null when the update was skipped. */
  loss: number | null;
  kl: number | null;
  clip_fraction: number | null;
  ratio_mean: number | null;
  entropy: number | null;
  grad_norm: number | null;
  /** Why the update was skipped (non-finite loss or gradient, nothing to train), else null. */
  update_skipped: string | null;
  /** Mean tokens generated per trajectory, summed over its turns. */
  generated_tokens_mean: number;
  turns_mean: number;
  /**
   * Share of episodes that ran code at least once (tool use; an answer without code is a guess).
   */
  ran_code_fraction: number;
  /** Share of episodes that called search at least once. Absent in runs saved before search. */
  search_fraction?: number;
  /** Share of episodes that both searched and ran code. Absent in runs saved before search. */
  searched_and_ran_fraction?: number;
  timeouts: number;
  /** Episodes flagged for tampering with their tests (reward hacking; `Trajectory.tampered`). */
  reward_hacks: number;
  truncations: number;
  prefix_breaks: number;
  reward_errors: number;
  format_errors: number;
  tokens_per_s: number;
  seconds_generate: number;
  seconds_sandbox: number;
  seconds_train: number;
  /**
   * Decoding steps the rollout ran: calls of the model for a batch's next token (a batch runs
   * until its longest sequence stops). Absent in runs saved before it, and with `async`.
   */
  decode_steps?: number;
  /** Held-out pass@1 when this step ran an evaluation, else null. */
  eval_pass_at_1: number | null;
  /**
   * Seconds of the step's wall time the trainer lane did no work (src/rl/timeline.ts); absent in
   * runs saved before the timeline.
   */
  seconds_idle_trainer?: number;
  /** Seconds of the step's wall time the rollout lane did not generate. */
  seconds_idle_rollout?: number;
  /** Share of the step's wall time where rollout and update ran at once (0 when synchronous). */
  overlap_fraction?: number;
  /** Steps the trained batch's behaviour policy was behind (0 or 1); with `async` only. */
  staleness?: number;
  /** Rollout workers started again during this step (one died); with `async` only. */
  rollout_restarts?: number;
  /** Episodes sampled and then not trained on during this step; with `async` only. */
  episodes_dropped?: number;
  /** The step's spans per lane, for the page's timeline. */
  timeline?: StepTimeline;
}
