// Skills on dictionaries: counting by a key, grouping into lists by a key, where things last occur,
// filtering, choosing, building and merging dictionaries, looking keys up. Left out on purpose
// (held_out.ts): grouping words into lists by their length (group_by_length), the index where
// each character first appears (first_indexes), following keys through nested dictionaries
// (nested_get).
import type { Rng } from '../../src/model/rng.ts';
import { intList, skill, type FunctionSpec, type Op, type Param } from './skill.ts';
import { int, pick, pyRepr, sample, type Template } from './template.ts';

const WORDS = [
  'apple',
  'avocado',
  'banana',
  'blueberry',
  'cherry',
  'kiwi',
  'fig',
  'grape',
  'lime',
  'lemon',
  'mango',
  'melon',
  'pear',
  'plum',
  'peach',
  'date',
  'cat',
  'dog',
  'cow',
  'owl',
  'ant',
  'bee',
  'eel',
  'yak',
];
const NAMES = [
  'amy',
  'bob',
  'cal',
  'dan',
  'eve',
  'fay',
  'gus',
  'ivy',
  'jon',
  'kim',
  'lea',
  'max',
  'ned',
  'ola',
  'pam',
  'raj',
  'sam',
  'tom',
];
const DICT: Param = ['d', 'counts', 'table', 'mapping', 'scores', 'prices', 'stock', 'ages'];
const WORDLIST: Param = ['words', 'names', 'items', 'tokens', 'strings', 'labels'];

const words = (rng: Rng, lo = 3, hi = 6) =>
  Array.from({ length: int(rng, lo, hi) }, () => pick(rng, WORDS));
const scoreDict = (rng: Rng, lo = 2, hi = 5) => {
  const d = new Map<string, number>();
  for (const k of sample(rng, NAMES, int(rng, lo, hi))) d.set(k, int(rng, 0, 20));
  return d;
};

/** Keys a count or a group can be made by: of a word `w`, or of a number `x`. */
const KEYS = [
  { tag: 'first_letter', of: 'words', words: 'first letter', code: (w: string) => `${w}[0]` },
  { tag: 'last_letter', of: 'words', words: 'last letter', code: (w: string) => `${w}[-1]` },
  { tag: 'length', of: 'words', words: 'length', code: (w: string) => `len(${w})` },
  {
    tag: 'parity',
    of: 'numbers',
    words: "parity ('even' or 'odd')",
    code: (x: string) => `'even' if ${x} % 2 == 0 else 'odd'`,
  },
  { tag: 'last_digit', of: 'numbers', words: 'last digit', code: (x: string) => `${x} % 10` },
] as const;

/**
 * A dictionary from each key to how many items have it, or to the list of those items. Grouping
 * words into lists by their length is the held-out group_by_length, so that pair is never made.
 */
const countOrGroup = skill('count_or_group', (rng): FunctionSpec => {
  const grouped = rng.uniform() < 0.5;
  const key = pick(
    rng,
    KEYS.filter((k) => !(grouped && k.tag === 'length')),
  );
  const onWords = key.of === 'words';
  const item = pick(rng, onWords ? ['w', 'word', 'item'] : ['x', 'n', 'num']);
  const k = key.code(item);
  const groups = pick(
    rng,
    grouped ? ['groups', 'buckets', 'by_key', 'out'] : ['counts', 'tally', 'out', 'seen'],
  );
  const kind = onWords ? 'word' : 'number';
  return {
    names: grouped
      ? [`group_by_${key.tag}`, `by_${key.tag}`, 'group']
      : [`count_by_${key.tag}`, `${key.tag}_counts`, 'tally'],
    params: [onWords ? WORDLIST : ['nums', 'numbers', 'values', 'xs']],
    what: ([xs]) =>
      grouped
        ? `returns a dictionary mapping each ${key.words} to the list of the ${kind}s of ${xs} with that ${key.tag === 'parity' ? 'parity' : key.words}, in their original order`
        : `returns a dictionary mapping each ${key.words} to how many ${kind}s of ${xs} have it, in order of first appearance`,
    bodies: ([xs]) =>
      grouped
        ? [
            `    ${groups} = {}\n    for ${item} in ${xs}:\n        ${groups}.setdefault(${k}, []).append(${item})\n    return ${groups}`,
            `    ${groups} = {}\n    for ${item} in ${xs}:\n        key = ${k}\n        if key not in ${groups}:\n            ${groups}[key] = []\n        ${groups}[key].append(${item})\n    return ${groups}`,
          ]
        : [
            `    ${groups} = {}\n    for ${item} in ${xs}:\n        key = ${k}\n        ${groups}[key] = ${groups}.get(key, 0) + 1\n    return ${groups}`,
          ],
    args: [pyRepr(onWords ? words(rng) : intList(rng, int(rng, 3, 7), 1, 40))],
    wrong: ([xs]) =>
      grouped
        ? [
            {
              body: `    ${groups} = {}\n    for ${item} in ${xs}:\n        ${groups}[${k}] = [${item}]\n    return ${groups}`,
              note: 'Each new item replaces the list; append to it instead.',
            },
          ]
        : [
            {
              body: `    ${groups} = {}\n    for ${item} in ${xs}:\n        ${groups}[${k}] = 1\n    return ${groups}`,
              note: 'That sets every count to 1; add one each time instead.',
            },
          ],
  };
});

