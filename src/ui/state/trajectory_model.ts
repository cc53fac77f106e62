// What the trajectory viewer shows, computed from the records alone (no DOM): groups of samples per
// prompt, filters, outcome badges, and each turn split into what the model generated (action mask
// 1, trained on) and what it was shown (mask 0). With per-token texts the split is exact per token.
// Each turn names the tool it called; trajectories saved before tools were recorded infer it from
// the action, so old runs still show.
import { lastLine, normalizeWhitespace, type RewardWeights } from '../../rl/rewards.ts';
import type { Task } from '../../tasks/task.ts';
import { testCount } from '../../tasks/tests_harness.ts';
import type { Trajectory, Turn } from '../../rl/types.ts';

/** The viewer's filters. */
export const TRAJECTORY_FILTERS = [
  'all',
  'failures',
  'timeouts',
  'tampered',
  'best',
  'worst',
] as const;
/** One of TRAJECTORY_FILTERS. */
export type TrajectoryFilter = (typeof TRAJECTORY_FILTERS)[number];

/** The G samples of one prompt. */
export interface SampleGroup {
  groupIndex: number;
  taskId: string;
  prompt: string;
  samples: Trajectory[];
}

/** Trajectories grouped by GRPO group, groups and samples in index order. */
export function groupTrajectories(trajectories: readonly Trajectory[]): SampleGroup[] {
  const groups = new Map<number, SampleGroup>();
  for (const t of trajectories) {
    const group = groups.get(t.groupIndex) ?? {
      groupIndex: t.groupIndex,
      taskId: t.taskId,
      prompt: t.prompt,
      samples: [],
    };
    group.samples.push(t);
    groups.set(t.groupIndex, group);
  }
  for (const group of groups.values()) group.samples.sort((a, b) => a.sampleIndex - b.sampleIndex);
  return [...groups.values()].sort((a, b) => a.groupIndex - b.groupIndex);
}

/**
 * The samples of a group that pass `filter` (best/worst: the highest/lowest reward, first on ties).
 */
export function filterSamples(
  samples: readonly Trajectory[],
  filter: TrajectoryFilter,
): Trajectory[] {
  switch (filter) {
    case 'all':
      return [...samples];
    case 'failures':
      return samples.filter((t) => !t.passed);
    case 'timeouts':
      return samples.filter((t) => t.timedOut);
    case 'tampered':
      return samples.filter((t) => t.tampered.length > 0);
    case 'best':
    case 'worst': {
      if (samples.length === 0) return [];
      const pick = samples.reduce((a, b) =>
        (filter === 'best' ? b.reward > a.reward : b.reward < a.reward) ? b : a,
      );
      return [pick];
    }
  }
}

/** One label for how an episode went; `detail` is shown on hover. */
export interface OutcomeBadge {
  label: string;
  /** `tool`: a call to a tool other than code and answer (search), in that tool's colour. */
  tone: 'good' | 'bad' | 'warn' | 'info' | 'tool';
  detail?: string;
}

/** Short labels for how an episode went, most important first. */
export function outcomeBadges(t: Trajectory): OutcomeBadge[] {
  const badges: OutcomeBadge[] = [];
  badges.push(t.passed ? { label: 'passed', tone: 'good' } : { label: 'failed', tone: 'bad' });
  if (t.tampered.length > 0) {
    badges.push({
      label: 'tampered',
      tone: 'bad',
      detail: tamperedText(t),
    });
  }
  if (t.judgeLimits && t.judgeLimits.length > 0) {
    badges.push({
      label: 'judge limit',
      tone: 'warn',
      detail: `The judge could not keep Python's meaning here: ${t.judgeLimits.join('; ')}`,
    });
  }
  if (t.timedOut) badges.push({ label: 'timeout', tone: 'bad' });
  if (t.truncated) badges.push({ label: 'truncated', tone: 'warn' });
  const formatErrors = t.turns.filter((turn) => turn.action.type === 'format_error').length;
  if (formatErrors > 0)
    badges.push({
      label: `format error${formatErrors > 1 ? ` ×${formatErrors}` : ''}`,
      tone: 'warn',
    });
  // Which episodes looked something up is what a tools run learns, so it shows without opening turns.
  const calls = new Map<string, number>();
  for (const turn of t.turns) {
    const tool = turnTool(turn);
    if (tool !== null && !BUILTIN_TOOLS.has(tool)) calls.set(tool, (calls.get(tool) ?? 0) + 1);
  }
  for (const [tool, count] of calls)
    badges.push({ label: `${tool}${count > 1 ? ` ×${count}` : ''}`, tone: 'tool' });
  if (t.prefixBroken) badges.push({ label: 'prefix broken (not trained)', tone: 'warn' });
  if (t.rewardErrors.length > 0)
    badges.push({
      label: `reward error${t.rewardErrors.length > 1 ? ` ×${t.rewardErrors.length}` : ''}`,
      tone: 'bad',
    });
  if (t.finishReason === 'max_turns') badges.push({ label: 'out of turns', tone: 'info' });
  if (t.finishReason === 'context_full') badges.push({ label: 'context full', tone: 'warn' });
  return badges;
}

