// Templates for the seed tasks and the builtin numbers train split (sum_to, factorial, ...).
import { functionPrompt, int, pick, program, pyRepr, sample, type Template } from './template.ts';

const WORDS = [
  'racecar',
  'level',
  'python',
  'radar',
  'banana',
  'noon',
  'kayak',
  'rotor',
  'hello',
  'civic',
  'madam',
  'stats',
  'apple',
  'refer',
  'tenet',
  'robot',
  'deified',
  'window',
];

/** The reference design's three tasks, with other numbers and words. */
export const SEED_TEMPLATES: Template[] = [
  {
    taskId: 'seed/fibonacci',
    make(rng) {
      const n = int(rng, 5, 25);
      const prompt = pick(rng, [
        `Write Python code to compute F(${n}), with F(0)=0 and F(1)=1. Print only the result.`,
        `Write Python code to compute the Fibonacci number F(${n}), with F(0)=0 and F(1)=1. Print only the result.`,
      ]);
      return {
        prompt,
        functionName: null,
        solution: `a, b = 0, 1\nfor _ in range(${n}):\n    a, b = b, a + b\nprint(a)\n`,
        mistakes: [
          {
            code: `a, b = 0, 1\nfor _ in range(${n - 1}):\n    a, b = b, a + b\nprint(a)\n`,
            note: `That is F(${n - 1}); the loop must run ${n} times.`,
          },
          {
            code: `a, b = 0, 1\nfor _ in range(${n}):\n    a, b = b, a + b\nprint(b)\n`,
            note: `That printed F(${n + 1}); print a instead.`,
          },
        ],
      };
    },
  },
  {
    taskId: 'seed/palindrome',
    make(rng) {
      const word = pick(rng, WORDS);
      return {
        prompt: `Write Python code to test whether '${word}' is a palindrome. Print only True or False.`,
        functionName: null,
        solution: `s = '${word}'\nprint(s == s[::-1])\n`,
        mistakes: [
          {
            code: `s = '${word}'\nprint(s[::-1])\n`,
            note: 'That printed the reversed word, not True or False.',
          },
          {
            code: `s = '${word}'\nprint(s == reversed(s))\n`,
            note: 'reversed() gives an iterator, not a string; compare with s[::-1].',
          },
        ],
      };
    },
  },
  {
    taskId: 'seed/sort',
    make(rng) {
      const nums = sample(
        rng,
        [...Array(30).keys()].map((i) => i + 1),
        int(rng, 4, 7),
      );
      const list = pyRepr(nums);
      return {
        prompt: `Write Python code to sort ${list} in ascending order. Print only the sorted list.`,
        functionName: null,
        solution: `print(sorted(${list}))\n`,
        mistakes: [
          {
            code: `nums = ${list}\nprint(nums.sort())\n`,
            note: 'list.sort() returns None; print the sorted list instead.',
          },
          {
            code: `print(sorted(${list}, reverse=True))\n`,
            note: 'That is descending; ascending is the default order.',
          },
        ],
      };
    },
  },
];

