// The search part of the demo corpus: search-task transcripts (transcripts_search.ts) mixed with
// ordinary tasks rendered under the search tool's system prompt, the check of the search templates
// against the tasks they mirror, and the leak check that keeps the search family's eval split out.
import type { CodeExecutor } from '../../src/env/types.ts';
import { Rng } from '../../src/model/rng.ts';
import { lastLine } from '../../src/rl/rewards.ts';
import { SEARCH_TASKS } from '../../src/tasks/builtin/search.ts';
import { newNonce, parseTestsReport, testsProgram } from '../../src/tasks/tests_harness.ts';
import type { Template } from './template.ts';
import { buildTranscript, type Transcript } from './transcripts.ts';
import {
  buildSearchTranscript,
  findingQueries,
  searchSystemPrompt,
  type SearchMix,
  type SearchTemplate,
} from './transcripts_search.ts';

/** Settings of the search part of a corpus. */
export interface SearchCorpusOptions {
  /** Number of transcripts. */
  size: number;
  seed: number;
  mix: SearchMix;
  /**
   * Share of the transcripts that are ordinary tasks under the search prompt, solved by running
   * code (no search), so that prompt keeps the old skills.
   */
  plainShare: number;
  /** The ordinary transcripts' wrong-first-attempt shares (as the main corpus has them). */
  wrongShare: number;
  genericShare: number;
}

/**
 * Generates the search part: `plainShare` of it ordinary tasks under the search prompt, the rest
 * search-task transcripts, each cycling through its templates in a shuffled order each round.
 */
export async function generateSearchCorpus(
  searchTemplates: readonly SearchTemplate[],
  plainTemplates: readonly Template[],
  executor: CodeExecutor,
  options: SearchCorpusOptions,
): Promise<Transcript[]> {
  const rng = new Rng(options.seed);
  const plainCount = Math.round(options.size * options.plainShare);
  const out: Transcript[] = [];
  const rounds = function* <T>(items: readonly T[]) {
    for (;;) {
      const order = items.map((t) => ({ t, key: rng.uniform() })).sort((a, b) => a.key - b.key);
      for (const { t } of order) yield t;
    }
  };
  const plain = rounds(plainTemplates);
  while (out.length < plainCount) {
    const t = plain.next().value!;
    out.push(
      await buildTranscript(t.taskId, t.make(rng), executor, rng, {
        wrongShare: options.wrongShare,
        genericShare: options.genericShare,
        systemPrompt: searchSystemPrompt(),
      }),
    );
  }
  const search = rounds(searchTemplates);
  while (out.length < options.size) {
    const t = search.next().value!;
    out.push(await buildSearchTranscript(t.taskId, t.make(rng), executor, rng, options.mix));
  }
  return out;
}

/** The search family's tasks by id (both splits). */
const SEARCH_BY_ID = new Map(SEARCH_TASKS.map((t) => [t.id, t]));

/**
 * Checks every search template against the task it mirrors: a train-split task of the same kind;
 * its program prints a line and passes the task's hidden tests; some of its queries find the
 * function in the real index; its guessed names raise; its hand-rolled attempts print a wrong
 * value. Returns the problems (empty when all hold).
 */
export async function checkSearchTemplates(
  templates: readonly SearchTemplate[],
  executor: CodeExecutor,
  seed = 0,
): Promise<string[]> {
  const rng = new Rng(seed);
  const problems: string[] = [];
  for (const template of templates) {
    const id = template.taskId;
    const task = SEARCH_BY_ID.get(id);
    if (!task) {
      problems.push(`${id}: no such search task`);
      continue;
    }
    if (task.split !== 'train') problems.push(`${id}: mirrors an eval-split task`);
    if (task.kind !== template.kind) problems.push(`${id}: kind ${template.kind} != ${task.kind}`);
    const instance = template.make(rng);
    if (instance.functionName !== task.kind)
      problems.push(`${id}: the program calls ${instance.functionName}, the task is ${task.kind}`);
    const good = await executor.execute(instance.solution);
    const expected = lastLine(good.observation);
    if (!good.ok || expected === null)
      problems.push(`${id}: solution fails (${good.observation.slice(-300)})`);
    if (findingQueries(instance).length === 0)
      problems.push(`${id}: no query's results list ${instance.functionName}`);
    for (const guess of instance.wrongNames) {
      const run = await executor.execute(guess.code);
      if (run.ok || !/(AttributeError|NameError|ImportError)/.test(run.observation))
        problems.push(`${id}: guessed name does not raise: ${JSON.stringify(guess.code)}`);
    }
    if (instance.wrongNames.length === 0) problems.push(`${id}: no guessed names`);
    // Parameters may make one attempt right by chance (the builder skips it then), not all.
    let wrongAttempts = 0;
    for (const attempt of instance.handRolled) {
      const run = await executor.execute(attempt.code);
      const line = lastLine(run.observation);
      if (run.ok && line !== null && line !== expected) wrongAttempts++;
    }
    if (wrongAttempts === 0) problems.push(`${id}: no hand-rolled attempt prints a wrong value`);
    if (task.tests && task.tests.length > 0) {
      const nonce = newNonce();
      const result = await executor.execute(testsProgram(instance.solution, task.tests, nonce));
      const report = parseTestsReport(result.observation, nonce);
      if (!report || report.passed !== report.total)
        problems.push(`${id}: solution fails hidden tests (${result.observation.slice(-300)})`);
    }
  }
  return problems;
}

/** Whether a search family task's function name appears in `text` as a name, not inside another. */
function mentions(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w.])${escaped}(?!\\w)`).test(text);
}

/**
 * Held-out material of the search family in the corpus: an eval task's prompt anywhere, any search
 * task's hidden test line anywhere, and an eval task's function in a search transcript's assistant
 * turn (what the model is trained to write). Empty when clean.
 */
export function searchLeakProblems(corpus: readonly Transcript[]): string[] {
  const problems: string[] = [];
  const evalTasks = SEARCH_TASKS.filter((t) => t.split === 'eval');
  // Some eval tasks hold out a trained function by wording and parameters: its name is no leak.
  const trainKinds = new Set(SEARCH_TASKS.filter((t) => t.split === 'train').map((t) => t.kind));
  corpus.forEach((transcript, i) => {
    const all = transcript.messages.map((m) => m.content).join('\n');
    const assistant = transcript.messages
      .filter((m) => m.role === 'assistant')
      .map((m) => m.content)
      .join('\n');
    for (const task of evalTasks) {
      if (all.includes(task.prompt))
        problems.push(`prompt of eval task ${task.id} appears in transcript ${i}`);
      if (
        transcript.taskId.startsWith('search/') &&
        !trainKinds.has(task.kind) &&
        mentions(assistant, task.kind)
      )
        problems.push(`function of eval task ${task.id} (${task.kind}) in transcript ${i}`);
    }
    for (const task of SEARCH_TASKS)
      for (const test of task.tests ?? [])
        if (all.includes(test)) problems.push(`hidden test of ${task.id} in transcript ${i}`);
  });
  return problems;
}
