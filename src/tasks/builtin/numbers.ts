// Built-in tasks on numbers: ranges, digits, division, predicates. Order matters: the split rule
// (src/tasks/builtin/index.ts) makes every third task of a family an eval task.
import { py, type TaskSpec } from '../task.ts';

/** Number tasks, easiest first within each pattern. */
export const NUMBER_TASKS: readonly TaskSpec[] = [
  {
    name: 'sum_to',
    kind: 'sum_range',
    difficulty: 1,
    prompt:
      'Define a function `sum_to(n)` that returns 1 + 2 + ... + n, including n. Then print sum_to(100).',
    expectedOutput: '5050',
    tests: [
      'assert sum_to(1) == 1',
      'assert sum_to(0) == 0',
      'assert sum_to(3) == 6',
      'assert sum_to(10) == 55',
    ],
    solution: py`
      def sum_to(n):
          return sum(range(1, n + 1))
      print(sum_to(100))`,
  },
  {
    name: 'factorial',
    kind: 'product',
    difficulty: 1,
    prompt:
      'Define a function `factorial(n)` that returns n! (with factorial(0) = 1). Then print factorial(10).',
    expectedOutput: '3628800',
    tests: [
      'assert factorial(0) == 1',
      'assert factorial(1) == 1',
      'assert factorial(5) == 120',
      'assert factorial(12) == 479001600',
    ],
    solution: py`
      def factorial(n):
          result = 1
          for i in range(2, n + 1):
              result *= i
          return result
      print(factorial(10))`,
  },
  {
    name: 'is_prime',
    kind: 'predicate',
    difficulty: 2,
    prompt:
      'Define a function `is_prime(n)` that returns True if n is a prime number and False otherwise (numbers below 2 are not prime). Then print is_prime(97).',
    expectedOutput: 'True',
    tests: [
      'assert is_prime(2) == True',
      'assert is_prime(13) == True',
      'assert is_prime(1) == False',
      'assert is_prime(0) == False',
      'assert is_prime(9) == False',
      'assert is_prime(25) == False',
      'assert is_prime(-7) == False',
    ],
    solution: py`
      def is_prime(n):
          if n < 2:
              return False
          i = 2
          while i * i <= n:
              if n % i == 0:
                  return False
              i += 1
          return True
      print(is_prime(97))`,
  },
  {
    name: 'digit_sum',
    kind: 'digits',
    difficulty: 1,
    prompt:
      'Define a function `digit_sum(n)` that returns the sum of the decimal digits of a non-negative integer n. Then print digit_sum(98765).',
    expectedOutput: '35',
    tests: [
      'assert digit_sum(0) == 0',
      'assert digit_sum(5) == 5',
      'assert digit_sum(1001) == 2',
      'assert digit_sum(999) == 27',
    ],
    solution: py`
      def digit_sum(n):
          return sum(int(d) for d in str(n))
      print(digit_sum(98765))`,
  },
  {
    name: 'average',
    kind: 'division',
    difficulty: 1,
    prompt:
      'Define a function `average(nums)` that returns the arithmetic mean of a non-empty list of numbers. Then print average([1, 2, 3, 4]).',
    expectedOutput: '2.5',
    tests: [
      'assert average([2, 3]) == 2.5',
      'assert average([5]) == 5',
      'assert average([1, 2]) == 1.5',
      'assert average([-1, 1]) == 0',
    ],
    solution: py`
      def average(nums):
          return sum(nums) / len(nums)
      print(average([1, 2, 3, 4]))`,
  },
  {
    name: 'count_multiples',
    kind: 'count_range',
    difficulty: 2,
    prompt:
      'Define a function `count_multiples(a, b, k)` that returns how many integers from a to b, both included, are divisible by k. Then print count_multiples(10, 50, 7).',
    expectedOutput: '6',
    tests: [
      'assert count_multiples(1, 10, 1) == 10',
      'assert count_multiples(7, 7, 7) == 1',
      'assert count_multiples(1, 6, 3) == 2',
      'assert count_multiples(0, 10, 5) == 3',
      'assert count_multiples(14, 21, 7) == 2',
    ],
    solution: py`
      def count_multiples(a, b, k):
          return sum(1 for x in range(a, b + 1) if x % k == 0)
      print(count_multiples(10, 50, 7))`,
  },
  {
    name: 'gcd',
    kind: 'euclid',
    difficulty: 1,
    prompt:
      'Define a function `gcd(a, b)` that returns the greatest common divisor of two positive integers. Then print gcd(84, 36).',
    expectedOutput: '12',
    tests: [
      'assert gcd(7, 13) == 1',
      'assert gcd(10, 5) == 5',
      'assert gcd(5, 10) == 5',
      'assert gcd(12, 12) == 12',
      'assert gcd(270, 192) == 6',
    ],
    solution: py`
      def gcd(a, b):
          while b:
              a, b = b, a % b
          return a
      print(gcd(84, 36))`,
  },
  {
    name: 'is_leap_year',
    kind: 'predicate',
    difficulty: 2,
    prompt:
      'Define a function `is_leap_year(year)` that returns True for leap years of the Gregorian calendar: years divisible by 4, except those divisible by 100 unless they are also divisible by 400. Then print is_leap_year(1900).',
    expectedOutput: 'False',
    tests: [
      'assert is_leap_year(2000) == True',
      'assert is_leap_year(1900) == False',
      'assert is_leap_year(2024) == True',
      'assert is_leap_year(2023) == False',
      'assert is_leap_year(2100) == False',
      'assert is_leap_year(1600) == True',
    ],
    solution: py`
      def is_leap_year(year):
          return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
      print(is_leap_year(1900))`,
  },
  {
    name: 'c_to_f',
    kind: 'float_format',
    difficulty: 2,
    prompt:
      'Define a function `c_to_f(celsius)` that converts Celsius to Fahrenheit (F = C * 9 / 5 + 32), rounded to 1 decimal place. Then print c_to_f(37).',
    expectedOutput: '98.6',
    tests: [
      'assert c_to_f(0) == 32.0',
      'assert c_to_f(100) == 212.0',
      'assert c_to_f(-40) == -40.0',
      'assert c_to_f(36.6) == 97.9',
    ],
    solution: py`
      def c_to_f(celsius):
          return round(celsius * 9 / 5 + 32, 1)
      print(c_to_f(37))`,
  },
  {
    name: 'collatz_steps',
    kind: 'loop_count',
    difficulty: 2,
    prompt:
      'Define a function `collatz_steps(n)` that returns how many steps it takes to reach 1 from n, where a step maps n to n // 2 if n is even and to 3 * n + 1 if n is odd. Then print collatz_steps(27).',
    expectedOutput: '111',
    tests: [
      'assert collatz_steps(1) == 0',
      'assert collatz_steps(2) == 1',
      'assert collatz_steps(3) == 7',
      'assert collatz_steps(6) == 8',
    ],
    solution: py`
      def collatz_steps(n):
          steps = 0
          while n != 1:
              n = n // 2 if n % 2 == 0 else 3 * n + 1
              steps += 1
          return steps
      print(collatz_steps(27))`,
  },
  {
    name: 'reverse_digits',
    kind: 'digits',
    difficulty: 2,
    prompt:
      'Define a function `reverse_digits(n)` that returns the integer whose decimal digits are those of the non-negative integer n in reverse order. Then print reverse_digits(1200).',
    expectedOutput: '21',
    tests: [
      'assert reverse_digits(0) == 0',
      'assert reverse_digits(7) == 7',
      'assert reverse_digits(123) == 321',
      'assert reverse_digits(1200) == 21',
      "assert type(reverse_digits(45)).__name__ == 'int'",
    ],
    solution: py`
      def reverse_digits(n):
          return int(str(n)[::-1])
      print(reverse_digits(1200))`,
  },
];
