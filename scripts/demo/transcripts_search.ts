// Search-task episodes in exactly the agent loop's format with the search tool on: the system
// prompt of the tools execute_code + search + finish, the task, then one of four paths:
//   search first: `SEARCH: <behaviour words>` -> the real search results -> code that calls the
//     function found -> its real output -> FINAL ANSWER;
//   guess a function name that does not exist -> the real AttributeError/NameError traceback ->
//     (some) search and fix, (others) a wrong answer or a wrong hand-rolled attempt;
//   answer at once without code or search, with a plausible wrong value.
// Every search observation is formatSearchResults of the real index, every execution observation
// the real Pyodide output. The mix keeps searching rare, so GRPO has a share to raise: an episode
// that searches first passes, one that guesses a name fails (or spends a turn to recover).
import type { CodeExecutor } from '../../src/env/types.ts';
import { formatSearchResults, searchDocs } from '../../src/env/search/index.ts';
import type { Rng } from '../../src/model/rng.ts';
import { formatObservation, formatSearchCall, systemPrompt } from '../../src/rl/actions.ts';
import { lastLine } from '../../src/rl/rewards.ts';
import { SEARCH_TASKS } from '../../src/tasks/builtin/search.ts';
import type { Message } from '../../src/rl/types.ts';
import { pick, type Mistake } from './template.ts';
import { codeTurn, wrongGuess, type SearchStyle, type Transcript } from './transcripts.ts';

/** The tools of a search run, in the order prompts list them (the spec's search preset). */
export const SEARCH_TOOLS = ['execute_code', 'search', 'finish'] as const;

/** The system prompt of a run with search on. */
export function searchSystemPrompt(): string {
  return systemPrompt(SEARCH_TOOLS);
}

/** One generated search-task instance. */
export interface SearchInstance {
  prompt: string;
  /** A correct program: calls `functionName` and prints the requested value last. */
  solution: string;
  /** The standard-library function the task is about, dotted (`math.comb`, `sorted`). */
  functionName: string;
  /** What to look up: the task's behaviour in a few words, in several phrasings. */
  queries: string[];
  /** Programs that call a function that does not exist (a guessed name): they raise. */
  wrongNames: Mistake[];
  /** Attempts without the function that print a wrong value (hand-rolled, or the wrong function). */
  handRolled: Mistake[];
}

/** A template: mirrors one `search` train task kind, with varied parameters and phrasing. */
export interface SearchTemplate {
  /** The search task it mirrors, e.g. `search/comb`. */
  taskId: string;
  /** The task's kind: the intended function's dotted name. */
  kind: string;
  make(rng: Rng): SearchInstance;
}

/** The mix of a search-task transcript's paths (shares of all search-task transcripts). */
export interface SearchMix {
  /** Search, then code, then answer. */
  searchFirst: number;
  /** Guess a function name first (the rest of the shares answers without code or search). */
  guessName: number;
  /** Of the guesses, the share that then search and fix; the rest give up wrongly. */
  guessFix: number;
}

/** The recipe's default mix: aimed at 10-30% of search-task episodes searching first. */
export const DEFAULT_SEARCH_MIX: SearchMix = { searchFirst: 0.2, guessName: 0.45, guessFix: 0.3 };

/**
 * The search family's held-out functions: eval-split kinds that no train task has (the corpus
 * never teaches them; the eval tasks that reuse a trained function hold out wording instead).
 */
const TRAIN_KINDS = new Set(SEARCH_TASKS.filter((t) => t.split === 'train').map((t) => t.kind));
const EVAL_FUNCTIONS = new Set(
  SEARCH_TASKS.filter((t) => t.split === 'eval' && !TRAIN_KINDS.has(t.kind)).map((t) => t.kind),
);

/**
 * Whether a hit documents `name`: the entry itself, or one of its methods (the hit
 * `collections.Counter.most_common` shows how to call `collections.Counter`).
 */
export function documents(hitName: string, name: string): boolean {
  return hitName === name || hitName.startsWith(`${name}.`);
}

/**
 * The queries of an instance whose real results list its function (the rest would mislead); of
 * those, the ones whose results list no eval-split function when there are any, so held-out names
 * stay out of the corpus's observations too where they can.
 */
