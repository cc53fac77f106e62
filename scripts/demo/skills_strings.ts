// Skills on strings: counting characters of a class, cleaning a string (keep letters or digits,
// drop spaces or vowels, change case) and then measuring, reversing, sorting or testing it, and
// operations on the words of a sentence. Left out on purpose (held_out.ts): the palindrome test
// once only letters are kept and case is ignored (is_clean_palindrome), removing repeated
// characters (unique_chars), comparing two strings' character counts (is_anagram).
import type { Rng } from '../../src/model/rng.ts';
import { skill, type FunctionSpec } from './skill.ts';
import { int, pick, pyRepr, sample, type Template } from './template.ts';

const WORDS = [
  'apple',
  'river',
  'stone',
  'cloud',
  'tiger',
  'piano',
  'lemon',
  'rocket',
  'garden',
  'silver',
  'orange',
  'window',
  'planet',
  'candle',
  'forest',
  'yellow',
  'button',
  'dragon',
  'pencil',
  'castle',
  'sun',
  'map',
  'cat',
  'dog',
  'owl',
  'sky',
  'tea',
  'ink',
  'bee',
  'fox',
  'code',
  'data',
  'loop',
  'list',
  'tree',
  'moon',
  'star',
  'rain',
  'wind',
  'fire',
  'snow',
  'kiwi',
  'plum',
  'pear',
  'lime',
];

/** A sentence of `n` random words, some capitalised, with a comma or a final mark now and then. */
function sentence(rng: Rng, n: number): string {
  const words = Array.from({ length: n }, () => pick(rng, WORDS));
  const cased = words.map((w) => (rng.uniform() < 0.2 ? w[0]!.toUpperCase() + w.slice(1) : w));
  let text = cased.join(' ');
  if (rng.uniform() < 0.3) text = text.replace(' ', ', ');
  if (rng.uniform() < 0.3) text += pick(rng, ['!', '.', '?']);
  if (rng.uniform() < 0.2) text += ` ${int(rng, 1, 99)}`;
  return text;
}

/** A Python string literal of a random sentence. */
const text = (rng: Rng, lo = 2, hi = 5) => pyRepr(sentence(rng, int(rng, lo, hi)));

/** Classes of characters, in words and as a test of `c`. */
const CLASSES = [
  {
    tag: 'vowels',
    words: 'vowels (a, e, i, o, u, in upper or lower case)',
    test: (c: string) => `${c}.lower() in 'aeiou'`,
  },
  { tag: 'uppercase', words: 'upper-case letters', test: (c: string) => `${c}.isupper()` },
  { tag: 'digits', words: 'digits', test: (c: string) => `${c}.isdigit()` },
  { tag: 'spaces', words: 'spaces', test: (c: string) => `${c} == ' '` },
  { tag: 'letters', words: 'letters', test: (c: string) => `${c}.isalpha()` },
  {
    tag: 'consonants',
    words: 'consonants (letters that are not vowels)',
    test: (c: string) => `${c}.isalpha() and ${c}.lower() not in 'aeiou'`,
  },
  {
    tag: 'non_letters',
    words: 'characters that are not letters',
    test: (c: string) => `not ${c}.isalpha()`,
  },
];

const countClass = skill('count_class', (rng): FunctionSpec => {
  const cls = pick(rng, CLASSES);
  return {
    names: [`count_${cls.tag}`, `num_${cls.tag}`, `how_many_${cls.tag}`],
    params: ['str'],
    what: ([s]) =>
      pick(rng, [
        `returns how many ${cls.words} the string ${s} contains`,
        `counts the ${cls.words} in ${s}`,
      ]),
    bodies: ([s]) => [
      `    return sum(1 for c in ${s} if ${cls.test('c')})`,
      `    count = 0\n    for c in ${s}:\n        if ${cls.test('c')}:\n            count += 1\n    return count`,
    ],
    args: [text(rng)],
    wrong: ([s]) => [
      {
        body: `    return sum(1 for c in ${s} if not (${cls.test('c')}))`,
        note: 'That counts the other characters; drop the not.',
      },
    ],
  };
});

const countChar = skill('count_char', (rng): FunctionSpec => {
  const s = sentence(rng, int(rng, 2, 4));
  const letters = [...s].filter((c) => /[a-z]/.test(c));
  return {
    names: ['count_char', 'occurrences', 'char_count', 'count_letter'],
    params: ['str', 'char'],
    what: ([t, c]) => `returns how many times the character ${c} occurs in ${t}`,
    bodies: ([t, c]) => [
      `    return ${t}.count(${c})`,
      `    return sum(1 for x in ${t} if x == ${c})`,
    ],
    args: [pyRepr(s), pyRepr(pick(rng, letters.length > 0 ? letters : ['a']))],
    wrong: ([t, c]) => [
      { body: `    return ${t}.count(${c}) - 1`, note: 'Every occurrence counts.' },
    ],
  };
});

