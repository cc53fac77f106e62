// Templates for the builtin strings family, train split.
import { functionPrompt, int, pick, program, pyRepr, sample, type Template } from './template.ts';

const WORDS = [
  'the',
  'quick',
  'brown',
  'fox',
  'jumps',
  'over',
  'lazy',
  'dog',
  'hello',
  'world',
  'python',
  'code',
  'runs',
  'fast',
  'data',
  'model',
  'learns',
  'from',
  'small',
  'tasks',
  'red',
  'apple',
  'green',
  'tree',
  'blue',
  'sky',
  'programming',
  'in',
  'is',
  'fun',
  'I',
  'love',
  'we',
  'write',
  'tests',
];

/** A few words joined by spaces. */
function phrase(rng: Parameters<Template['make']>[0], lo = 3, hi = 5): string {
  return sample(rng, WORDS, int(rng, lo, hi)).join(' ');
}

/** Words with random capitalisation, as in "hello wORLD from python". */
function mixedCase(rng: Parameters<Template['make']>[0], text: string): string {
  return Array.from(text, (c) => (rng.uniform() < 0.3 ? c.toUpperCase() : c)).join('');
}

/** Builtin strings family, train split. */
export const STRING_TEMPLATES: Template[] = [
  {
    taskId: 'builtin/count_vowels',
    make(rng) {
      const s = mixedCase(rng, phrase(rng, 2, 3));
      const call = `count_vowels(${pyRepr(s)})`;
      return {
        functionName: 'count_vowels',
        prompt: functionPrompt(
          rng,
          'count_vowels(s)',
          'returns how many vowels (a, e, i, o, u, in upper or lower case) the string s contains.',
          call,
        ),
        solution: program(
          "def count_vowels(s):\n    return sum(1 for c in s.lower() if c in 'aeiou')",
          call,
        ),
        mistakes: [
          {
            code: program(
              "def count_vowels(s):\n    return sum(1 for c in s if c in 'aeiou')",
              call,
            ),
            note: 'Upper-case vowels were missed; compare in lower case.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/reverse_words',
    make(rng) {
      const s = phrase(rng);
      const call = `reverse_words(${pyRepr(s)})`;
      return {
        functionName: 'reverse_words',
        prompt: functionPrompt(
          rng,
          'reverse_words(s)',
          'returns the words of s (separated by whitespace) in reverse order, joined by single spaces.',
          call,
        ),
        solution: program("def reverse_words(s):\n    return ' '.join(s.split()[::-1])", call),
        mistakes: [
          {
            code: program('def reverse_words(s):\n    return s[::-1]', call),
            note: 'That reversed the characters; reverse the list of words.',
          },
          {
            code: program('def reverse_words(s):\n    return s.split()[::-1]', call),
            note: 'That is a list; join the words with spaces.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/capitalize_words',
    make(rng) {
      const s = mixedCase(rng, phrase(rng));
      const call = `capitalize_words(${pyRepr(s)})`;
      return {
        functionName: 'capitalize_words',
        prompt: functionPrompt(
          rng,
          'capitalize_words(s)',
          'returns the words of s with the first letter in upper case and the rest in lower case, joined by single spaces.',
          call,
        ),
        solution: program(
          "def capitalize_words(s):\n    return ' '.join(w.capitalize() for w in s.split())",
          call,
        ),
        mistakes: [
          {
            code: program(
              "def capitalize_words(s):\n    return ' '.join(w[0].upper() + w[1:] for w in s.split())",
              call,
            ),
            note: 'The rest of each word must be lower case too; use capitalize().',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/most_common_char',
    make(rng) {
      const s = pick(rng, [
        'abracadabra',
        'mississippi',
        'hello',
        'banana',
        'success',
        'letter',
        'bookkeeper',
        'aabbbc',
        'xyzzy',
        'committee',
        'parallel',
        'google',
      ]);
      const call = `most_common_char(${pyRepr(s)})`;
      return {
        functionName: 'most_common_char',
        prompt: functionPrompt(
          rng,
          'most_common_char(s)',
          'returns the character occurring most often in s; if several tie, return the one that appears first in s.',
          call,
        ),
        solution: program('def most_common_char(s):\n    return max(s, key=s.count)', call),
        mistakes: [
          {
            code: program(
              'def most_common_char(s):\n    return Counter(s).most_common(1)[0][0]',
              call,
            ),
            note: 'Counter was not imported; count with s.count instead.',
          },
          {
            code: program('def most_common_char(s):\n    return max(s)', call),
            note: 'max(s) is the largest letter, not the most frequent; use key=s.count.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/count_words',
    make(rng) {
      const words = phrase(rng, 2, 5).split(' ');
      const s =
        words.map((w) => ' '.repeat(int(rng, 0, 2)) + w).join(' ') + ' '.repeat(int(rng, 0, 2));
      const call = `count_words(${pyRepr(s)})`;
      return {
        functionName: 'count_words',
        prompt: functionPrompt(
          rng,
          'count_words(s)',
          'returns the number of words in s, where words are separated by any amount of whitespace.',
          call,
        ),
        solution: program('def count_words(s):\n    return len(s.split())', call),
        mistakes: [
          {
            code: program("def count_words(s):\n    return len(s.split(' '))", call),
            note: "split(' ') keeps empty strings; split() with no argument drops them.",
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/caesar',
    make(rng) {
      const s = pick(rng, [
        'Hello, World!',
        'xyz',
        'Zebra',
        'attack at dawn',
        'Python 3',
        'Yes, sir!',
        'abc xyz',
      ]);
      const k = int(rng, 1, 13);
      const call = `caesar(${pyRepr(s)}, ${k})`;
      const good =
        "def caesar(s, k):\n    out = ''\n    for c in s:\n        if c.isalpha():\n            base = ord('a') if c.islower() else ord('A')\n            c = chr((ord(c) - base + k) % 26 + base)\n        out += c\n    return out";
      return {
        functionName: 'caesar',
        prompt: functionPrompt(
          rng,
          'caesar(s, k)',
          'shifts every letter of s by k places in the alphabet, wrapping around from z to a and keeping its case; other characters stay as they are.',
          call,
        ),
        solution: program(good, call),
        mistakes: [
          {
            code: program(
              "def caesar(s, k):\n    return ''.join(chr(ord(c) + k) if c.isalpha() else c for c in s)",
              call,
            ),
            note: 'Letters past z must wrap around; use % 26.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/longest_word',
    make(rng) {
      const s = phrase(rng, 3, 6);
      const call = `longest_word(${pyRepr(s)})`;
      return {
        functionName: 'longest_word',
        prompt: functionPrompt(
          rng,
          'longest_word(s)',
          'returns the longest word in s (words are separated by spaces); if several are equally long, return the first.',
          call,
        ),
        solution: program('def longest_word(s):\n    return max(s.split(), key=len)', call),
        mistakes: [
          {
            code: program('def longest_word(s):\n    return max(s.split())', call),
            note: 'max() compared the words alphabetically; use key=len.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/run_length',
    make(rng) {
      const s = Array.from({ length: int(rng, 2, 5) }, () =>
        pick(rng, ['a', 'b', 'c', 'd', 'x']).repeat(int(rng, 1, 4)),
      ).join('');
      const call = `run_length(${pyRepr(s)})`;
      const body = (advance: string) =>
        `def run_length(s):\n    out = ''\n    i = 0\n    while i < len(s):\n        j = i\n        while j < len(s) and s[j] == s[i]:\n            j += 1\n        out += s[i] + str(j - i)\n        ${advance}\n    return out`;
      return {
        functionName: 'run_length',
        prompt: functionPrompt(
          rng,
          'run_length(s)',
          'encodes each run of a repeated character as the character followed by the length of the run.',
          call,
        ),
        solution: program(body('i = j'), call),
        mistakes: [
          {
            code: program(body('i += 1'), call),
            note: 'i must jump to the end of the run, not one step; set i = j.',
          },
        ],
      };
    },
  },
];