/** Counting the characters of a string or the elements of a list. */
const countEach = skill('count_each', (rng): FunctionSpec => {
  const ofString = rng.uniform() < 0.5;
  const counts = pick(rng, ['counts', 'freq', 'tally', 'seen']);
  const c = pick(rng, ['c', 'ch', 'x', 'item']);
  const mapping = pick(rng, [
    'a dictionary mapping each',
    'a dict that maps every',
    'a dictionary from each',
  ]);
  return {
    names: ofString
      ? ['char_counts', 'letter_counts', 'count_chars']
      : ['element_counts', 'frequencies', 'count_each'],
    params: [ofString ? 'str' : ['nums', 'values', 'xs', 'items']],
    what: ([s]) =>
      ofString
        ? `returns ${mapping} character of ${s} to the number of times it occurs, in order of first appearance`
        : `returns ${mapping} value in ${s} to the number of times it occurs, in order of first appearance`,
    bodies: ([s]) => [
      `    ${counts} = {}\n    for ${c} in ${s}:\n        ${counts}[${c}] = ${counts}.get(${c}, 0) + 1\n    return ${counts}`,
      `    ${counts} = {}\n    for ${c} in ${s}:\n        if ${c} in ${counts}:\n            ${counts}[${c}] += 1\n        else:\n            ${counts}[${c}] = 1\n    return ${counts}`,
    ],
    args: [
      ofString
        ? pyRepr(pick(rng, WORDS) + (rng.uniform() < 0.5 ? pick(rng, WORDS) : ''))
        : pyRepr(intList(rng, int(rng, 4, 8), 1, 5)),
    ],
    wrong: ([s]) => [
      {
        body: `    ${counts} = {}\n    for ${c} in ${s}:\n        ${counts}[${c}] += 1\n    return ${counts}`,
        note: 'A new key has no count yet; start it with get(c, 0).',
      },
    ],
  };
});

/**
 * Where things occur: the LAST index of each character or value, or the list of all its indexes.
 * The first index of each character is the held-out first_indexes, so it is never asked for.
 */