/** Ways to clean a string before the final operation: a filter or a change of case. */
const CLEANS = [
  {
    tag: 'letters',
    words: 'only its letters are kept',
    keep: (c: string) => `${c}.isalpha()`,
    map: null,
  },
  {
    tag: 'digits',
    words: 'only its digits are kept',
    keep: (c: string) => `${c}.isdigit()`,
    map: null,
  },
  {
    tag: 'nospace',
    words: 'its spaces are removed',
    keep: (c: string) => `${c} != ' '`,
    map: null,
  },
  {
    tag: 'novowel',
    words: 'its vowels are removed',
    keep: (c: string) => `${c}.lower() not in 'aeiou'`,
    map: null,
  },
  { tag: 'lower', words: 'case is ignored', keep: null, map: (c: string) => `${c}.lower()` },
  {
    tag: 'lower',
    words: 'it is put in lower case',
    keep: null,
    map: (c: string) => `${c}.lower()`,
  },
  {
    tag: 'upper',
    words: 'it is put in upper case',
    keep: null,
    map: (c: string) => `${c}.upper()`,
  },
] as const;
type Clean = (typeof CLEANS)[number];

/** What is done with the cleaned string `k`. */
const FINALS = [
  {
    tag: 'cleaned',
    lead: (s: string) => `returns ${s}`,
    tail: '',
    code: (k: string) => k,
    wrong: (k: string) => `${k}[::-1]`,
  },
  {
    tag: 'length',
    lead: (s: string) => `returns the length of ${s}`,
    tail: '',
    code: (k: string) => `len(${k})`,
    wrong: (k: string) => `len(${k}) - 1`,
  },
  {
    tag: 'reversed',
    lead: (s: string) => `returns ${s} reversed`,
    tail: '',
    code: (k: string) => `${k}[::-1]`,
    wrong: (k: string) => k,
  },
  {
    tag: 'sorted',
    lead: (s: string) => `returns the characters of ${s} in alphabetical order`,
    tail: '',
    code: (k: string) => `''.join(sorted(${k}))`,
    wrong: (k: string) => `sorted(${k})`,
  },
  {
    tag: 'palindrome',
    lead: (s: string) => `returns True if ${s} reads the same backwards`,
    tail: ', and False otherwise',
    code: (k: string) => `${k} == ${k}[::-1]`,
    wrong: (k: string) => `${k} == ${k}`,
  },
  {
    tag: 'distinct',
    lead: (s: string) => `returns how many different characters ${s} has`,
    tail: '',
    code: (k: string) => `len(set(${k}))`,
    wrong: (k: string) => `len(${k})`,
  },
] as const;

/**
 * Clean a string (one or two of CLEANS) and apply one of FINALS. The palindrome test once only
 * letters are kept and case is ignored (in lower or upper case) is the held-out
 * is_clean_palindrome, so it is never made.
 */
const cleanThen = skill('clean_then', (rng): FunctionSpec => {
  const final = pick(rng, FINALS);
  let cleans: Clean[];
  do {
    const first = pick(rng, CLEANS);
    const second =
      rng.uniform() < 0.4
        ? pick(
            rng,
            CLEANS.filter((c) => c.tag !== first.tag),
          )
        : null;
    // Only digits kept leaves nothing for a second cleaning to do.
    cleans =
      second && first.tag !== 'digits' && second.tag !== 'digits' ? [first, second] : [first];
  } while (
    (final.tag === 'palindrome' &&
      cleans.some((c) => c.tag === 'letters') &&
      // Upper case ignores case as lower case does: either would be the held-out task itself.
      cleans.some((c) => c.tag === 'lower' || c.tag === 'upper')) ||
    (cleans.some((c) => c.tag === 'lower') && cleans.some((c) => c.tag === 'upper'))
  );
  const keep = cleans.flatMap((c) => (c.keep ? [c.keep] : []));
  const map = cleans.find((c) => c.map)?.map ?? null;
  const k = pick(rng, ['kept', 'clean', 'chars', 'cleaned']);
  const ch = pick(rng, ['c', 'ch', 'x']);
  const palindromeValue =
    final.tag === 'palindrome' && rng.uniform() < 0.5
      ? (() => {
          const w = pick(rng, WORDS);
          return pyRepr(`${w} ${[...w].reverse().join('')}`.replace(/^./, (c) => c.toUpperCase()));
        })()
      : cleans[0]!.tag === 'digits'
        ? pyRepr(
            `${sentence(rng, 2)} ${int(rng, 10, 99999)} ${pick(rng, WORDS)} ${int(rng, 1, 99)}`,
          )
        : text(rng);
  return {
    names: [
      `${final.tag}_${cleans.map((c) => c.tag).join('_')}`,
      `${final.tag}_clean`,
      final.tag === 'cleaned' ? 'clean' : `${final.tag}_of`,
    ],
    params: ['str'],
    what: ([s]) =>
      `${final.lead(s!)} once ${cleans.map((c) => c.words).join(' and ')}${final.tail}`,
    bodies: ([s]) => {
      const cond = keep.length > 0 ? ` if ${keep.map((t) => t(ch)).join(' and ')}` : '';
      const item = map ? map(ch) : ch;
      const loopCond = keep.length > 0 ? keep.map((t) => t(ch)).join(' and ') : null;
      return [
        `    ${k} = ''.join(${item} for ${ch} in ${s}${cond})\n    return ${final.code(k)}`,
        `    ${k} = ''\n    for ${ch} in ${s}:\n${loopCond ? `        if ${loopCond}:\n            ${k} += ${item}` : `        ${k} += ${item}`}\n    return ${final.code(k)}`,
      ];
    },
    args: [palindromeValue],
    wrong: ([s]) => [
      {
        body: `    return ${final.code(s!)}`,
        note: `The string must be cleaned first: ${cleans.map((c) => c.words).join(' and ')}.`,
      },
      {
        body: `    ${k} = ''.join(${map ? map(ch) : ch} for ${ch} in ${s}${keep.length > 0 ? ` if ${keep.map((t) => t(ch)).join(' and ')}` : ''})\n    return ${final.wrong(k)}`,
        note: 'The cleaning is right but the last step is not; fix what is returned.',
      },
    ],
  };
});