/**
 * What the judge caught, in words a student follows: the program changed what decides its own
 * reward, so its tests part scored 0 whatever it printed (the judge's reasons after the colon).
 */
export function tamperedText(t: Trajectory): string {
  return `Reward hacking caught: the program tried to change how it is judged, so its tests scored 0 (the judge saw: ${t.tampered.join('; ')}).`;
}

/** What a part checks, in a student's words (when the task is not known to say more). */
const PART_WORDS: Record<string, string> = {
  output_match: 'last printed line = expected output',
  tests: 'hidden tests passed',
  final_answer: 'FINAL ANSWER = expected output',
  format: 'well-formed turns',
  tool_use: 'searched before running code',
};

/** How a run scores: the weights, partial credit, and the sample's task (for what was expected). */
export interface ScoringContext {
  weights: RewardWeights;
  partialCredit?: boolean;
  /** The sample's task; unknown (a run saved with tasks this page no longer has) leaves it out. */
  task?: Pick<Task, 'expectedOutput' | 'tests'> | null;
}

const quoted = (text: string, max = 60) =>
  JSON.stringify(text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The last non-empty line each execution printed, in order (the reference rule's lines). */
function printedLines(t: Trajectory): (string | null)[] {
  return t.turns
    .filter((turn) => turn.execution)
    .map((turn) => lastLine(turn.execution!.result.observation));
}

/** What one part's score means for this sample, in words: what it printed against what was expected. */
function partDetail(name: string, score: number, t: Trajectory, context: ScoringContext): string {
  const task = context.task;
  if (t.timedOut) return 'timed out';
  switch (name) {
    case 'output_match': {
      if (!task?.expectedOutput) return PART_WORDS[name]!;
      const expected = task.expectedOutput.trim();
      const lines = printedLines(t);
      if (lines.length === 0) return `no code ran; expected ${quoted(expected)}`;
      // the part passes when any execution's last line matches: show that one, else the last
      const line = score === 1 ? expected : (lines.at(-1) ?? null);
      return line === null
        ? `the last run printed nothing; expected ${quoted(expected)}`
        : `printed ${quoted(line)}, expected ${quoted(expected)}`;
    }
    case 'tests': {
      const total = task?.tests ? testCount(task.tests) : 0;
      if (total === 0) return PART_WORDS[name]!;
      const noun = `hidden test${total === 1 ? '' : 's'}`;
      if (!t.turns.some((turn) => turn.execution))
        return `no code to test against ${total} ${noun}`;
      if (t.tampered.length > 0) return `0 of ${total} counted (tampering)`;
      if (score === 1) return `${total} of ${total} ${noun} passed`;
      if (context.partialCredit) return `${Math.round(score * total)} of ${total} ${noun} passed`;
      return `not all ${total} ${noun} passed (all must pass)`;
    }
    case 'final_answer': {
      if (!task?.expectedOutput) return PART_WORDS[name]!;
      const expected = task.expectedOutput.trim();
      return t.finalAnswer === null
        ? `no FINAL ANSWER; expected ${quoted(expected)}`
        : `answered ${quoted(t.finalAnswer.trim())}, expected ${quoted(expected)}`;
    }
    default:
      return PART_WORDS[name] ?? name;
  }
}

/**
 * What a sample's reward was made of: each part that applied to its task with its score, its
 * weight and what it compared (the line the program printed against the expected one, tests
 * passed n of m), the reward as their weighted mean; then what was NOT scored, so that "passed"
 * beside a nonsense FINAL ANSWER explains itself (the answer's text counts only when final_answer
 * has a weight). One line each: the reward, a part, what was not scored (the card keeps the breaks).
 */
export function scoredText(t: Trajectory, scoring: ScoringContext | RewardWeights): string {
  const context: ScoringContext = 'weights' in scoring ? scoring : { weights: scoring };
  const weights = context.weights;
  const weight = (name: string) => (weights as Record<string, number | undefined>)[name] ?? 0;
  const parts = Object.entries(t.rewardParts).filter(([name]) => weight(name) > 0);
  const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));
  const lines = [
    parts.length === 0
      ? 'Scored: no reward part applied.'
      : [
          `Scored: r = ${fmt(t.reward)}${t.timedOut ? ' (timed out: every part 0)' : ''}, ${parts.length > 1 ? 'the weighted mean of' : 'from'}`,
          ...parts.map(
            ([name, score]) =>
              `· ${name} ${fmt(score)} × weight ${fmt(weight(name))}: ${partDetail(name, score, t, context)}`,
          ),
        ].join('\n'),
  ];
  const unscored = Object.keys(PART_WORDS).filter(
    (name) => weight(name) === 0 && (name !== 'tests' || !(name in t.rewardParts)),
  );
  if (t.finalAnswer !== null && weight('final_answer') === 0)
    lines.push('Its FINAL ANSWER text is shown but not scored (final_answer has weight 0).');
  else if (unscored.length > 0) lines.push(`Not scored here: ${unscored.join(', ')}.`);
  return lines.join('\n');
}