/** Builtin numbers family, train split. */
export const NUMBER_TEMPLATES: Template[] = [
  {
    taskId: 'builtin/sum_to',
    make(rng) {
      const n = int(rng, 5, 200);
      const call = `sum_to(${n})`;
      return {
        functionName: 'sum_to',
        prompt: functionPrompt(rng, 'sum_to(n)', 'returns 1 + 2 + ... + n, including n.', call),
        solution: program(
          pick(rng, [
            'def sum_to(n):\n    return sum(range(1, n + 1))',
            'def sum_to(n):\n    total = 0\n    for i in range(1, n + 1):\n        total += i\n    return total',
          ]),
          call,
        ),
        mistakes: [
          {
            code: program('def sum_to(n):\n    return sum(range(1, n))', call),
            note: 'range(1, n) stops before n; it must include n.',
          },
          {
            code: program('def sum_to(n):\n    return n * (n + 1) / 2', call),
            note: 'The / gives a float; use integer division.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/factorial',
    make(rng) {
      const n = int(rng, 3, 15);
      const call = `factorial(${n})`;
      return {
        functionName: 'factorial',
        prompt: functionPrompt(rng, 'factorial(n)', 'returns n! (with factorial(0) = 1).', call),
        solution: program(
          'def factorial(n):\n    result = 1\n    for i in range(2, n + 1):\n        result *= i\n    return result',
          call,
        ),
        mistakes: [
          {
            code: program(
              'def factorial(n):\n    result = 1\n    for i in range(1, n):\n        result *= i\n    return result',
              call,
            ),
            note: 'The loop stops one short; it must include n.',
          },
          {
            code: program(
              'def factorial(n):\n    result = 0\n    for i in range(1, n + 1):\n        result *= i\n    return result',
              call,
            ),
            note: 'Starting the product at 0 gives 0; start at 1.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/digit_sum',
    make(rng) {
      const n = int(rng, 10, 999999);
      const call = `digit_sum(${n})`;
      return {
        functionName: 'digit_sum',
        prompt: functionPrompt(
          rng,
          'digit_sum(n)',
          'returns the sum of the decimal digits of a non-negative integer n.',
          call,
        ),
        solution: program('def digit_sum(n):\n    return sum(int(d) for d in str(n))', call),
        mistakes: [
          {
            code: program('def digit_sum(n):\n    return sum(str(n))', call),
            note: 'The digits are characters; convert each to int.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/average',
    make(rng) {
      const nums = Array.from({ length: int(rng, 2, 6) }, () => int(rng, 1, 20));
      const call = `average(${pyRepr(nums)})`;
      return {
        functionName: 'average',
        prompt: functionPrompt(
          rng,
          'average(nums)',
          'returns the arithmetic mean of a non-empty list of numbers.',
          call,
        ),
        solution: program('def average(nums):\n    return sum(nums) / len(nums)', call),
        mistakes: [
          {
            code: program('def average(nums):\n    return sum(nums) // len(nums)', call),
            note: '// drops the fraction; use / for the mean.',
          },
          {
            code: program('def average(nums):\n    return sum(nums) / len(num)', call),
            note: 'Fix the NameError: the parameter is nums.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/gcd',
    make(rng) {
      const g = int(rng, 2, 15);
      const a = g * int(rng, 2, 12);
      const b = g * int(rng, 2, 12);
      const call = `gcd(${a}, ${b})`;
      return {
        functionName: 'gcd',
        prompt: functionPrompt(
          rng,
          'gcd(a, b)',
          'returns the greatest common divisor of two positive integers.',
          call,
        ),
        solution: program(
          'def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a',
          call,
        ),
        mistakes: [
          {
            code: program(
              'def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return b',
              call,
            ),
            note: 'After the loop b is 0; the divisor is in a.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/is_leap_year',
    make(rng) {
      const year = pick(
        rng,
        [1600, 1700, 1800, 1900, 2000, 2100, 1996, 2004, 2023, 2024, 1999, 2400, 2200, 1988],
      );
      const call = `is_leap_year(${year})`;
      return {
        functionName: 'is_leap_year',
        prompt: functionPrompt(
          rng,
          'is_leap_year(year)',
          'returns True for leap years of the Gregorian calendar: years divisible by 4, except those divisible by 100 unless they are also divisible by 400.',
          call,
        ),
        solution: program(
          'def is_leap_year(year):\n    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)',
          call,
        ),
        mistakes: [
          {
            code: program('def is_leap_year(year):\n    return year % 4 == 0', call),
            note: 'Century years are leap years only when divisible by 400.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/collatz_steps',
    make(rng) {
      const n = int(rng, 3, 60);
      const call = `collatz_steps(${n})`;
      const body = (start: number) =>
        `def collatz_steps(n):\n    steps = ${start}\n    while n != 1:\n        if n % 2 == 0:\n            n = n // 2\n        else:\n            n = 3 * n + 1\n        steps += 1\n    return steps`;
      return {
        functionName: 'collatz_steps',
        prompt: functionPrompt(
          rng,
          'collatz_steps(n)',
          'returns how many steps it takes to reach 1 from n, where a step maps n to n // 2 if n is even and to 3 * n + 1 if n is odd.',
          call,
        ),
        solution: program(body(0), call),
        mistakes: [
          {
            code: program(body(1), call),
            note: 'The count starts at 1, one too many; start at 0.',
          },
        ],
      };
    },
  },
  {
    taskId: 'builtin/reverse_digits',
    make(rng) {
      const n = pick(rng, [int(rng, 10, 99999), int(rng, 1, 999) * 100]);
      const call = `reverse_digits(${n})`;
      return {
        functionName: 'reverse_digits',
        prompt: functionPrompt(
          rng,
          'reverse_digits(n)',
          'returns the integer whose decimal digits are those of the non-negative integer n in reverse order.',
          call,
        ),
        solution: program('def reverse_digits(n):\n    return int(str(n)[::-1])', call),
        mistakes: [
          {
            code: program('def reverse_digits(n):\n    return str(n)[::-1]', call),
            note: 'That returns a string; convert it back with int().',
          },
        ],
      };
    },
  },
];
