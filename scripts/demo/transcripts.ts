// Builds one synthetic episode in exactly the agent loop's conversation format (src/rl/rollout.ts):
// system prompt, task, then assistant code blocks answered by `Execution result:` observations
// produced by really running the code, and a closing `FINAL ANSWER: <expected>`. A controlled share
// of episodes start with a realistic wrong attempt, followed by its real traceback or wrong output
// and a corrected attempt. Another share (optional) skips the sandbox and answers at once with a
// plausible wrong value: the tool-skipping habit of real models, which GRPO can train away.
import type { Rng } from '../../src/model/rng.ts';
import { formatObservation, SYSTEM_PROMPT } from '../../src/rl/actions.ts';
import type { Message } from '../../src/rl/types.ts';
import type { CodeExecutor } from '../../src/env/types.ts';
import { lastLine } from '../../src/rl/rewards.ts';
import { pick, type Instance, type Mistake } from './template.ts';

/** One corpus episode. */
export interface Transcript {
  taskId: string;
  messages: Message[];
  /** Whether the first attempt was already correct. */
  firstTryCorrect: boolean;
  /** Whether the assistant answered at once, without running code (and wrongly). */
  guessed?: boolean;
  /** For search-task transcripts (transcripts_search.ts): which path the episode takes. */
  searchStyle?: SearchStyle;
}

/**
 * The paths of a search-task transcript: search first; guess a function name, see the error, then
 * search and fix; guess a name, then give up with a wrong answer or a wrong hand-rolled attempt;
 * answer at once without code or search.
 */
export type SearchStyle =
  | 'search_first'
  | 'guess_then_search'
  | 'guess_then_wrong'
  | 'guess_then_hand_rolled'
  | 'answer_only';

/** An assistant turn that runs `code` (the fence format the strict parser reads). */
export function codeTurn(code: string, note = ''): string {
  return `${note ? `${note}\n` : ''}\`\`\`python\n${code.endsWith('\n') ? code : `${code}\n`}\`\`\``;
}

/** A name one typo away from `name`, so calling it raises a NameError. */
export function misspell(name: string): string {
  if (name.includes('_')) return name.replace('_', '');
  const i = Math.max(1, Math.floor(name.length / 2) - 1);
  return name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2);
}

/** Wrong attempts any function task can have: a misspelled call, or forgetting to print. */
export function genericMistakes(instance: Instance): Mistake[] {
  const name = instance.functionName;
  if (!name) return [];
  const lines = instance.solution.trimEnd().split('\n');
  const last = lines[lines.length - 1]!;
  const call = /^print\((.*)\)$/.exec(last)?.[1];
  if (!call) return [];
  const head = lines.slice(0, -1).join('\n');
  return [
    {
      code: `${head}\nprint(${call.replace(name, misspell(name))})\n`,
      note: `Fix the NameError: the function is called ${name}.`,
    },
    { code: `${head}\n${call}\n`, note: 'Nothing was printed; print the result.' },
  ];
}

/** Options of the transcript builder. */
export interface TranscriptOptions {
  /** Probability that the first attempt is a wrong one. */
  wrongShare: number;
  /**
   * Probability of picking a generic mistake (NameError, no print) rather than a kind-specific one.
   */
  genericShare: number;
  /**
   * Probability that the assistant skips the sandbox and answers at once with a plausible wrong
   * value (the output of one of the task's wrong programs, or a near miss). Absent or 0 draws no
   * random number, so recipes without it reproduce exactly.
   */
  guessShare?: number;
  /**
   * The system message (absent = SYSTEM_PROMPT, today's two tools). The search recipe renders some
   * ordinary tasks with the search tool's prompt, so that prompt does not unlearn running code.
   */
  systemPrompt?: string;
}

/**
 * A plausible wrong answer: what one of the task's wrong programs prints (what a model that
 * "thinks it through" without running code gets), else a near miss of the true answer; null when
 * neither exists.
 */
export async function wrongGuess(
  instance: Instance,
  expected: string,
  executor: CodeExecutor,
  rng: Rng,
): Promise<string | null> {
  const outputs: string[] = [];
  for (const mistake of instance.mistakes) {
    const run = await executor.execute(mistake.code);
    const line = lastLine(run.observation);
    if (run.ok && line !== null && line !== expected && !line.startsWith('None'))
      outputs.push(line);
  }
  if (outputs.length > 0) return pick(rng, outputs);
  if (expected === 'True' || expected === 'False') return expected === 'True' ? 'False' : 'True';
  if (/^-?\d+$/.test(expected)) return String(Number(expected) + pick(rng, [-1, 1, 2, 10]));
  return null;
}

/**
 * Runs the instance's programs and assembles the episode. Throws when the template's solution
 * fails, since every corpus episode must end with a true answer.
 */
export async function buildTranscript(
  taskId: string,
  instance: Instance,
  executor: CodeExecutor,
  rng: Rng,
  options: TranscriptOptions,
): Promise<Transcript> {
  const good = await executor.execute(instance.solution);
  const expected = lastLine(good.observation);
  if (!good.ok || expected === null) {
    throw new Error(
      `template ${taskId} produced a failing solution:\n${instance.solution}\n--- output ---\n${good.observation}`,
    );
  }
  const messages: Message[] = [
    { role: 'system', content: options.systemPrompt ?? SYSTEM_PROMPT },
    { role: 'user', content: instance.prompt },
  ];
  const guessShare = options.guessShare ?? 0;
  if (guessShare > 0 && rng.uniform() < guessShare) {
    const guess = await wrongGuess(instance, expected, executor, rng);
    if (guess !== null) {
      messages.push({ role: 'assistant', content: `FINAL ANSWER: ${guess}` });
      return { taskId, messages, firstTryCorrect: false, guessed: true };
    }
  }
  let firstTryCorrect = true;
  if (rng.uniform() < options.wrongShare) {
    const generic = genericMistakes(instance);
    const pool =
      generic.length > 0 && (rng.uniform() < options.genericShare || instance.mistakes.length === 0)
        ? generic
        : instance.mistakes;
    const mistake = pool.length > 0 ? pick(rng, pool) : null;
    if (mistake) {
      const bad = await executor.execute(mistake.code);
      // A "mistake" that happens to print the right answer for these parameters is no mistake.
      if (lastLine(bad.observation) !== expected) {
        firstTryCorrect = false;
        messages.push({ role: 'assistant', content: codeTurn(mistake.code) });
        messages.push({ role: 'user', content: formatObservation(bad.observation) });
        messages.push({ role: 'assistant', content: codeTurn(instance.solution, mistake.note) });
      }
    }
  }
  if (firstTryCorrect) messages.push({ role: 'assistant', content: codeTurn(instance.solution) });
  messages.push({ role: 'user', content: formatObservation(good.observation) });
  messages.push({ role: 'assistant', content: `FINAL ANSWER: ${expected}` });
  return { taskId, messages, firstTryCorrect };
}
