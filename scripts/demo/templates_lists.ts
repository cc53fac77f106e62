// Templates for the builtin lists family, train split.
import { functionPrompt, int, program, pyRepr, sample, type Template } from './template.ts';

type R = Parameters<Template['make']>[0];
const numbers = (rng: R, lo: number, hi: number, min = 1, max = 20): number[] =>
  Array.from({ length: int(rng, lo, hi) }, () => int(rng, min, max));
const WORDS = [
  'a',
  'bb',
  'ccc',
  'd',
  'ee',
  'cat',
  'dog',
  'sun',
  'tree',
  'moon',
  'hi',
  'yes',
  'no',
  'apple',
  'kiwi',
  'fig',
  'plum',
  'pear',
];

/** Builtin lists family, train split. */
export const LIST_TEMPLATES: Template[] = [
  {
    taskId: 'builtin/running_sum',
    make(rng) {
      const call = `running_sum(${pyRepr(numbers(rng, 3, 6, 1, 9))})`;
      return {
        functionName: 'running_sum',
        prompt: functionPrompt(
          rng,
          'running_sum(nums)',
          'returns a new list whose i-th element is the sum of nums[0] through nums[i].',
          call,
        ),
        solution: program(
          'def running_sum(nums):\n    result = []\n    total = 0\n    for x in nums:\n        total += x\n        result.append(total)\n    return result',
          call,
        ),
        mistakes: [
          {
            code: program(
              'def running_sum(nums):\n    result = []\n    total = 0\n    for x in nums:\n        result.append(total)\n        total += x\n    return result',
              call,
            ),
            note: 'Each sum must include the current element; add before appending.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/second_largest',
    make(rng) {
      const nums = numbers(rng, 3, 5, 1, 12);
      const top = Math.max(...nums);
      if (nums.every((x) => x === top)) nums.push(top - 1);
      if (rng.uniform() < 0.6) nums.splice(int(rng, 0, nums.length), 0, top);
      const call = `second_largest(${pyRepr(nums)})`;
      return {
        functionName: 'second_largest',
        prompt: functionPrompt(
          rng,
          'second_largest(nums)',
          'returns the second largest distinct value in nums (it has at least two distinct values).',
          call,
        ),
        solution: program('def second_largest(nums):\n    return sorted(set(nums))[-2]', call),
        mistakes: [
          {
            code: program('def second_largest(nums):\n    return sorted(nums)[-2]', call),
            note: 'Repeated values count once; sort the distinct values.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/dedupe',
    make(rng) {
      const call = `dedupe(${pyRepr(numbers(rng, 4, 7, 1, 6))})`;
      return {
        functionName: 'dedupe',
        prompt: functionPrompt(
          rng,
          'dedupe(items)',
          'returns items without duplicates, keeping the first occurrence of each in its original order.',
          call,
        ),
        solution: program(
          'def dedupe(items):\n    seen = []\n    for x in items:\n        if x not in seen:\n            seen.append(x)\n    return seen',
          call,
        ),
        mistakes: [
          {
            code: program('def dedupe(items):\n    return list(set(items))', call),
            note: 'A set loses the original order; keep the items in a list.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/chunk',
    make(rng) {
      const items = Array.from({ length: int(rng, 4, 9) }, (_, i) => i + 1);
      let size = int(rng, 2, 4);
      if (items.length % size === 0) size = size === 2 ? 3 : size - 1;
      const call = `chunk(${pyRepr(items)}, ${size})`;
      return {
        functionName: 'chunk',
        prompt: functionPrompt(
          rng,
          'chunk(items, size)',
          'splits items into consecutive lists of length size, the last of which may be shorter.',
          call,
        ),
        solution: program(
          'def chunk(items, size):\n    return [items[i:i + size] for i in range(0, len(items), size)]',
          call,
        ),
        mistakes: [
          {
            code: program(
              'def chunk(items, size):\n    return [items[i:i + size] for i in range(0, len(items) - size, size)]',
              call,
            ),
            note: 'The last, shorter chunk was dropped; go up to len(items).',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/evens_between',
    make(rng) {
      const a = int(rng, 0, 20);
      const b = a + int(rng, 3, 12);
      const call = `evens_between(${a}, ${b})`;
      return {
        functionName: 'evens_between',
        prompt: functionPrompt(
          rng,
          'evens_between(a, b)',
          'returns the even numbers from a to b, both included, in increasing order.',
          call,
        ),
        solution: program(
          'def evens_between(a, b):\n    return [x for x in range(a, b + 1) if x % 2 == 0]',
          call,
        ),
        mistakes: [
          {
            code: program(
              'def evens_between(a, b):\n    return [x for x in range(a, b) if x % 2 == 0]',
              call,
            ),
            note: 'range(a, b) leaves out b; use b + 1.',
          },
          {
            code: program(
              'def evens_between(a, b):\n    return [x for x in range(a, b + 1) if x % 2 == 1]',
              call,
            ),
            note: 'Those are the odd numbers; keep x % 2 == 0.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/merge_sorted',
    make(rng) {
      const a = numbers(rng, 2, 4, 0, 15).sort((x, y) => x - y);
      const b = numbers(rng, 2, 4, 0, 15).sort((x, y) => x - y);
      const call = `merge_sorted(${pyRepr(a)}, ${pyRepr(b)})`;
      return {
        functionName: 'merge_sorted',
        prompt: functionPrompt(
          rng,
          'merge_sorted(a, b)',
          'merges two lists sorted in ascending order into one sorted list.',
          call,
        ),
        solution: program('def merge_sorted(a, b):\n    return sorted(a + b)', call),
        mistakes: [
          {
            code: program('def merge_sorted(a, b):\n    return a + b', call),
            note: 'Joining the lists is not enough; the result must be sorted.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/sort_by_length',
    make(rng) {
      const call = `sort_by_length(${pyRepr(sample(rng, WORDS, int(rng, 3, 6)))})`;
      return {
        functionName: 'sort_by_length',
        prompt: functionPrompt(
          rng,
          'sort_by_length(words)',
          'returns the words sorted by length, shortest first; words of equal length keep their original order.',
          call,
        ),
        solution: program('def sort_by_length(words):\n    return sorted(words, key=len)', call),
        mistakes: [
          {
            code: program('def sort_by_length(words):\n    return sorted(words)', call),
            note: 'That sorted alphabetically; sort with key=len.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/add_item',
    make(rng) {
      const x = int(rng, 1, 9);
      const y = int(rng, 1, 9);
      const good =
        'def add_item(item, items=None):\n    if items is None:\n        items = []\n    items.append(item)\n    return items';
      const bad = 'def add_item(item, items=[]):\n    items.append(item)\n    return items';
      const run = (definition: string) =>
        `${definition}\n\nprint(add_item(${x}))\nprint(add_item(${y}))\n`;
      return {
        functionName: null,
        prompt: functionPrompt(
          rng,
          'add_item(item, items=None)',
          'appends item to the list items and returns that list; when items is not given, each call starts from a new empty list.',
          `add_item(${x}), and then print add_item(${y})`,
        ),
        solution: run(good),
        mistakes: [
          {
            code: run(bad),
            note: 'The default list is shared between calls; default to None and make a new list.',
          },
        ],
      };
    },
  },
];