const lastPositions = skill('positions_map', (rng): FunctionSpec => {
  const all = rng.uniform() < 0.4;
  const ofString = rng.uniform() < 0.5;
  const thing = ofString ? 'character' : 'value';
  const out = pick(
    rng,
    all ? ['where', 'spots', 'places', 'found'] : ['last', 'where', 'pos', 'seen_at'],
  );
  const [i, c] = pick(rng, [
    ['i', 'c'],
    ['idx', 'ch'],
    ['i', 'x'],
    ['pos_i', 'item'],
  ]);
  const mapping = pick(rng, [
    'a dictionary mapping each',
    'a dict that maps every',
    'a dictionary from each',
  ]);
  return {
    names: all
      ? ['all_indexes', 'positions', 'where_each']
      : ['last_indexes', 'last_positions', 'last_seen'],
    params: [ofString ? 'str' : ['nums', 'values', 'xs', 'items']],
    what: ([s]) =>
      all
        ? `returns ${mapping} ${thing} of ${s} to the list of every index where it occurs`
        : `returns ${mapping} ${thing} of ${s} to the index where it last appears`,
    bodies: ([s]) =>
      all
        ? [
            `    ${out} = {}\n    for ${i}, ${c} in enumerate(${s}):\n        ${out}.setdefault(${c}, []).append(${i})\n    return ${out}`,
          ]
        : [
            `    ${out} = {}\n    for ${i}, ${c} in enumerate(${s}):\n        ${out}[${c}] = ${i}\n    return ${out}`,
          ],
    args: [
      ofString
        ? pyRepr(pick(rng, WORDS) + pick(rng, ['', 's', 'a']))
        : pyRepr(intList(rng, int(rng, 4, 7), 1, 5)),
    ],
    wrong: ([s]) => [
      all
        ? {
            body: `    ${out} = {}\n    for ${i}, ${c} in enumerate(${s}):\n        ${out}[${c}] = [${i}]\n    return ${out}`,
            note: 'Each index replaces the list; append to it.',
          }
        : {
            body: `    ${out} = {}\n    for ${i}, ${c} in enumerate(${s}):\n        ${out}[${i}] = ${c}\n    return ${out}`,
            note: 'Keys and values are swapped.',
          },
    ],
  };
});

/** Choosing in a dictionary of scores. */
const CHOICES = [
  {
    tag: 'key_of_min',
    what: (d: string) =>
      `returns the key with the smallest value in the non-empty dictionary ${d}; if several keys share that value, return the one that comes first`,
    body: (d: string) => `    return min(${d}, key=${d}.get)`,
    wrong: (d: string) => `    return min(${d})`,
  },
  {
    tag: 'largest_value',
    what: (d: string) => `returns the largest value in the non-empty dictionary ${d}`,
    body: (d: string) => `    return max(${d}.values())`,
    wrong: (d: string) => `    return max(${d})`,
  },
  {
    tag: 'total_value',
    what: (d: string) => `returns the sum of the values of ${d}`,
    body: (d: string) => `    return sum(${d}.values())`,
    wrong: (d: string) => `    return sum(${d})`,
  },
  {
    tag: 'keys_by_value',
    what: (d: string) =>
      `returns the keys of ${d} sorted by value from smallest to largest, with equal values in alphabetical order`,
    body: (d: string) => `    return sorted(${d}, key=lambda k: (${d}[k], k))`,
    wrong: (d: string) => `    return sorted(${d})`,
  },
  {
    tag: 'sorted_keys',
    what: (d: string) => `returns a list of the keys of ${d} in alphabetical order`,
    body: (d: string) => `    return sorted(${d})`,
    wrong: (d: string) => `    return list(${d})`,
  },
  {
    tag: 'mean_value',
    what: (d: string) =>
      `returns the mean of the values of the non-empty dictionary ${d}, rounded to 2 decimal places`,
    body: (d: string) => `    return round(sum(${d}.values()) / len(${d}), 2)`,
    wrong: (d: string) => `    return sum(${d}.values()) // len(${d})`,
  },
];

const choose = skill('dict_choice', (rng): FunctionSpec => {
  const op = pick(rng, CHOICES);
  return {
    names: [op.tag, `get_${op.tag}`],
    params: [DICT],
    what: ([d]) => op.what(d!),
    bodies: ([d]) => [op.body(d!)],
    args: [pyRepr(scoreDict(rng))],
    wrong: ([d]) => [{ body: op.wrong(d!), note: 'That works on the keys, not as asked; fix it.' }],
  };
});

