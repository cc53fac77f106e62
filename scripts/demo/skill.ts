// What a skill is: a generator of function tasks that mirror no task of the suite, built from
// operations the task families use (count, sum, filter, group, slice, convert, ...) with random
// function names, parameter names, values and wordings. The corpus's skill part is made of these
// (scripts/demo/skills_*.ts), so the model learns to map a prompt to a program rather than to
// recall the programs of the tasks it trains on. Held-out combinations are left out by design
// (scripts/demo/held_out.ts lists the held-out tasks and checks the corpus against them).
import type { Rng } from '../../src/model/rng.ts';
import { HELD_OUT_NAMES } from './held_out.ts';
import { NAME_HEADS, NAME_NOUNS } from './name_words.ts';
import {
  CLOSERS,
  int,
  OPENERS,
  pick,
  program,
  type Instance,
  type Mistake,
  type NameShares,
  type Template,
} from './template.ts';

/** Parameter kinds, each with its own pool of names. */
export type ParamKind =
  | 'int'
  | 'bound'
  | 'divisor'
  | 'list'
  | 'words'
  | 'str'
  | 'char'
  | 'dict'
  | 'nested'
  | 'other_list'
  | 'other_str'
  | 'key';

const PARAM_NAMES: Record<ParamKind, readonly string[]> = {
  int: ['n', 'x', 'num', 'value', 'number', 'm'],
  bound: ['limit', 't', 'threshold', 'cutoff', 'bound'],
  divisor: ['k', 'd', 'm', 'step', 'divisor', 'base'],
  list: ['nums', 'items', 'values', 'xs', 'numbers', 'data', 'arr', 'lst', 'seq'],
  words: ['words', 'names', 'items', 'tokens', 'strings', 'labels'],
  str: ['s', 'text', 'word', 'line', 'phrase', 'sentence', 'msg'],
  char: ['c', 'ch', 'letter', 'char', 'target'],
  dict: ['d', 'counts', 'table', 'mapping', 'scores', 'prices', 'stock', 'ages'],
  nested: ['lists', 'rows', 'groups', 'grid', 'matrix', 'batches'],
  other_list: ['ys', 'other', 'second', 'more', 'b_list', 'rest'],
  other_str: ['t', 'other', 'second', 'b_text', 'w2'],
  key: ['key', 'k', 'name', 'wanted', 'target'],
};

/** A parameter: a kind (its pool of names), or a pool of its own. */
export type Param = ParamKind | readonly string[];

/** A name for a parameter, not in `taken` (so two parameters never clash). */
export function paramName(
  rng: Rng,
  kind: Param,
  taken: readonly string[] = [],
  shares: NameShares = DEFAULT_NAME_SHARES,
): string {
  if (rng.uniform() < shares.param) {
    const name = madeUpName(rng, 1, shares.words, shares.long);
    if (!taken.includes(name)) return name;
  }
  const pool = typeof kind === 'string' ? PARAM_NAMES[kind] : kind;
  const free = pool.filter((name) => !taken.includes(name));
  return pick(rng, free.length > 0 ? free : [`arg${taken.length}`]);
}

/** Parameter names for a signature, in order, all different. */
export function paramNames(
  rng: Rng,
  kinds: readonly Param[],
  shares: NameShares = DEFAULT_NAME_SHARES,
): string[] {
  const names: string[] = [];
  for (const kind of kinds) names.push(paramName(rng, kind, names, shares));
  return names;
}

/** Generic function names any task may carry (real code is full of them). */
const GENERIC_NAMES = [
  'solve',
  'compute',
  'func',
  'helper',
  'answer',
  'calc',
  'process',
  'result_of',
];

/**
 * A function name: mostly one of the skill's own descriptive names, sometimes a generic one or a
 * descriptive one with a suffix, so the model copies the name from the prompt instead of recalling
 * it from the task. Never the name of a held-out task's function.
 */
export function functionName(
  rng: Rng,
  names: readonly string[],
  shares: NameShares = DEFAULT_NAME_SHARES,
): string {
  for (;;) {
    const name = drawName(rng, names, shares);
    if (!HELD_OUT_NAMES.has(name)) return name;
  }
}

/**
 * Shares of made-up names (syllables that mean nothing) the skill part has used since it landed: a
 * function or parameter so named can only be written by copying it from the prompt, which is what a
 * model must do on a task it never saw. A recipe may ask for other shares (`--made-up-names`).
 */