/** Operations on the words of a sentence (split on whitespace). */
const WORD_OPS = [
  {
    tag: 'shortest_word',
    what: (s: string) =>
      `returns the shortest word in ${s}; if several are equally short, return the first`,
    body: (s: string) => `    return min(${s}.split(), key=len)`,
    wrong: (s: string) => `    return min(${s}.split())`,
  },
  {
    tag: 'initials',
    what: (s: string) => `returns the first letter of every word of ${s}, joined into one string`,
    body: (s: string) => `    return ''.join(w[0] for w in ${s}.split())`,
    wrong: (s: string) => `    return ' '.join(w[0] for w in ${s}.split())`,
  },
  {
    tag: 'word_lengths',
    what: (s: string) => `returns the list of the lengths of the words of ${s}, in order`,
    body: (s: string) => `    return [len(w) for w in ${s}.split()]`,
    wrong: (s: string) => `    return len(${s}.split())`,
  },
  {
    tag: 'reverse_each',
    what: (s: string) =>
      `returns ${s} with every word reversed, keeping the words in their order, joined by single spaces`,
    body: (s: string) => `    return ' '.join(w[::-1] for w in ${s}.split())`,
    wrong: (s: string) => `    return ${s}[::-1]`,
  },
  {
    tag: 'last_word',
    what: (s: string) => `returns the last word of ${s}`,
    body: (s: string) => `    return ${s}.split()[-1]`,
    wrong: (s: string) => `    return ${s}.split()[0]`,
  },
  {
    tag: 'dashed',
    what: (s: string) => `returns the words of ${s} joined by dashes instead of spaces`,
    body: (s: string) => `    return '-'.join(${s}.split())`,
    wrong: (s: string) => `    return '-'.join(${s})`,
  },
  {
    tag: 'upper_words',
    what: (s: string) =>
      `returns the words of ${s} that start with an upper-case letter, as a list in order`,
    body: (s: string) => `    return [w for w in ${s}.split() if w[0].isupper()]`,
    wrong: (s: string) => `    return [w for w in ${s}.split() if w.isupper()]`,
  },
  {
    tag: 'sorted_words',
    what: (s: string) => `returns the words of ${s} sorted alphabetically, joined by single spaces`,
    body: (s: string) => `    return ' '.join(sorted(${s}.split()))`,
    wrong: (s: string) => `    return sorted(${s}.split())`,
  },
];

const wordOps = skill('word_op', (rng): FunctionSpec => {
  const op = pick(rng, WORD_OPS);
  return {
    names: [op.tag, `get_${op.tag}`],
    params: [['s', 'text', 'sentence', 'line', 'phrase']],
    what: ([s]) => op.what(s!),
    bodies: ([s]) => [op.body(s!)],
    args: [text(rng, 3, 6)],
    wrong: ([s]) => [{ body: op.wrong(s!), note: 'That does not return what was asked; fix it.' }],
  };
});

