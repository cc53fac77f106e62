// Templates for the builtin dicts family, train split.
import { functionPrompt, int, pick, program, pyRepr, sample, type Template } from './template.ts';

type R = Parameters<Template['make']>[0];
const KEYS = ['a', 'b', 'c', 'd', 'x', 'y', 'z'];
const NAMES = ['amy', 'bob', 'cat', 'dan', 'eve', 'max', 'sam'];
const FRUITS = [
  'apple',
  'avocado',
  'banana',
  'blueberry',
  'cherry',
  'coconut',
  'date',
  'apricot',
  'grape',
  'guava',
];
const TEXT = ['the', 'cat', 'and', 'hat', 'a', 'dog', 'sat', 'on', 'mat'];

/** A dict literal's entries with distinct keys and values in [lo, hi]. */
function entries(
  rng: R,
  keys: readonly string[],
  n: number,
  lo: number,
  hi: number,
): Map<string, number> {
  return new Map(sample(rng, keys, n).map((k) => [k, int(rng, lo, hi)]));
}

/** Builtin dicts family, train split. */
export const DICT_TEMPLATES: Template[] = [
  {
    taskId: 'builtin/word_count',
    make(rng) {
      const words = Array.from({ length: int(rng, 4, 7) }, () => pick(rng, TEXT));
      const call = `word_count(${pyRepr(words.join(' '))})`;
      return {
        functionName: 'word_count',
        prompt: functionPrompt(
          rng,
          'word_count(s)',
          'returns a dictionary mapping each word of s (split on whitespace) to the number of times it occurs, in order of first occurrence.',
          call,
        ),
        solution: program(
          'def word_count(s):\n    counts = {}\n    for w in s.split():\n        counts[w] = counts.get(w, 0) + 1\n    return counts',
          call,
        ),
        mistakes: [
          {
            code: program(
              'def word_count(s):\n    counts = {}\n    for w in s.split():\n        counts[w] += 1\n    return counts',
              call,
            ),
            note: 'A new word has no entry yet; use counts.get(w, 0).',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/invert',
    make(rng) {
      const d = new Map(
        sample(rng, KEYS, int(rng, 2, 4)).map((k, i) => [k, i + int(rng, 1, 3) * 10]),
      );
      const call = `invert(${pyRepr(d)})`;
      return {
        functionName: 'invert',
        prompt: functionPrompt(
          rng,
          'invert(d)',
          'returns a new dictionary with the keys and values of d swapped (the values of d are all different).',
          call,
        ),
        solution: program('def invert(d):\n    return {v: k for k, v in d.items()}', call),
        mistakes: [
          {
            code: program('def invert(d):\n    return {v: k for k, v in d}', call),
            note: 'Iterating a dict gives only keys; use d.items().',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/merge_counts',
    make(rng) {
      const a = entries(rng, KEYS.slice(0, 4), int(rng, 1, 3), 1, 9);
      const b = entries(rng, KEYS.slice(0, 4), int(rng, 1, 3), 1, 9);
      if (![...a.keys()].some((k) => b.has(k))) b.set([...a.keys()][0]!, int(rng, 1, 9));
      const call = `merge_counts(${pyRepr(a)}, ${pyRepr(b)})`;
      return {
        functionName: 'merge_counts',
        prompt: functionPrompt(
          rng,
          'merge_counts(a, b)',
          'returns a new dictionary with every key of a and b, where keys present in both get the sum of their values.',
          call,
        ),
        solution: program(
          'def merge_counts(a, b):\n    result = dict(a)\n    for k, v in b.items():\n        result[k] = result.get(k, 0) + v\n    return result',
          call,
        ),
        mistakes: [
          {
            code: program('def merge_counts(a, b):\n    return {**a, **b}', call),
            note: 'That overwrote the shared keys; add their values.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/key_of_max',
    make(rng) {
      const d = entries(rng, KEYS, int(rng, 2, 4), 1, 9);
      const call = `key_of_max(${pyRepr(d)})`;
      return {
        functionName: 'key_of_max',
        prompt: functionPrompt(
          rng,
          'key_of_max(d)',
          'returns the key with the largest value in the non-empty dictionary d; if several keys share that value, return the one that comes first.',
          call,
        ),
        solution: program('def key_of_max(d):\n    return max(d, key=d.get)', call),
        mistakes: [
          {
            code: program('def key_of_max(d):\n    return max(d.values())', call),
            note: 'That is the largest value; return its key with max(d, key=d.get).',
          },
          {
            code: program('def key_of_max(d):\n    return max(d)', call),
            note: 'max(d) compares the keys; compare by value with key=d.get.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/at_least',
    make(rng) {
      const d = entries(rng, KEYS, int(rng, 2, 4), 1, 9);
      const t = pick(rng, [...d.values()]);
      const call = `at_least(${pyRepr(d)}, ${t})`;
      return {
        functionName: 'at_least',
        prompt: functionPrompt(
          rng,
          'at_least(d, threshold)',
          'returns a new dictionary with only the entries of d whose value is greater than or equal to threshold.',
          call,
        ),
        solution: program(
          'def at_least(d, threshold):\n    return {k: v for k, v in d.items() if v >= threshold}',
          call,
        ),
        mistakes: [
          {
            code: program(
              'def at_least(d, threshold):\n    return {k: v for k, v in d.items() if v > threshold}',
              call,
            ),
            note: 'Values equal to the threshold must stay; use >=.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/ranking',
    make(rng) {
      const scores = entries(rng, NAMES, int(rng, 3, 4), 1, 5);
      const call = `ranking(${pyRepr(scores)})`;
      return {
        functionName: 'ranking',
        prompt: functionPrompt(
          rng,
          'ranking(scores)',
          'returns the names in the dictionary scores sorted by score from highest to lowest, with equal scores in alphabetical order.',
          call,
        ),
        solution: program(
          'def ranking(scores):\n    return sorted(scores, key=lambda name: (-scores[name], name))',
          call,
        ),
        mistakes: [
          {
            code: program(
              'def ranking(scores):\n    return sorted(scores, key=lambda name: (scores[name], name), reverse=True)',
              call,
            ),
            note: 'reverse=True also reversed the alphabetical ties; negate the score instead.',
          },
          {
            code: program('def ranking(scores):\n    return sorted(scores)', call),
            note: 'That sorted by name only; sort by score first.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/count_by_first_letter',
    make(rng) {
      const call = `count_by_first_letter(${pyRepr(sample(rng, FRUITS, int(rng, 3, 6)))})`;
      return {
        functionName: 'count_by_first_letter',
        prompt: functionPrompt(
          rng,
          'count_by_first_letter(words)',
          'returns a dictionary mapping each first letter to how many words start with it, in order of first appearance.',
          call,
        ),
        solution: program(
          'def count_by_first_letter(words):\n    counts = {}\n    for w in words:\n        counts[w[0]] = counts.get(w[0], 0) + 1\n    return counts',
          call,
        ),
        mistakes: [
          {
            code: program(
              'def count_by_first_letter(words):\n    counts = {}\n    for w in words:\n        counts[w[0]] += 1\n    return counts',
              call,
            ),
            note: 'The first time a letter is seen it has no entry; use counts.get.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/common_keys',
    make(rng) {
      const a = entries(rng, KEYS, int(rng, 2, 4), 0, 5);
      const b = entries(rng, KEYS, int(rng, 2, 4), 0, 5);
      if (![...a.keys()].some((k) => b.has(k))) b.set([...a.keys()][0]!, 0);
      const call = `common_keys(${pyRepr(a)}, ${pyRepr(b)})`;
      return {
        functionName: 'common_keys',
        prompt: functionPrompt(
          rng,
          'common_keys(a, b)',
          'returns a sorted list of the keys present in both dictionaries a and b.',
          call,
        ),
        solution: program('def common_keys(a, b):\n    return sorted(set(a) & set(b))', call),
        mistakes: [
          {
            code: program('def common_keys(a, b):\n    return sorted(a & b)', call),
            note: 'Dictionaries do not support &; intersect their key sets.',
          },
        ],
      };
    },
  },
];