export const DEFAULT_NAME_SHARES: NameShares = { function: 0.3, param: 0.2 };
const ONSETS = ['b', 'd', 'f', 'g', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z'];
const VOWELS = ['a', 'e', 'i', 'o', 'u'];

/** Python's keywords and lower-case builtins: a long name is never one of them (it would shadow one). */
const PYTHON_WORDS = new Set(
  `False None True abs aiter all and anext any as ascii assert async await bin bool break breakpoint bytearray bytes callable chr class classmethod compile complex continue copyright credits def del delattr dict dir divmod elif else enumerate eval except exec exit filter finally float for format from frozenset getattr global globals hasattr hash help hex id if import in input int is isinstance issubclass iter lambda len license list locals map max memoryview min next nonlocal not object oct open or ord pass pow print property quit raise range repr return reversed round set setattr slice sorted staticmethod str sum super try tuple type vars while with yield zip`.split(
    ' ',
  ),
);

/**
 * A made-up name: with probability `wordShare` built from English words (`wordName`); otherwise,
 * with probability `longShare`, a long one (`longName`); otherwise of `syllables` random syllables,
 * sometimes with a second part after an underscore.
 */
export function madeUpName(rng: Rng, syllables = 2, wordShare = 0, longShare = 0): string {
  // No draw when no words are asked for, so the corpus of a recipe without words stays the same.
  if (wordShare > 0 && rng.uniform() < wordShare) return wordName(rng, syllables > 1 ? 2 : 1);
  if (longShare > 0 && rng.uniform() < longShare) return longName(rng, syllables > 1 ? 2 : 1);
  for (;;) {
    const word = (count: number) =>
      Array.from({ length: count }, () => pick(rng, ONSETS) + pick(rng, VOWELS)).join('');
    const name = syllables > 1 && rng.uniform() < 0.3 ? `${word(2)}_${word(1)}` : word(syllables);
    if (!PYTHON_WORDS.has(name) && !HELD_OUT_NAMES.has(name)) return name;
  }
}

/** Onsets, vowels and codas of long names' syllables: wider than `ONSETS`/`VOWELS`, with clusters. */
const LONG_ONSETS = [
  ...ONSETS,
  'br',
  'ch',
  'cl',
  'dr',
  'fl',
  'gr',
  'pl',
  'sh',
  'sp',
  'st',
  'th',
  'tr',
  'w',
  'h',
  'c',
  'j',
  '',
];
const LONG_VOWELS = [...VOWELS, 'ai', 'ea', 'ou', 'y', 'e', 'a', 'o'];
const LONG_CODAS = ['', '', '', 'n', 'r', 'l', 's', 't', 'm', 'x', 'ng', 'ck', 'nd'];
/** Short real words that held-out-like names mix with invented parts (`is_`, `_to_`, `_get`). */
const SHORT_WORDS = [
  'is',
  'to',
  'by',
  'get',
  'of',
  'all',
  'has',
  'first',
  'last',
  'new',
  'big',
  'c',
  'f',
  'x',
];

/** A syllable of the wide inventory: an onset (maybe a cluster or none), a vowel, maybe a coda. */
function longSyllable(rng: Rng): string {
  return pick(rng, LONG_ONSETS) + pick(rng, LONG_VOWELS) + pick(rng, LONG_CODAS);
}

/**
 * A long made-up name: for a function (`level` 2) two or three parts, for a parameter one or two;
 * each part but the last is a short real word a third of the time (never two in a row), else one
 * to three syllables (mostly one or two) from the wide inventory. Never a Python word or a held-out name.
 */
export function longName(rng: Rng, level: 1 | 2): string {
  const syllable = () => longSyllable(rng);
  const syllables = () => {
    const u = rng.uniform();
    return u < 0.5 ? 1 : u < 0.9 ? 2 : 3;
  };
  for (;;) {
    const count =
      level === 2 ? 2 + (rng.uniform() < 0.4 ? 1 : 0) : 1 + (rng.uniform() < 0.4 ? 1 : 0);
    const parts: string[] = [];
    for (let i = 0; i < count; i++) {
      const short =
        i < count - 1 && !SHORT_WORDS.includes(parts[i - 1] ?? '') && rng.uniform() < 0.33;
      parts.push(
        short ? pick(rng, SHORT_WORDS) : Array.from({ length: syllables() }, syllable).join(''),
      );
    }
    const name = parts.join('_');
    if (/^[a-z]/.test(name) && !PYTHON_WORDS.has(name) && !HELD_OUT_NAMES.has(name)) return name;
  }
}

/** A made-up word of one to three syllables from the wide inventory, never a Python word. */
function madeUpWord(rng: Rng): string {
  for (;;) {
    const count = 1 + Math.floor(rng.uniform() * 3);
    const word = Array.from({ length: count }, () => longSyllable(rng)).join('');
    if (word.length >= 3 && !PYTHON_WORDS.has(word)) return word;
  }
}

/**
 * Python literals with the words of their quoted strings made up: each word of three letters or more
 * becomes a made-up word, the same word the same one across all the arguments (so a key still finds
 * its dictionary, a repeated word is still repeated) and different words different ones; a capital
 * stays a capital. Numbers, short words, escapes (`\n`) and the code around the strings are kept.
 */
export function madeUpArgs(rng: Rng, args: readonly string[]): string[] {
  const mapping = new Map<string, string>();
  const used = new Set<string>();
  const swap = (word: string) => {
    const key = word.toLowerCase();
    let made = mapping.get(key);
    while (made === undefined) {
      const draw = madeUpWord(rng);
      if (!used.has(draw) && !HELD_OUT_NAMES.has(draw)) {
        made = draw;
        used.add(draw);
        mapping.set(key, draw);
      }
    }
    return /^[A-Z]/.test(word) ? made[0]!.toUpperCase() + made.slice(1) : made;
  };
  return args.map((arg) =>
    arg.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, (literal) =>
      literal.replace(/(?<![\\A-Za-z])[A-Za-z]{3,}/g, swap),
    ),
  );
}