/** Words of a sentence that meet a condition with a number: longer than k, starting with a letter. */
const wordFilter = skill('word_filter', (rng): FunctionSpec => {
  const byLength = rng.uniform() < 0.5;
  const aggregate = pick(rng, ['list', 'count'] as const);
  const s = sentence(rng, int(rng, 3, 6));
  return {
    names: byLength
      ? [
          `long_words`,
          `words_longer_than`,
          aggregate === 'count' ? 'count_long_words' : 'long_words_list',
        ]
      : [`words_starting_with`, aggregate === 'count' ? 'count_starting_with' : 'starting_with'],
    params: byLength
      ? [
          ['s', 'text', 'sentence'],
          ['k', 'n', 'size'],
        ]
      : [['s', 'text', 'sentence'], 'char'],
    what: ([t, k]) => {
      const cond = byLength ? `are longer than ${k} characters` : `start with the letter ${k}`;
      return aggregate === 'count'
        ? `returns how many words of ${t} ${cond}`
        : `returns the list of the words of ${t} that ${cond}, in order`;
    },
    bodies: ([t, k]) => {
      const test = byLength ? `len(w) > ${k}` : `w.startswith(${k})`;
      return aggregate === 'count'
        ? [`    return sum(1 for w in ${t}.split() if ${test})`]
        : [`    return [w for w in ${t}.split() if ${test}]`];
    },
    args: [
      pyRepr(s),
      byLength
        ? String(int(rng, 2, 5))
        : pyRepr(
            pick(
              rng,
              s
                .split(' ')
                .filter((w) => /^[a-z]/.test(w))
                .map((w) => w[0]!)
                .concat(['a']),
            ),
          ),
    ],
    wrong: ([t, k]) => {
      const test = byLength ? `len(w) >= ${k}` : `${k} in w`;
      return [
        {
          body:
            aggregate === 'count'
              ? `    return sum(1 for w in ${t}.split() if ${test})`
              : `    return [w for w in ${t}.split() if ${test}]`,
          note: 'The condition is not the one asked for; fix it.',
        },
      ];
    },
  };
});

/** Character-by-character rewrites: replace one character, double each, swap case. */
const rewrite = skill('rewrite', (rng): FunctionSpec => {
  const op = pick(rng, [
    {
      tag: 'replace_char',
      params: ['str', ['old', 'a', 'c1'], ['new', 'b', 'c2']] as const,
      what: ([s, a, b]: string[]) =>
        `returns ${s} with every occurrence of the character ${a} replaced by ${b}`,
      body: ([s, a, b]: string[]) => `    return ${s}.replace(${a}, ${b})`,
      wrong: ([s, a, b]: string[]) => `    return ${s}.replace(${b}, ${a})`,
    },
    {
      tag: 'double_chars',
      params: ['str'] as const,
      what: ([s]: string[]) => `returns ${s} with every character written twice`,
      body: ([s]: string[]) => `    return ''.join(c * 2 for c in ${s})`,
      wrong: ([s]: string[]) => `    return ${s} * 2`,
    },
    {
      tag: 'swap_case',
      params: ['str'] as const,
      what: ([s]: string[]) =>
        `returns ${s} with upper-case letters made lower case and lower-case letters made upper case`,
      body: ([s]: string[]) =>
        `    return ''.join(c.lower() if c.isupper() else c.upper() for c in ${s})`,
      wrong: ([s]: string[]) => `    return ${s}.upper()`,
    },
    {
      tag: 'every_other',
      params: ['str'] as const,
      what: ([s]: string[]) => `returns every other character of ${s}, starting with the first`,
      body: ([s]: string[]) => `    return ${s}[::2]`,
      wrong: ([s]: string[]) => `    return ${s}[1::2]`,
    },
    {
      tag: 'remove_char',
      params: ['str', 'char'] as const,
      what: ([s, c]: string[]) =>
        `returns ${s} with every occurrence of the character ${c} removed`,
      body: ([s, c]: string[]) => `    return ${s}.replace(${c}, '')`,
      wrong: ([s, c]: string[]) => `    return ${s}.replace(${c}, ' ')`,
    },
  ]);
  const s = sentence(rng, int(rng, 2, 4));
  const letters = [...new Set([...s].filter((c) => /[a-z]/.test(c)))];
  const chars = sample(rng, letters.length >= 2 ? letters : ['a', 'e'], 2);
  const args = [
    pyRepr(s),
    ...(op.params.length > 1 ? [pyRepr(chars[0]!)] : []),
    ...(op.params.length > 2 ? [pyRepr(pick(rng, ['*', '_', '#', 'x']))] : []),
  ];
  return {
    names: [op.tag, `${op.tag}s`, `do_${op.tag}`],
    params: op.params,
    what: op.what,
    bodies: (p) => [op.body(p)],
    args,
    wrong: (p) => [{ body: op.wrong(p), note: 'That is not the rewrite asked for.' }],
  };
});

/** String skills. */
export const STRING_SKILLS: readonly Template[] = [
  countClass,
  countChar,
  cleanThen,
  cleanThen,
  wordOps,
  wordFilter,
  rewrite,
];