/** Filters of a dictionary. */
const FILTERS: readonly Op[] = [
  {
    tag: 'below',
    params: [DICT, 'bound'],
    what: ([d, t]: string[]) =>
      `returns a new dictionary with only the entries of ${d} whose value is smaller than ${t}`,
    body: ([d, t]: string[]) => `    return {k: v for k, v in ${d}.items() if v < ${t}}`,
    wrong: ([d, t]: string[]) => `    return {k: v for k, v in ${d}.items() if v <= ${t}}`,
  },
  {
    tag: 'keys_with',
    params: [DICT, ['v', 'value', 'wanted', 'target']],
    what: ([d, v]: string[]) =>
      `returns the list of the keys of ${d} whose value equals ${v}, in order`,
    body: ([d, v]: string[]) => `    return [k for k, x in ${d}.items() if x == ${v}]`,
    wrong: ([d, v]: string[]) => `    return [x for k, x in ${d}.items() if x == ${v}]`,
  },
  {
    tag: 'starting_with',
    params: [DICT, 'char'],
    what: ([d, c]: string[]) =>
      `returns a new dictionary with only the entries of ${d} whose key starts with the letter ${c}`,
    body: ([d, c]: string[]) => `    return {k: v for k, v in ${d}.items() if k.startswith(${c})}`,
    wrong: ([d, c]: string[]) => `    return {k: v for k, v in ${d}.items() if ${c} in k}`,
  },
  {
    tag: 'count_above',
    params: [DICT, 'bound'],
    what: ([d, t]: string[]) => `returns how many values of ${d} are greater than ${t}`,
    body: ([d, t]: string[]) => `    return sum(1 for v in ${d}.values() if v > ${t})`,
    wrong: ([d, t]: string[]) => `    return sum(v for v in ${d}.values() if v > ${t})`,
  },
];

const filters = skill('dict_filter', (rng): FunctionSpec => {
  const op = pick(rng, FILTERS);
  const d = scoreDict(rng, 3, 5);
  const second =
    op.tag === 'starting_with'
      ? pyRepr(pick(rng, [...d.keys()])[0]!)
      : op.tag === 'keys_with'
        ? String(pick(rng, [...d.values()]))
        : String(int(rng, 3, 15));
  return {
    names: [op.tag, `entries_${op.tag}`, `filter_${op.tag}`],
    params: op.params,
    what: op.what,
    bodies: (p) => [op.body(p)],
    args: [pyRepr(d), second],
    wrong: (p) => [{ body: op.wrong(p), note: 'The condition or what is kept is wrong; fix it.' }],
  };
});

/** Building a dictionary from lists, or from another dictionary. */
const BUILDS: readonly Op[] = [
  {
    tag: 'pair_up',
    params: [
      ['keys', 'names', 'labels'],
      ['values', 'nums', 'amounts'],
    ],
    what: ([k, v]: string[]) =>
      `returns a dictionary that maps each element of ${k} to the element of ${v} at the same position`,
    body: ([k, v]: string[]) => `    return dict(zip(${k}, ${v}))`,
    wrong: ([k, v]: string[]) => `    return dict(zip(${v}, ${k}))`,
  },
  {
    tag: 'word_lengths_map',
    params: [WORDLIST],
    what: ([w]: string[]) => `returns a dictionary mapping each word of ${w} to its length`,
    body: ([w]: string[]) => `    return {x: len(x) for x in ${w}}`,
    wrong: ([w]: string[]) => `    return {len(x): x for x in ${w}}`,
  },
  {
    tag: 'squares_map',
    params: [['nums', 'values', 'xs']],
    what: ([xs]: string[]) => `returns a dictionary mapping each number of ${xs} to its square`,
    body: ([xs]: string[]) => `    return {x: x * x for x in ${xs}}`,
    wrong: ([xs]: string[]) => `    return {x: x * 2 for x in ${xs}}`,
  },
  {
    tag: 'keys_by_value_map',
    params: [DICT],
    what: ([d]: string[]) =>
      `returns a dictionary mapping each value of ${d} to the list of keys that have it, in order`,
    body: ([d]: string[]) =>
      `    out = {}\n    for k, v in ${d}.items():\n        out.setdefault(v, []).append(k)\n    return out`,
    wrong: ([d]: string[]) => `    return {v: k for k, v in ${d}.items()}`,
  },
  {
    tag: 'scaled',
    params: [DICT, ['factor', 'k', 'times']],
    what: ([d, f]: string[]) =>
      `returns a new dictionary with the same keys as ${d} and every value multiplied by ${f}`,
    body: ([d, f]: string[]) => `    return {k: v * ${f} for k, v in ${d}.items()}`,
    wrong: ([d, f]: string[]) => `    for k in ${d}:\n        ${d}[k] *= ${f}`,
  },
];