/**
 * The card's last line, about the episode's FINAL ANSWER. Only when `final_answer` has a weight is
 * the answer the result (`scored`, with whether it matched); otherwise it is shown as what it is,
 * text the reward did not read (`unscored`, never in bold: a passed card must not end in a wrong
 * answer that looks like the result), and said wrong when the task's expected output shows it is.
 */
export interface AnswerLine {
  text: string;
  tone: 'scored-right' | 'scored-wrong' | 'unscored' | 'none';
}

/** The FINAL ANSWER line of `t`'s card (see AnswerLine). */
export function answerLine(t: Trajectory, scoring: ScoringContext | RewardWeights): AnswerLine {
  const context: ScoringContext = 'weights' in scoring ? scoring : { weights: scoring };
  const weight = (context.weights as Record<string, number | undefined>).final_answer ?? 0;
  const scored = weight > 0 && 'final_answer' in t.rewardParts;
  if (t.finalAnswer === null) {
    const why = t.finishReason.replace('_', ' ');
    return scored
      ? { text: `no FINAL ANSWER (${why})`, tone: 'scored-wrong' }
      : { text: `no final answer (${why}; not scored)`, tone: 'none' };
  }
  const answer = t.finalAnswer.trim();
  if (scored) {
    const right = (t.rewardParts.final_answer ?? 0) >= 1;
    const expected = context.task?.expectedOutput?.trim();
    return right
      ? { text: `FINAL ANSWER: ${answer} ✓`, tone: 'scored-right' }
      : {
          text: `FINAL ANSWER: ${answer} ✗${expected !== undefined ? ` (expected ${quoted(expected)})` : ''}`,
          tone: 'scored-wrong',
        };
  }
  const expected = context.task?.expectedOutput;
  const wrong =
    typeof expected === 'string' && normalizeWhitespace(answer) !== normalizeWhitespace(expected);
  return {
    text: `final answer (not scored): ${answer}${wrong ? ` (wrong: expected ${quoted(expected.trim())})` : ''}`,
    tone: 'unscored',
  };
}

/** A run of text with one role in the packed sequence. */
export interface Segment {
  text: string;
  /** generated: action mask 1 (the loss trains these tokens); shown: observation/markup, mask 0. */
  kind: 'generated' | 'shown';
}