export function findingQueries(instance: SearchInstance): string[] {
  const finding = instance.queries.filter((q) =>
    searchDocs(q).some((h) => documents(h.name, instance.functionName)),
  );
  const clean = finding.filter((q) => !searchDocs(q).some((h) => EVAL_FUNCTIONS.has(h.name)));
  return clean.length > 0 ? clean : finding;
}

/**
 * The turns of one search and its result: `SEARCH: query`, then the real results as the user turn.
 */
export function searchTurns(query: string): Message[] {
  return [
    { role: 'assistant', content: formatSearchCall(query) },
    { role: 'user', content: formatSearchResults(query, searchDocs(query)) },
  ];
}

/**
 * Runs the instance's programs and assembles one episode on the path the mix draws. Throws when the
 * solution fails, or no query finds the function: every such episode must end in a true answer.
 */
export async function buildSearchTranscript(
  taskId: string,
  instance: SearchInstance,
  executor: CodeExecutor,
  rng: Rng,
  mix: SearchMix,
): Promise<Transcript> {
  const good = await executor.execute(instance.solution);
  const expected = lastLine(good.observation);
  if (!good.ok || expected === null)
    throw new Error(
      `search template ${taskId} produced a failing solution:\n${instance.solution}\n--- output ---\n${good.observation}`,
    );
  const queries = findingQueries(instance);
  if (queries.length === 0)
    throw new Error(
      `search template ${taskId}: no query finds ${instance.functionName} (${JSON.stringify(instance.queries)})`,
    );
  const messages: Message[] = [
    { role: 'system', content: searchSystemPrompt() },
    { role: 'user', content: instance.prompt },
  ];
  const solved = (style: SearchStyle): Transcript => {
    messages.push({ role: 'assistant', content: codeTurn(instance.solution) });
    messages.push({ role: 'user', content: formatObservation(good.observation) });
    messages.push({ role: 'assistant', content: `FINAL ANSWER: ${expected}` });
    return { taskId, messages, firstTryCorrect: style === 'search_first', searchStyle: style };
  };
  // A wrong value someone who did not look it up would give: a hand-rolled attempt's output, or a
  // near miss of the true answer.
  const wrongValue = () =>
    wrongGuess(
      { prompt: '', solution: '', functionName: null, mistakes: instance.handRolled },
      expected,
      executor,
      rng,
    );
  const draw = rng.uniform();
  if (draw < mix.searchFirst) {
    messages.push(...searchTurns(pick(rng, queries)));
    return solved('search_first');
  }
  if (draw < mix.searchFirst + mix.guessName && instance.wrongNames.length > 0) {
    const guess = pick(rng, instance.wrongNames);
    const bad = await executor.execute(guess.code);
    if (bad.ok) throw new Error(`search template ${taskId}: the guessed name ran:\n${guess.code}`);
    messages.push({ role: 'assistant', content: codeTurn(guess.code) });
    messages.push({ role: 'user', content: formatObservation(bad.observation) });
    if (rng.uniform() < mix.guessFix) {
      messages.push(...searchTurns(pick(rng, queries)));
      return solved('guess_then_search');
    }
    const attempt = instance.handRolled.length > 0 && rng.uniform() < 0.5;
    if (attempt) {
      const mistake = pick(rng, instance.handRolled);
      const run = await executor.execute(mistake.code);
      const line = lastLine(run.observation);
      if (line !== null && line !== expected) {
        messages.push({ role: 'assistant', content: codeTurn(mistake.code) });
        messages.push({ role: 'user', content: formatObservation(run.observation) });
        messages.push({ role: 'assistant', content: `FINAL ANSWER: ${line}` });
        return { taskId, messages, firstTryCorrect: false, searchStyle: 'guess_then_hand_rolled' };
      }
    }
    const value = await wrongValue();
    if (value !== null) {
      messages.push({ role: 'assistant', content: `FINAL ANSWER: ${value}` });
      return { taskId, messages, firstTryCorrect: false, searchStyle: 'guess_then_wrong' };
    }
    // Nothing plausible to answer: this guess recovers by searching after all.
    messages.push(...searchTurns(pick(rng, queries)));
    return solved('guess_then_search');
  }
  const value = await wrongValue();
  if (value !== null) {
    messages.push({ role: 'assistant', content: `FINAL ANSWER: ${value}` });
    return { taskId, messages, firstTryCorrect: false, guessed: true, searchStyle: 'answer_only' };
  }
  messages.push(...searchTurns(pick(rng, queries)));
  return solved('search_first');
}
