// The held-out material the demo corpus must never contain, and the check that it does not: the
// eval splits' prompts (no run of PROMPT_NGRAM words in a row), their function names (never
// defined or called: `name(`), their reference solutions (no run of SOLUTION_NGRAM code tokens in a row) and
// every hidden test line. Runs that the train split's own prompts and solutions share with a
// held-out task are allowed: the corpus mirrors the train split, and a phrase both splits use
// ("from a to b, both included") says nothing about the held-out task.
import { BUILTIN_TASKS } from '../../src/tasks/builtin/index.ts';
import { SEARCH_TASKS } from '../../src/tasks/builtin/search.ts';
import { SEED_TASKS } from '../../src/tasks/seed.ts';
import type { Task } from '../../src/tasks/task.ts';

/** Words in a row that make a prompt leak (GPT-3's contamination check used 13; ours is stricter). */
export const PROMPT_NGRAM = 10;
/** Code tokens in a row that make a solution leak (a line or two of code). */
export const SOLUTION_NGRAM = 12;

/** Every held-out task: the built-in eval split and the search eval split. */
export const HELD_OUT_TASKS: readonly Task[] = [...BUILTIN_TASKS, ...SEARCH_TASKS].filter(
  (t) => t.split === 'eval',
);
const TRAIN_TASKS: readonly Task[] = [
  ...SEED_TASKS,
  ...[...BUILTIN_TASKS, ...SEARCH_TASKS].filter((t) => t.split === 'train'),
];

/** The functions a task's solution defines (`def name(`). */
export function definedNames(task: Task): string[] {
  return [...(task.solution ?? '').matchAll(/^\s*def (\w+)\(/gm)].map((m) => m[1]!);
}

/** Names of the functions held-out tasks define: never called or defined in the corpus. */
export const HELD_OUT_NAMES: ReadonlySet<string> = new Set(HELD_OUT_TASKS.flatMap(definedNames));

/** Lower-case words (letters, digits, underscores) of a text. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9_]+/g) ?? [];
}

/** Code tokens: identifiers, numbers, string literals, and single symbols. */
export function codeTokens(code: string): string[] {
  return code.match(/[A-Za-z_]\w*|\d+(?:\.\d+)?|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\S/g) ?? [];
}

/** The runs of `n` tokens in a row (the whole sequence when it is shorter), joined by spaces. */
export function ngrams(tokens: readonly string[], n: number): string[] {
  if (tokens.length <= n) return tokens.length > 0 ? [tokens.join(' ')] : [];
  return Array.from({ length: tokens.length - n + 1 }, (_, i) => tokens.slice(i, i + n).join(' '));
}

/** Whether a run of code tokens has a name in it (a run of literals, `[1, 2, 3, 4, 5]`, says nothing). */
function hasName(gram: string): boolean {
  return gram.split(' ').some((token) => /^[A-Za-z_]/.test(token));
}

function allNgrams(texts: readonly string[], tokenize: (t: string) => string[], n: number) {
  const out = new Set<string>();
  for (const text of texts) {
    const tokens = tokenize(text);
    for (let i = 0; i + n <= tokens.length; i++) out.add(tokens.slice(i, i + n).join(' '));
    if (tokens.length < n && tokens.length > 0) out.add(tokens.join(' '));
  }
  return out;
}

/** A held-out needle: the n-gram, and what it comes from. */
interface Needle {
  gram: string;
  what: string;
}

function needles(): { prompt: Needle[]; solution: Needle[] } {
  const trainPrompt = allNgrams(
    TRAIN_TASKS.map((t) => t.prompt),
    words,
    PROMPT_NGRAM,
  );
  const trainSolution = allNgrams(
    TRAIN_TASKS.map((t) => t.solution ?? ''),
    codeTokens,
    SOLUTION_NGRAM,
  );
  const prompt: Needle[] = [];
  const solution: Needle[] = [];
  for (const task of HELD_OUT_TASKS) {
    for (const gram of new Set(ngrams(words(task.prompt), PROMPT_NGRAM)))
      if (!trainPrompt.has(gram)) prompt.push({ gram, what: `prompt of ${task.id}` });
    for (const gram of new Set(ngrams(codeTokens(task.solution ?? ''), SOLUTION_NGRAM)))
      if (!trainSolution.has(gram) && hasName(gram))
        solution.push({ gram, what: `solution of ${task.id}` });
  }
  return { prompt, solution };
}

let cached: ReturnType<typeof needles> | null = null;

/**
 * What of the held-out material a text contains, one line per finding (empty when clean): a
 * held-out function called or defined, a run of PROMPT_NGRAM words of a held-out prompt, a run of
 * SOLUTION_NGRAM code tokens of a held-out solution, or a hidden test line of any task.
 */
export function heldOutFindings(text: string): string[] {
  cached ??= needles();
  const found: string[] = [];
  const textWords = words(text);
  for (const name of HELD_OUT_NAMES)
    if (new RegExp(`\\b${name}\\s*\\(`).test(text)) found.push(`held-out function name ${name}`);
  const wordGrams = new Set(ngrams(textWords, PROMPT_NGRAM));
  for (const n of cached.prompt) if (wordGrams.has(n.gram)) found.push(`${n.what}: "${n.gram}"`);
  const codeGrams = new Set(ngrams(codeTokens(text), SOLUTION_NGRAM));
  for (const n of cached.solution) if (codeGrams.has(n.gram)) found.push(`${n.what}: "${n.gram}"`);
  for (const task of [...BUILTIN_TASKS, ...SEARCH_TASKS])
    for (const test of task.tests ?? [])
      if (text.includes(test)) found.push(`hidden test of ${task.id}: ${JSON.stringify(test)}`);
  return found;
}

/**
 * The n-gram check over a whole corpus (one text per transcript): each finding with the first
 * transcript it occurs in. Empty when the corpus holds nothing held out.
 */
export function heldOutLeaks(texts: readonly string[]): string[] {
  const first = new Map<string, number>();
  texts.forEach((text, i) => {
    for (const finding of heldOutFindings(text)) if (!first.has(finding)) first.set(finding, i);
  });
  return [...first].map(([finding, i]) => `${finding} (transcript ${i})`);
}