/** Tools whose turns the viewer shows as code and answer; any other tool is a call with a result. */
const BUILTIN_TOOLS: ReadonlySet<string> = new Set(['execute_code', 'finish']);

/**
 * The tool a turn called: what the rollout recorded, else (a trajectory saved before tools were
 * recorded) what its action implies. Null for a format error.
 */
export function turnTool(turn: Turn): string | null {
  if (turn.tool !== undefined) return turn.tool;
  switch (turn.action.type) {
    case 'execute_code':
      return 'execute_code';
    case 'finish':
      return 'finish';
    case 'tool_call':
      return turn.action.tool;
    case 'format_error':
      return null;
  }
}

/** One turn as the viewer shows it. */
export interface TurnView {
  index: number;
  /** The tool the turn called (`execute_code`, `search`, `finish`, ...); null for a format error. */
  tool: string | null;
  /** What went into a call to a tool other than code and answer (a search's query), else null. */
  callInput: string | null;
  /** What the model wrote, as tokens (exact) or one segment (when token texts are unknown). */
  generated: Segment[];
  /** The code executed this turn, if any. */
  code: string | null;
  /**
   * The observation the model was shown next: sandbox output, traceback, TIMEOUT, a tool's result
   * (search results), or a format message.
   */
  observation: string | null;
  /** The observation as tokens, when token texts are known. */
  observationTokens: Segment[] | null;
  /** `tool`: a call to a tool other than code and answer, whose result is the observation. */
  outcome: 'ok' | 'error' | 'timeout' | 'format' | 'answer' | 'tool' | 'none';
  answer: string | null;
}

/** Token texts of `span` as segments of the given kind (one per token). */
function tokenSegments(
  tokenTexts: readonly string[],
  span: { start: number; end: number },
  mask: readonly number[],
): Segment[] {
  const segments: Segment[] = [];
  for (let t = span.start; t < span.end; t++)
    segments.push({ text: tokenTexts[t] ?? '', kind: mask[t] === 1 ? 'generated' : 'shown' });
  return segments;
}

function isToolCall(turn: Turn, tool: string | null): boolean {
  return turn.action.type === 'tool_call' || (tool !== null && !BUILTIN_TOOLS.has(tool));
}

function turnOutcome(turn: Turn, tool: string | null): TurnView['outcome'] {
  if (turn.action.type === 'finish') return 'answer';
  if (turn.action.type === 'format_error') return 'format';
  if (isToolCall(turn, tool)) return 'tool';
  if (!turn.execution) return 'none';
  if (turn.execution.result.timedOut) return 'timeout';
  return turn.execution.result.ok ? 'ok' : 'error';
}

/** The turns of `t` for display; `tokenTexts` (one string per id) makes the masks exact. */
export function turnViews(t: Trajectory, tokenTexts?: readonly string[] | null): TurnView[] {
  const exact = tokenTexts && tokenTexts.length === t.ids.length;
  return t.turns.map((turn, index) => {
    const tool = turnTool(turn);
    const call = isToolCall(turn, tool);
    const observation = turn.execution
      ? turn.execution.result.observation
      : turn.action.type === 'format_error'
        ? turn.action.observation
        : call
          ? (turn.call?.observation ?? null)
          : null;
    return {
      index,
      tool,
      callInput: call
        ? (turn.call?.input ?? (turn.action.type === 'tool_call' ? turn.action.input : null))
        : null,
      generated: exact
        ? tokenSegments(tokenTexts, turn.generated, t.actionMask)
        : [{ text: turn.text, kind: 'generated' }],
      code: turn.execution?.code ?? (turn.action.type === 'execute_code' ? turn.action.code : null),
      observation,
      observationTokens:
        exact && turn.observation
          ? tokenSegments(tokenTexts, turn.observation, t.actionMask)
          : null,
      outcome: turnOutcome(turn, tool),
      answer: turn.action.type === 'finish' ? turn.action.answer : null,
    };
  });
}

/** Counts of tokens by role: how much of the sequence the update trains on. */
export function maskSummary(t: Trajectory): { total: number; trained: number } {
  return { total: t.ids.length, trained: t.actionMask.reduce((sum, m) => sum + m, 0) };
}
