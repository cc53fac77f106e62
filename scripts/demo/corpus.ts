// The demo corpus: many transcripts over every template (seed tasks and builtin train kinds),
// the template check against the builtin tasks' hidden tests, and the leak check that keeps the
// eval split (and every hidden test) out of the corpus.
import { Rng } from '../../src/model/rng.ts';
import type { CodeExecutor } from '../../src/env/types.ts';
import { BUILTIN_TASKS } from '../../src/tasks/builtin/index.ts';
import { TASKS_BY_ID } from '../../src/tasks/registry.ts';
import { newNonce, parseTestsReport, testsProgram } from '../../src/tasks/tests_harness.ts';
import type { Template } from './template.ts';
import { buildTranscript, type Transcript, type TranscriptOptions } from './transcripts.ts';

/** Corpus settings. */
export interface CorpusOptions extends TranscriptOptions {
  /** Number of transcripts. */
  size: number;
  seed: number;
}

/** Generates `size` transcripts, cycling through the templates in a shuffled order each round. */
export async function generateCorpus(
  templates: readonly Template[],
  executor: CodeExecutor,
  options: CorpusOptions,
): Promise<Transcript[]> {
  const rng = new Rng(options.seed);
  const out: Transcript[] = [];
  while (out.length < options.size) {
    const order = templates.map((t) => ({ t, key: rng.uniform() })).sort((a, b) => a.key - b.key);
    for (const { t } of order) {
      if (out.length >= options.size) break;
      out.push(await buildTranscript(t.taskId, t.make(rng), executor, rng, options));
    }
  }
  return out;
}

/**
 * Checks every template's correct program against the hidden tests of the task it mirrors, so the
 * corpus teaches code that the `tests` reward accepts. Returns the problems (empty when all pass).
 */
export async function checkTemplates(
  templates: readonly Template[],
  executor: CodeExecutor,
  seed = 0,
): Promise<string[]> {
  const rng = new Rng(seed);
  const problems: string[] = [];
  for (const template of templates) {
    const task = TASKS_BY_ID.get(template.taskId);
    if (!task) {
      problems.push(`${template.taskId}: no such task`);
      continue;
    }
    if (task.split !== 'train') problems.push(`${template.taskId}: mirrors an eval-split task`);
    const instance = template.make(rng);
    if (!task.tests) continue;
    const nonce = newNonce();
    const result = await executor.execute(testsProgram(instance.solution, task.tests, nonce));
    const report = parseTestsReport(result.observation, nonce);
    if (!report || report.passed !== report.total)
      problems.push(
        `${template.taskId}: solution fails hidden tests (${result.observation.slice(-300)})`,
      );
  }
  return problems;
}

/** The corpus as one string per transcript (every message's content), for the leak check. */
function corpusTexts(corpus: readonly Transcript[]): string[] {
  return corpus.map((t) => t.messages.map((m) => m.content).join('\n'));
}

/**
 * What leaked from held-out material into the corpus: an eval-split prompt, an eval function's
 * definition or call, or any hidden test line of any builtin task. Empty when clean.
 */
export function leakProblems(corpus: readonly Transcript[]): string[] {
  const texts = corpusTexts(corpus);
  const problems: string[] = [];
  const needles: [string, string][] = [];
  for (const task of BUILTIN_TASKS) {
    for (const test of task.tests ?? []) needles.push([test, `hidden test of ${task.id}`]);
    if (task.split !== 'eval') continue;
    needles.push([task.prompt, `prompt of eval task ${task.id}`]);
    const name = /`(\w+)\(/.exec(task.prompt)?.[1];
    if (name) needles.push([`${name}(`, `function of eval task ${task.id}`]);
  }
  for (const [needle, what] of needles) {
    const hit = texts.findIndex((text) => text.includes(needle));
    if (hit >= 0) problems.push(`${what} appears in transcript ${hit}: ${JSON.stringify(needle)}`);
  }
  return problems;
}
