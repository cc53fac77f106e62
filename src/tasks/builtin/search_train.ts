// The search family's train split (src/tasks/builtin/search.ts explains the family): one task per
// function. Order is free (the split is by file, not by position), but ids must stay stable.
import { py } from '../task.ts';

/** A search task as written here; `searchTask` derives the Task. */
export interface SearchTaskSpec {
  name: string;
  /** The intended function's dotted name, e.g. `math.comb` (builtins bare: `divmod`). */
  kind: string;
  prompt: string;
  expectedOutput: string;
  /** Hidden asserts, for the tasks that ask for a function; none for print-only tasks. */
  tests: string[] | null;
  solution: string;
  /** What someone who does not know the name would search for. */
  query: string;
}

/** Train split: one task per function, 24 functions over math, statistics, itertools, ... */
export const SEARCH_TRAIN_SPECS: readonly SearchTaskSpec[] = [
  {
    name: 'choose',
    kind: 'math.comb',
    prompt:
      'Using the standard library, print the number of ways to choose 3 items from 10 when order does not matter.',
    expectedOutput: '120',
    tests: null,
    solution: py`
      import math
      print(math.comb(10, 3))`,
    query: 'number of ways to choose k items from n without order',
  },
  {
    name: 'gcd',
    kind: 'math.gcd',
    prompt: 'Print the greatest common divisor of 84 and 36 using a standard library function.',
    expectedOutput: '12',
    tests: null,
    solution: py`
      import math
      print(math.gcd(84, 36))`,
    query: 'greatest common divisor of integers',
  },
  {
    name: 'arrangements',
    kind: 'math.perm',
    prompt:
      'Using the standard library, print the number of ways to arrange 3 of 7 different books in a row, where order matters.',
    expectedOutput: '210',
    tests: null,
    solution: py`
      import math
      print(math.perm(7, 3))`,
    query: 'number of ways to arrange k of n items where order matters',
  },
  {
    name: 'lcm_of',
    kind: 'math.lcm',
    prompt:
      'Using a standard library function, define `lcm_of(nums)` that returns the least common multiple of a non-empty list of positive integers. Then print lcm_of([4, 6, 10]).',
    expectedOutput: '60',
    tests: [
      'assert lcm_of([4, 6, 10]) == 60',
      'assert lcm_of([7]) == 7',
      'assert lcm_of([3, 5, 7]) == 105',
      'assert lcm_of([12, 18]) == 36',
    ],
    solution: py`
      import math
      def lcm_of(nums):
          return math.lcm(*nums)
      print(lcm_of([4, 6, 10]))`,
    query: 'least common multiple of integers',
  },
  {
    name: 'int_root',
    kind: 'math.isqrt',
    prompt:
      'Using the standard library, define `int_root(n)` that returns the largest whole number whose square is at most n, exact even for very large n. Then print int_root(1000).',
    expectedOutput: '31',
    // The last assert is where int(math.sqrt(n)) goes wrong: the float rounds up.
    tests: [
      'assert int_root(0) == 0',
      'assert int_root(99) == 9',
      'assert int_root(100) == 10',
      'assert int_root((10**17 + 3) ** 2 - 1) == 10**17 + 2',
    ],
    solution: py`
      import math
      def int_root(n):
          return math.isqrt(n)
      print(int_root(1000))`,
    query: 'integer square root rounded down',
  },
  {
    name: 'factorial',
    kind: 'math.factorial',
    prompt:
      'Using a standard library function made for it, print the product 12 × 11 × 10 × ... × 2 × 1.',
    expectedOutput: '479001600',
    tests: null,
    solution: py`
      import math
      print(math.factorial(12))`,
    query: 'factorial of a number',
  },
  {
    name: 'product',
    kind: 'math.prod',
    prompt:
      'Using a standard library function, print the product of all the numbers in [2, 3, 7] without writing a loop.',
    expectedOutput: '42',
    tests: null,
    solution: py`
      import math
      print(math.prod([2, 3, 7]))`,
    query: 'multiply all numbers in a list together product',
  },
  {
    name: 'median',
    kind: 'statistics.median',
    prompt:
      'Using the standard library, print the middle value of [7, 1, 5, 3, 9, 2] once sorted (the mean of the two middle values, as the count is even).',
    expectedOutput: '4.0',
    tests: null,
    solution: py`
      import statistics
      print(statistics.median([7, 1, 5, 3, 9, 2]))`,
    query: 'middle value median of data',
  },
  {
    name: 'most_frequent_value',
    kind: 'statistics.mode',
    prompt:
      'Using the standard library, print the single most common value in the data [3, 1, 3, 2, 3, 1].',
    expectedOutput: '3',
    tests: null,
    solution: py`
      import statistics
      print(statistics.mode([3, 1, 3, 2, 3, 1]))`,
    query: 'most common value in data',
  },
  {
    name: 'population_spread',
    kind: 'statistics.pstdev',
    prompt:
      'Using the standard library, print the population standard deviation of [2, 4, 4, 4, 5, 5, 7, 9].',
    expectedOutput: '2.0',
    tests: null,
    solution: py`
      import statistics
      print(statistics.pstdev([2, 4, 4, 4, 5, 5, 7, 9]))`,
    query: 'population standard deviation',
  },
  {
    name: 'average',
    kind: 'statistics.mean',
    prompt: 'Using the standard library, print the average of [1, 2, 3, 4, 10].',
    expectedOutput: '4',
    tests: null,
    solution: py`
      import statistics
      print(statistics.mean([1, 2, 3, 4, 10]))`,
    query: 'arithmetic mean average of data',
  },
  {
    name: 'letter_orderings',
    kind: 'itertools.permutations',
    prompt:
      "Using the standard library, generate every 2-letter arrangement of the letters of 'abcd' (order matters, no letter twice) and print how many there are.",
    expectedOutput: '12',
    tests: null,
    solution: py`
      import itertools
      print(len(list(itertools.permutations('abcd', 2))))`,
    query: 'all orderings arrangements of items of length r',
  },
  {
    name: 'running_totals',
    kind: 'itertools.accumulate',
    prompt:
      'Using the standard library, print the running totals of [3, 1, 4, 1, 5] as a list, without writing a loop.',
    expectedOutput: '[3, 4, 8, 9, 14]',
    tests: null,
    solution: py`
      import itertools
      print(list(itertools.accumulate([3, 1, 4, 1, 5])))`,
    query: 'running totals cumulative sums',
  },
  {
    name: 'neighbours',
    kind: 'itertools.pairwise',
    prompt:
      'Using the standard library, print the list of overlapping pairs of consecutive items in [1, 2, 3, 4], as tuples.',
    expectedOutput: '[(1, 2), (2, 3), (3, 4)]',
    tests: null,
    solution: py`
      import itertools
      print(list(itertools.pairwise([1, 2, 3, 4])))`,
    query: 'overlapping pairs of adjacent items',
  },
  {
    name: 'pick_two',
    kind: 'itertools.combinations',
    prompt:
      "Using the standard library, print every way to pick 2 letters from 'abc' when order does not matter, as a list of tuples.",
    expectedOutput: "[('a', 'b'), ('a', 'c'), ('b', 'c')]",
    tests: null,
    solution: py`
      import itertools
      print(list(itertools.combinations('abc', 2)))`,
    query: 'all subsets of r items without order combinations',
  },
  {
    name: 'strings_of_length',
    kind: 'itertools.product',
    prompt:
      "Using the standard library, generate every 3-character string over the letters 'xy' (letters may repeat) and print how many there are.",
    expectedOutput: '8',
    tests: null,
    solution: py`
      import itertools
      print(len(list(itertools.product('xy', repeat=3))))`,
    query: 'cartesian product of iterables repeat',
  },
  {
    name: 'join_lists',
    kind: 'itertools.chain',
    prompt:
      'Using the standard library, join the lists [1, 2], [3] and [4, 5] end to end into one list without writing a loop, and print it.',
    expectedOutput: '[1, 2, 3, 4, 5]',
    tests: null,
    solution: py`
      import itertools
      print(list(itertools.chain([1, 2], [3], [4, 5])))`,
    query: 'join several iterables one after another into one',
  },
  {
    name: 'top_letter',
    kind: 'collections.Counter',
    prompt:
      "Using the standard library, print the letter that occurs most often in 'abracadabra' and how many times, as a tuple.",
    expectedOutput: "('a', 5)",
    tests: null,
    solution: py`
      import collections
      print(collections.Counter('abracadabra').most_common(1)[0])`,
    query: 'most common elements and their counts',
  },
  {
    name: 'rotate_right',
    kind: 'collections.deque',
    prompt:
      'Using a standard library container, shift [1, 2, 3, 4, 5] two places to the right, wrapping around (the last two items move to the front), and print the result as a list.',
    expectedOutput: '[4, 5, 1, 2, 3]',
    tests: null,
    solution: py`
      import collections
      items = collections.deque([1, 2, 3, 4, 5])
      items.rotate(2)
      print(list(items))`,
    query: 'rotate items to the right',
  },
  {
    name: 'alphabet',
    kind: 'string.ascii_lowercase',
    prompt:
      'Using the standard library, print the 26 lowercase English letters as one string, without typing them out.',
    expectedOutput: 'abcdefghijklmnopqrstuvwxyz',
    tests: null,
    solution: py`
      import string
      print(string.ascii_lowercase)`,
    query: 'lowercase letters of the alphabet as a string',
  },
  {
    name: 'digit_runs',
    kind: 're.findall',
    prompt:
      "Using the standard library's regular expressions, print the list of all runs of digits in 'a1b22c333'.",
    expectedOutput: "['1', '22', '333']",
    tests: null,
    solution: py`
      import re
      print(re.findall('[0-9]+', 'a1b22c333'))`,
    query: 'find all matches of a regular expression pattern in a string',
  },
  {
    name: 'zero_pad',
    kind: 'str.zfill',
    prompt:
      "Using a built-in string method, print the number 42 padded on the left with zeros to 5 characters (the string '42' made 5 long).",
    expectedOutput: '00042',
    tests: null,
    solution: py`
      print('42'.zfill(5))`,
    query: 'pad a string with zeros on the left',
  },
  {
    name: 'quotient_remainder',
    kind: 'divmod',
    prompt:
      'Using one built-in function, print the quotient and the remainder of 17 divided by 5 together, as a tuple.',
    expectedOutput: '(3, 2)',
    tests: null,
    solution: py`
      print(divmod(17, 5))`,
    query: 'quotient and remainder at once',
  },
  {
    name: 'from_hex',
    kind: 'int',
    prompt:
      "Using a built-in function, convert the hexadecimal text 'ff' to a number and print it in decimal.",
    expectedOutput: '255',
    tests: null,
    solution: py`
      print(int('ff', 16))`,
    query: 'convert a string in base 16 to an integer',
  },
];
