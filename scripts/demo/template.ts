// What a task template is: a generator of task instances (prompt, a correct program, and
// realistic wrong first attempts) for one kind of task. The demo corpus is built from these.
import type { Rng } from '../../src/model/rng.ts';

/** A realistic wrong first attempt and the short remark the assistant makes before fixing it. */
export interface Mistake {
  code: string;
  /** One line said before the corrected block, e.g. "The range stops one short." */
  note: string;
}

/** One generated task instance. */
export interface Instance {
  prompt: string;
  /** A correct program: defines what the prompt asks and prints the requested value last. */
  solution: string;
  /** Kind-specific wrong attempts (generic ones are added by the transcript builder). */
  mistakes: Mistake[];
  /** The called function's name (for generic mistakes), or null for seed-style scripts. */
  functionName: string | null;
}

/** Shares of made-up names (syllables that mean nothing), where a template draws names. */
export interface NameShares {
  /** Share of function names made up. */
  function: number;
  /** Share of parameter names made up. */
  param: number;
  /** Share of the made-up names built from English words rather than syllables (default 0). */
  words?: number;
  /**
   * Share of the other made-up names (the syllable ones) built long (default 0): several parts, of
   * syllables with clusters and codas and sometimes a short real word, so copying a name of ten or
   * more tokens is practised, as a held-out name like `is_clean_palindrome` asks.
   */
  long?: number;
  /**
   * Share of skill instances whose string arguments have their words made up (default 0): each word
   * of three letters or more inside a quoted argument becomes invented syllables, the same word the
   * same way, so the call can only be written by copying it (`'mississippi'` is no word of a pool).
   */
  values?: number;
}

/** A template: mirrors one seed or builtin train task, with varied parameters and phrasing. */
export interface Template {
  /** The seed/builtin task it mirrors, e.g. `builtin/sum_to`. */
  taskId: string;
  /** One instance; `names` sets the shares of made-up names where the template draws names. */
  make(rng: Rng, names?: NameShares): Instance;
}

/** Uniform integer in [lo, hi]. */
export function int(rng: Rng, lo: number, hi: number): number {
  return lo + Math.floor(rng.uniform() * (hi - lo + 1));
}

/** One element chosen uniformly. */
export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng.uniform() * items.length)]!;
}

/** `n` distinct picks, in random order. */
export function sample<T>(rng: Rng, items: readonly T[], n: number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < n && pool.length > 0)
    out.push(pool.splice(Math.floor(rng.uniform() * pool.length), 1)[0]!);
  return out;
}

/** Python repr of a value made of ints, strings, lists and dicts (what print() shows). */
export function pyRepr(value: unknown): string {
  if (typeof value === 'string')
    return value.includes("'") && !value.includes('"')
      ? `"${value}"`
      : `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (value instanceof Map)
    return `{${[...value].map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(', ')}}`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`)
      .join(', ')}}`;
  throw new Error(`pyRepr: unsupported value ${String(value)}`);
}

/** Openers and closers of a builtin-style prompt (skill.ts extends them). */
export const OPENERS = [
  'Define a function',
  'Define a function',
  'Define a function',
  'Write a function',
  'Implement a function',
];
export const CLOSERS = [
  'Then print {call}.',
  'Then print {call}.',
  'Then print {call}.',
  'Then print the result of {call}.',
  'Finally, print {call}.',
];

/**
 * A builtin-style prompt: "<opener> `sig` that <what>. Then print <call>." with the opener and
 * closer varied, so the model keys on the content rather than one fixed wording.
 */
export function functionPrompt(rng: Rng, signature: string, what: string, call: string): string {
  return `${pick(rng, OPENERS)} \`${signature}\` that ${what} ${pick(rng, CLOSERS).replace('{call}', call)}`;
}

/** A program: the function definition, a blank line, then `print(call)`. */
export function program(definition: string, call: string): string {
  return `${definition.trim()}\n\nprint(${call})\n`;
}