/**
 * A name of English words: one noun for a parameter (`parts` 1), a head and a noun, sometimes with
 * a second noun, for a function (`sift_pebble`, `tally_owl_lamp`). Never a held-out name.
 */
export function wordName(rng: Rng, parts: 1 | 2): string {
  for (;;) {
    const name =
      parts === 1
        ? pick(rng, NAME_NOUNS)
        : [
            pick(rng, NAME_HEADS),
            pick(rng, NAME_NOUNS),
            ...(rng.uniform() < 0.3 ? [pick(rng, NAME_NOUNS)] : []),
          ].join('_');
    if (!HELD_OUT_NAMES.has(name)) return name;
  }
}

function drawName(rng: Rng, names: readonly string[], shares: NameShares): string {
  if (rng.uniform() < shares.function)
    return madeUpName(rng, 2 + (rng.uniform() < 0.3 ? 1 : 0), shares.words, shares.long);
  const draw = rng.uniform();
  if (draw < 0.15) return pick(rng, GENERIC_NAMES);
  const name = pick(rng, names);
  if (draw < 0.25) return `${name}${pick(rng, ['_v2', '2', '_fn', '_of'])}`;
  return name;
}

/** The template's openers and closers, and a few more (the same order, so the same draws). */
const SKILL_OPENERS = [...OPENERS, 'Create a function', 'Write a Python function'];
const LINKS = ['that', 'that', 'that', 'which'];
const SKILL_CLOSERS = [...CLOSERS, 'After defining it, print {call}.', 'Print {call} at the end.'];

/** An operation given by its parameters, wording, a correct and a wrong body. */
export interface Op {
  tag: string;
  params: readonly Param[];
  what: (p: string[]) => string;
  body: (p: string[]) => string;
  wrong: (p: string[]) => string;
}

/** "<opener> `sig` that <what>. <closer>", every part varied. */
export function skillPrompt(rng: Rng, signature: string, what: string, call: string): string {
  const sentence = /[.?!]$/.test(what) ? what : `${what}.`;
  return `${pick(rng, SKILL_OPENERS)} \`${signature}\` ${pick(rng, LINKS)} ${sentence} ${pick(rng, SKILL_CLOSERS).replace('{call}', call)}`;
}

/** A wrong body of the function, and what the assistant says before fixing it. */
export interface WrongBody {
  body: string;
  note: string;
}

/** What a skill instance is made of, in terms of its parameter names `p`. */
export interface FunctionSpec {
  /** Descriptive names for the function. */
  names: readonly string[];
  params: readonly Param[];
  /** What the function does, after "that", using the parameter names. */
  what: (p: string[]) => string;
  /** Correct bodies (one is picked), indented by 4 spaces, using the parameter names. */
  bodies: (p: string[]) => readonly string[];
  /** The call's arguments as Python literals. */
  args: readonly string[];
  /** Realistic wrong bodies. */
  wrong?: (p: string[]) => readonly WrongBody[];
}

/** One instance of a function task from its spec. */
export function functionInstance(
  rng: Rng,
  spec: FunctionSpec,
  shares: NameShares = DEFAULT_NAME_SHARES,
): Instance {
  const name = functionName(rng, spec.names, shares);
  const p = paramNames(rng, spec.params, shares);
  // No draw when no made-up values are asked for, so an older recipe's corpus stays the same.
  const values = shares.values ?? 0;
  const args = values > 0 && rng.uniform() < values ? madeUpArgs(rng, spec.args) : spec.args;
  const signature = `${name}(${p.join(', ')})`;
  const call = `${name}(${args.join(', ')})`;
  const define = (body: string) => `def ${signature}:\n${body}`;
  const mistakes: Mistake[] = (spec.wrong?.(p) ?? []).map((w) => ({
    code: program(define(w.body), call),
    note: w.note,
  }));
  return {
    prompt: skillPrompt(rng, signature, spec.what(p), call),
    solution: program(define(pick(rng, spec.bodies(p))), call),
    mistakes,
    functionName: name,
  };
}

/** A skill: a template whose task id is `skill/<id>` (it mirrors no task of the suite). */
export function skill(id: string, make: (rng: Rng) => FunctionSpec): Template {
  return {
    taskId: `skill/${id}`,
    make: (rng, shares) => functionInstance(rng, make(rng), shares),
  };
}

/** Indents a block of code by 4 spaces per level. */
export function indent(code: string, levels = 1): string {
  const pad = '    '.repeat(levels);
  return code
    .split('\n')
    .map((line) => (line === '' ? line : pad + line))
    .join('\n');
}

/** `n` ints in [lo, hi] (repeats allowed). */
export function intList(rng: Rng, n: number, lo: number, hi: number): number[] {
  return Array.from({ length: n }, () => int(rng, lo, hi));
}
