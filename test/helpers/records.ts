// Test builders for the records the page shows (Trajectory, StepMetrics): plausible, deterministic,
// and consistent with layoutProblems(). Tokens are text chunks of up to 4 characters, so a
// trajectory's token texts are known without a tokenizer.
import {
  layoutProblems,
  type StepMetrics,
  type Trajectory,
  type Turn,
} from '../../src/rl/types.ts';
import type { ExecOutcome } from '../../src/env/types.ts';

/** One turn to build: what the model wrote and, unless it is the last, what the sandbox said. */
export interface TurnSpec {
  text: string;
  /** Code executed this turn (null: a FINAL ANSWER turn or a format error). */
  code: string | null;
  result?: Partial<ExecOutcome>;
}

/** Splits text into "tokens" of up to 4 characters. */
export function chunkTokens(text: string): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += 4) chunks.push(text.slice(i, i + 4));
  return chunks.length > 0 ? chunks : [''];
}

/** A trajectory with consistent ids, action mask and spans, plus its per-token texts. */
export function buildTrajectory(fields: {
  step: number;
  taskId: string;
  prompt: string;
  groupIndex: number;
  sampleIndex: number;
  turns: TurnSpec[];
  reward: number;
  advantage?: number;
  passed?: boolean;
  finalAnswer?: string | null;
  timedOut?: boolean;
  truncated?: boolean;
}): { trajectory: Trajectory; tokenTexts: string[] } {
  const tokenTexts: string[] = [];
  const actionMask: number[] = [];
  const push = (text: string, mask: 0 | 1) => {
    for (const chunk of chunkTokens(text)) {
      tokenTexts.push(chunk);
      actionMask.push(mask);
    }
  };
  push(`<system>You solve tasks with Python.</system><user>${fields.prompt}</user><assistant>`, 0);
  const turns: Turn[] = fields.turns.map((spec, i) => {
    const start = tokenTexts.length;
    push(spec.text, 1);
    const generated = { start, end: tokenTexts.length };
    const result: ExecOutcome | null =
      spec.code === null
        ? null
        : {
            ok: true,
            observation: '',
            timedOut: false,
            error: null,
            ...spec.result,
          };
    let observation = null;
    if (i < fields.turns.length - 1) {
      const obsStart = tokenTexts.length;
      push(
        `</assistant><user>Execution result:\n${result?.observation ?? ''}</user><assistant>`,
        0,
      );
      observation = { start: obsStart, end: tokenTexts.length };
    }
    const action: Turn['action'] =
      spec.code !== null
        ? { type: 'execute_code', code: spec.code, unterminated: false }
        : { type: 'finish', answer: fields.finalAnswer ?? '' };
    return {
      generated,
      observation,
      text: spec.text,
      stop: 'eos',
      action,
      execution: result && spec.code !== null ? { code: spec.code, result, durationMs: 12 } : null,
    };
  });
  const messages: Trajectory['messages'] = [
    { role: 'system', content: 'You solve tasks with Python.' },
    { role: 'user', content: fields.prompt },
  ];
  fields.turns.forEach((spec, i) => {
    messages.push({ role: 'assistant', content: spec.text });
    if (i < fields.turns.length - 1)
      messages.push({
        role: 'user',
        content: `Execution result:\n${turns[i]!.execution?.result.observation ?? ''}`,
      });
  });
  const ids = tokenTexts.map((_, t) => 300 + t);
  const trajectory: Trajectory = {
    id: `${fields.step}/${fields.groupIndex}/${fields.sampleIndex}`,
    taskId: fields.taskId,
    groupIndex: fields.groupIndex,
    sampleIndex: fields.sampleIndex,
    prompt: fields.prompt,
    messages,
    ids,
    actionMask,
    turns,
    oldLogprobs: ids.map((_, t) => (actionMask[t] ? -1.5 : 0)),
    refLogprobs: null,
    reward: fields.reward,
    rewardParts: { output_match: fields.reward },
    rewardErrors: [],
    tampered: [],
    passed: fields.passed ?? fields.reward >= 1,
    advantage: fields.advantage ?? 0,
    truncated: fields.truncated ?? false,
    timedOut: fields.timedOut ?? false,
    prefixBroken: false,
    finishReason: fields.timedOut
      ? 'timeout'
      : fields.finalAnswer != null
        ? 'final_answer'
        : 'max_turns',
    finalAnswer: fields.finalAnswer ?? null,
  };
  const problems = layoutProblems(trajectory);
  if (problems.length > 0)
    throw new Error(`test builder made a bad trajectory: ${problems.join('; ')}`);
  return { trajectory, tokenTexts };
}

/** A StepMetrics record with every field, `overrides` on top. */
export function buildMetrics(step: number, overrides: Partial<StepMetrics> = {}): StepMetrics {
  return {
    step,
    reward_mean: 0.25,
    reward_max: 1,
    reward_std: 0.4,
    reward_parts: { output_match: 0.25 },
    pass_rate: 0.25,
    zero_std_fraction: 0.33,
    trained_trajectories: 12,
    loss: 0.012,
    kl: 0.001,
    clip_fraction: 0.05,
    ratio_mean: 1,
    entropy: 1.2,
    grad_norm: 0.8,
    update_skipped: null,
    generated_tokens_mean: 60,
    turns_mean: 1.5,
    ran_code_fraction: 0.75,
    timeouts: 0,
    reward_hacks: 0,
    truncations: 1,
    prefix_breaks: 0,
    reward_errors: 0,
    format_errors: 1,
    tokens_per_s: 120,
    seconds_generate: 2.5,
    seconds_sandbox: 0.4,
    seconds_train: 1.5,
    eval_pass_at_1: null,
    ...overrides,
  };
}