const builds = skill('dict_build', (rng): FunctionSpec => {
  const op = pick(rng, BUILDS);
  const keys = sample(rng, NAMES, int(rng, 2, 4));
  const args: Record<string, string[]> = {
    pair_up: [pyRepr(keys), pyRepr(intList(rng, keys.length, 1, 30))],
    word_lengths_map: [pyRepr(sample(rng, WORDS, int(rng, 2, 5)))],
    squares_map: [pyRepr(intList(rng, int(rng, 2, 5), -4, 9))],
    keys_by_value_map: [pyRepr(new Map(keys.map((k) => [k, int(rng, 1, 3)])))],
    scaled: [pyRepr(scoreDict(rng)), String(int(rng, 2, 5))],
  };
  return {
    names: [op.tag, `make_${op.tag}`, 'build'],
    params: op.params,
    what: op.what,
    bodies: (p) => [op.body(p)],
    args: args[op.tag]!,
    wrong: (p) => [{ body: op.wrong(p), note: 'The dictionary is not built as asked.' }],
  };
});

/** Two dictionaries at once, and looking keys up with a default. */
const TWO: readonly Op[] = [
  {
    tag: 'only_in_first',
    params: [
      ['a', 'first', 'left'],
      ['b', 'second', 'right'],
    ],
    what: ([a, b]: string[]) =>
      `returns a sorted list of the keys of ${a} that are not keys of ${b}`,
    body: ([a, b]: string[]) => `    return sorted(k for k in ${a} if k not in ${b})`,
    wrong: ([a, b]: string[]) => `    return sorted(k for k in ${b} if k not in ${a})`,
  },
  {
    tag: 'updated',
    params: [
      ['a', 'first', 'old'],
      ['b', 'second', 'new'],
    ],
    what: ([a, b]: string[]) =>
      `returns a new dictionary with the entries of ${a} and ${b}, where a key in both takes its value from ${b}`,
    body: ([a, b]: string[]) => `    out = dict(${a})\n    out.update(${b})\n    return out`,
    wrong: ([a, b]: string[]) => `    out = dict(${b})\n    out.update(${a})\n    return out`,
  },
  {
    tag: 'lookup',
    params: [DICT, 'key'],
    what: ([d, k]: string[]) =>
      `returns the value of ${d} for the key ${k}, or 0 if ${k} is not a key of ${d}`,
    body: ([d, k]: string[]) => `    return ${d}.get(${k}, 0)`,
    wrong: ([d, k]: string[]) => `    return ${d}[${k}]`,
  },
  {
    tag: 'total_for',
    params: [DICT, ['keys', 'wanted', 'names']],
    what: ([d, ks]: string[]) =>
      `returns the sum of the values of ${d} for the keys in the list ${ks}, skipping keys that ${d} does not have`,
    body: ([d, ks]: string[]) => `    return sum(${d}[k] for k in ${ks} if k in ${d})`,
    wrong: ([d, ks]: string[]) => `    return sum(${d}[k] for k in ${ks})`,
  },
];

const two = skill('dict_two', (rng): FunctionSpec => {
  const op = pick(rng, TWO);
  const a = scoreDict(rng);
  const b = scoreDict(rng);
  const args: Record<string, string[]> = {
    only_in_first: [pyRepr(a), pyRepr(b)],
    updated: [pyRepr(a), pyRepr(b)],
    lookup: [pyRepr(a), pyRepr(pick(rng, [...a.keys(), pick(rng, NAMES)]))],
    total_for: [
      pyRepr(a),
      pyRepr(sample(rng, [...a.keys(), ...sample(rng, NAMES, 2)], int(rng, 2, 4))),
    ],
  };
  return {
    names: [op.tag, `${op.tag}_keys`, `do_${op.tag}`],
    params: op.params,
    what: op.what,
    bodies: (p) => [op.body(p)],
    args: args[op.tag]!,
    wrong: (p) => [{ body: op.wrong(p), note: 'That does not handle the keys as asked.' }],
  };
});

/** Dictionary skills. */
export const DICT_SKILLS: readonly Template[] = [
  countOrGroup,
  countOrGroup,
  countEach,
  lastPositions,
  choose,
  filters,
  builds,
  two,
];
