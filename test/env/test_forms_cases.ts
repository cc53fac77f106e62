// The forms real test suites take (issue 63 item 5), each with a correct solution that scores 1
// and wrong ones that score 0 (a wrong one must never pass), and a public-benchmark set in the
// HumanEval form: a prompt-style function, `def check(candidate)` tests and a `check(entry_point)`
// line. The problems are written for this file. Shared by test/env/test_forms.test.ts (Node) and
// test/e2e/judge_meaning.test.ts (Chromium); scripts/check-judge-cases.ts runs every case in
// CPython.
import { cases, indent, type JudgeCase, py } from './judge_cases.ts';

const TOTAL = 'def total(xs):\n    return sum(xs)';
const TOTAL_WRONG = {
  'drops the first': 'def total(xs):\n    return sum(xs[1:])',
  'returns None': 'def total(xs):\n    pass',
};
const ADD = 'def add(a, b):\n    return a + b';
const ADD_WRONG = {
  'a - b': 'def add(a, b):\n    return a - b',
  'returns None': 'def add(a, b):\n    pass',
};
const IS_PRIME = py`
  def is_prime(n):
      if n < 2:
          return False
      i = 2
      while i * i <= n:
          if n % i == 0:
              return False
          i += 1
      return True
`;
const SQRT_INT = py`
  import math


  def sqrt_int(n):
      if n < 0:
          raise ValueError('negative')
      return math.isqrt(n)
`;

/** One test form per group, each with a correct and wrong solutions. */
export const FORM_CASES: readonly JudgeCase[] = [
  ...cases({
    kind: 'humaneval',
    name: 'def check(candidate) with several asserts, then check(f)',
    tests: py`
      def check(candidate):
          assert candidate([1, 2, 3]) == 6
          assert candidate([]) == 0
          assert candidate([-1, 1]) == 0


      check(total)
    `,
    total: 1,
    right: { 'sum()': TOTAL },
    wrong: TOTAL_WRONG,
  }),
  ...cases({
    kind: 'humaneval',
    name: 'a METADATA line, def check(candidate), check(f)',
    tests: py`
      METADATA = {
          'author': 'tester',
          'dataset': 'test',
      }


      def check(candidate):
          assert candidate([1, 2, 3]) == 6
          assert candidate([10]) == 10


      check(total)
    `,
    total: 1,
    right: { 'sum()': TOTAL },
    wrong: TOTAL_WRONG,
  }),
  ...cases({
    kind: 'humaneval',
    name: 'check(candidate) through a helper the tests define',
    tests: py`
      def _close(a, b):
          assert abs(a - b) < 1e-9, (a, b)


      def check(candidate):
          _close(candidate(1), 0.5)
          _close(candidate(3), 1.5)


      check(half)
    `,
    total: 1,
    right: { 'x / 2': 'def half(x):\n    return x / 2' },
    wrong: {
      'x // 2': 'def half(x):\n    return x // 2',
      'returns None': 'def half(x):\n    pass',
    },
  }),
  ...cases({
    kind: 'humaneval',
    name: 'check(candidate) with a loop inside',
    tests: py`
      def check(candidate):
          for n, want in [(0, 1), (1, 1), (5, 120)]:
              assert candidate(n) == want, n


      check(fact)
    `,
    total: 1,
    right: {
      recursive: 'def fact(n):\n    return 1 if n <= 1 else n * fact(n - 1)',
    },
    wrong: {
      'fact(0) == 0': 'def fact(n):\n    return n if n <= 1 else n * fact(n - 1)',
      'returns None': 'def fact(n):\n    pass',
    },
  }),
  ...cases({
    kind: 'mbpp',
    name: 'plain asserts with setup lines',
    tests: py`
      import math
      xs = [1, 2, 3]
      assert total(xs) == 6
      assert total([10]) == 10
      assert math.isclose(total([0.5, 0.25]), 0.75)
    `,
    total: 3,
    right: { 'sum()': TOTAL },
    wrong: { 'drops the last': 'def total(xs):\n    return sum(xs[:-1])' },
  }),
  ...cases({
    kind: 'mbpp',
    name: 'a setup line that calls the function, then asserts on it',
    tests: "r = words('b a c')\nassert r == ['a', 'b', 'c']\nassert len(r) == 3",
    total: 2,
    right: { sorted: 'def words(s):\n    return sorted(s.split())' },
    wrong: { 'split only on the first space': "def words(s):\n    return sorted(s.split(' ', 1))" },
  }),
  ...cases({
    kind: 'mbpp',
    name: 'an assert over several lines in brackets',
    tests: py`
      assert words('b a c') == [
          'a',
          'b',
          'c',
      ]
    `,
    total: 1,
    right: { sorted: 'def words(s):\n    return sorted(s.split())' },
    wrong: { unsorted: 'def words(s):\n    return s.split()' },
  }),
  ...cases({
    kind: 'tolerance',
    name: 'abs(f(x) - y) < 1e-6 and math.isclose',
    tests: py`
      import math
      assert abs(area(1) - 3.141592653589793) < 1e-6
      assert math.isclose(area(2), 12.566370614359172, rel_tol=1e-9)
    `,
    total: 2,
    right: { 'math.pi': 'import math\n\n\ndef area(r):\n    return math.pi * r * r' },
    wrong: { '3.14': 'def area(r):\n    return 3.14 * r * r' },
  }),
  ...cases({
    kind: 'bool-compare',
    name: '== True and == False',
    tests: 'assert is_prime(9) == False\nassert is_prime(2) == True',
    total: 2,
    right: { 'trial division': IS_PRIME },
    wrong: { 'odd numbers': 'def is_prime(n):\n    return n % 2 == 1' },
  }),
  ...cases({
    kind: 'bool-compare',
    name: 'assert f(x) and assert not f(x)',
    tests: "assert is_palindrome('racecar')\nassert not is_palindrome('ab')",
    total: 2,
    right: { 's[::-1]': 'def is_palindrome(s):\n    return s == s[::-1]' },
    wrong: { 'compares the ends': 'def is_palindrome(s):\n    return s[0] != s[-1]' },
  }),
  ...cases({
    kind: 'message',
    name: 'asserts with a message',
    tests: "assert add(2, 2) == 4, 'two and two'\nassert add(-1, 1) == 0, f'got {add(-1, 1)}'",
    total: 2,
    right: { 'a + b': ADD },
    wrong: { 'a - b': 'def add(a, b):\n    return a - b' },
  }),
  ...cases({
    kind: 'loop',
    name: 'a loop over a list of cases',
    tests: py`
      cases = [((1, 2), 3), ((2, 2), 4), ((-1, 1), 0)]
      for args, want in cases:
          assert add(*args) == want
    `,
    total: 1,
    right: { 'a + b': ADD },
    wrong: ADD_WRONG,
  }),
  ...cases({
    kind: 'loop',
    name: 'a test-defined helper called in a loop',
    tests: py`
      def check(case):
          args, want = case
          assert add(*args) == want, case


      for c in [((1, 2), 3), ((2, 2), 4)]:
          check(c)
    `,
    total: 1,
    right: { 'a + b': ADD },
    wrong: ADD_WRONG,
  }),
  ...cases({
    kind: 'pytest',
    name: 'def test_* functions the source never calls',
    tests: py`
      def test_basic():
          assert add(1, 2) == 3


      def test_negative():
          assert add(-1, -1) == -2


      def test_zero():
          assert add(0, 5) == 5
    `,
    total: 3,
    right: { 'a + b': ADD },
    wrong: ADD_WRONG,
  }),
  ...cases({
    kind: 'pytest',
    name: 'a def test_* the source calls counts once, at its call',
    tests: py`
      def test_called():
          assert add(2, 2) == 4


      test_called()


      def test_never_called():
          assert add(3, 4) == 7
    `,
    total: 2,
    right: { 'a + b': ADD },
    wrong: ADD_WRONG,
  }),
  ...cases({
    kind: 'pytest',
    name: 'def test_* with a pytest.raises-like try/except/else',
    tests: py`
      def test_root():
          assert sqrt_int(16) == 4


      def test_negative_raises():
          try:
              sqrt_int(-1)
          except ValueError:
              pass
          else:
              assert False, 'expected ValueError'
    `,
    total: 2,
    right: { 'math.isqrt': SQRT_INT },
    wrong: {
      'abs() first': 'import math\n\n\ndef sqrt_int(n):\n    return math.isqrt(abs(n)) + 1',
    },
  }),
  ...cases({
    kind: 'assert-raises',
    name: 'a top-level try/except ValueError: pass/else: assert False',
    tests: py`
      try:
          sqrt_int(-1)
      except ValueError:
          pass
      else:
          assert False
    `,
    total: 1,
    right: { 'raises ValueError': SQRT_INT },
    wrong: {
      'returns 0': 'import math\n\n\ndef sqrt_int(n):\n    return math.isqrt(max(n, 0))',
      'raises TypeError': py`
        import math


        def sqrt_int(n):
            if n < 0:
                raise TypeError('negative')
            return math.isqrt(n)
      `,
    },
  }),
  ...cases({
    kind: 'unittest',
    name: 'a TestCase with test_* methods, setUp, a helper, and unittest.main()',
    tests: py`
      import unittest


      class TestAdd(unittest.TestCase):
          def setUp(self):
              self.pairs = [(1, 2, 3), (-1, 1, 0)]

          def test_pairs(self):
              for a, b, want in self.pairs:
                  self.assertEqual(add(a, b), want)

          def test_type(self):
              self.assertIsInstance(add(1, 2), int)

          def test_raises(self):
              with self.assertRaises(TypeError):
                  add(1, 'a')

          def helper(self):
              return 0


      if __name__ == '__main__':
          unittest.main()
    `,
    total: 3,
    right: { 'a + b': ADD },
    wrong: {
      'joins as text': 'def add(a, b):\n    return str(a) + str(b)',
      'returns None': 'def add(a, b):\n    pass',
    },
  }),
  ...cases({
    kind: 'unittest',
    name: 'assertRaises(ValueError, f, -1), assertAlmostEqual, two TestCases',
    tests: py`
      import math
      import unittest


      class TestRoot(unittest.TestCase):
          def test_value(self):
              self.assertEqual(sqrt_int(17), 4)

          def test_raises(self):
              self.assertRaises(ValueError, sqrt_int, -1)


      class TestFloat(unittest.TestCase):
          def test_close(self):
              self.assertAlmostEqual(math.sqrt(sqrt_int(81)), 3.0)


      if __name__ == '__main__':
          unittest.main()
    `,
    total: 3,
    right: { 'math.isqrt': SQRT_INT },
    wrong: {
      'rounds up': py`
        import math


        def sqrt_int(n):
            return math.isqrt(abs(n)) + 1
      `,
    },
  }),
];

/**
 * A HumanEval-style problem: `prompt` is the signature and docstring, `solution` the body that
 * completes it; `wrong` bodies (or whole programs, when they start with `def`) are plausible
 * mistakes. Every problem also gets a body that returns None.
 */
interface Problem {
  entry: string;
  prompt: string;
  solution: string;
  wrong: Record<string, string>;
  check: string;
  metadata?: boolean;
}

const PROBLEMS: readonly Problem[] = [
  {
    entry: 'reverse_words',
    prompt: py`
      def reverse_words(s: str) -> str:
          """Return the words of s in reverse order, separated by single spaces.
          >>> reverse_words('hello big world')
          'world big hello'
          """
    `,
    solution: "return ' '.join(reversed(s.split()))",
    wrong: { 'reverses the letters': 'return s[::-1]' },
    check: py`
      def check(candidate):
          assert candidate('hello big world') == 'world big hello'
          assert candidate('one') == 'one'
          assert candidate('  a   b ') == 'b a'
          assert candidate('') == ''
    `,
  },
  {
    entry: 'is_palindrome',
    prompt: py`
      def is_palindrome(text: str) -> bool:
          """Whether text reads the same backwards, ignoring case and anything not a letter or digit.
          >>> is_palindrome('A man, a plan, a canal: Panama')
          True
          """
    `,
    solution: py`
      clean = [c.lower() for c in text if c.isalnum()]
      return clean == clean[::-1]
    `,
    wrong: { 'keeps punctuation': 'return text.lower() == text.lower()[::-1]' },
    check: py`
      def check(candidate):
          assert candidate('A man, a plan, a canal: Panama') is True
          assert candidate('race a car') is False
          assert candidate('') is True
          assert candidate('No lemon, no melon') is True
    `,
  },
  {
    entry: 'count_vowels',
    prompt: py`
      def count_vowels(s: str) -> int:
          """How many vowels (a, e, i, o, u, either case) s holds.
          >>> count_vowels('Education')
          5
          """
    `,
    solution: "return sum(1 for c in s.lower() if c in 'aeiou')",
    wrong: { 'lowercase only': "return sum(1 for c in s if c in 'aeiou')" },
    check: py`
      def check(candidate):
          assert candidate('Education') == 5
          assert candidate('xyz') == 0
          assert candidate('AEIOU') == 5
    `,
  },
  {
    entry: 'fizzbuzz',
    prompt: py`
      from typing import List


      def fizzbuzz(n: int) -> List[str]:
          """The FizzBuzz words for 1..n: 'Fizz' for multiples of 3, 'Buzz' for multiples of 5,
          'FizzBuzz' for both, else the number.
          >>> fizzbuzz(5)
          ['1', '2', 'Fizz', '4', 'Buzz']
          """
    `,
    solution: py`
      out = []
      for i in range(1, n + 1):
          word = ('Fizz' if i % 3 == 0 else '') + ('Buzz' if i % 5 == 0 else '')
          out.append(word or str(i))
      return out
    `,
    wrong: {
      'stops at n - 1': py`
        out = []
        for i in range(1, n):
            word = ('Fizz' if i % 3 == 0 else '') + ('Buzz' if i % 5 == 0 else '')
            out.append(word or str(i))
        return out
      `,
      'Fizz before FizzBuzz': py`
        out = []
        for i in range(1, n + 1):
            if i % 3 == 0:
                out.append('Fizz')
            elif i % 5 == 0:
                out.append('Buzz')
            else:
                out.append(str(i))
        return out
      `,
    },
    check: py`
      def check(candidate):
          assert candidate(5) == ['1', '2', 'Fizz', '4', 'Buzz']
          assert candidate(15)[-1] == 'FizzBuzz'
          assert candidate(0) == []
    `,
    metadata: true,
  },
  {
    entry: 'running_max',
    prompt: py`
      from typing import List


      def running_max(numbers: List[int]) -> List[int]:
          """The largest number seen so far, at each position.
          >>> running_max([1, 3, 2, 5, 4])
          [1, 3, 3, 5, 5]
          """
    `,
    solution: py`
      out = []
      best = None
      for x in numbers:
          best = x if best is None or x > best else best
          out.append(best)
      return out
    `,
    wrong: {
      'starts from 0': py`
        out = []
        best = 0
        for x in numbers:
            best = max(best, x)
            out.append(best)
        return out
      `,
    },
    check: py`
      def check(candidate):
          assert candidate([1, 3, 2, 5, 4]) == [1, 3, 3, 5, 5]
          assert candidate([]) == []
          assert candidate([-3, -5, -1]) == [-3, -3, -1]
    `,
  },
  {
    entry: 'second_largest',
    prompt: py`
      from typing import List, Optional


      def second_largest(numbers: List[int]) -> Optional[int]:
          """The second largest distinct number, or None when there is none.
          >>> second_largest([4, 1, 4, 3])
          3
          """
    `,
    solution: py`
      distinct = sorted(set(numbers))
      return distinct[-2] if len(distinct) >= 2 else None
    `,
    wrong: {
      'duplicates count': py`
        ordered = sorted(numbers)
        return ordered[-2] if len(ordered) >= 2 else None
      `,
    },
    check: py`
      def check(candidate):
          assert candidate([4, 1, 4, 3]) == 3
          assert candidate([7, 7]) is None
          assert candidate([]) is None
          assert candidate([-1, -2]) == -2
    `,
  },
  {
    entry: 'gcd',
    prompt: py`
      def gcd(a: int, b: int) -> int:
          """The greatest common divisor of two non-negative integers (gcd(0, 0) is 0).
          >>> gcd(12, 18)
          6
          """
    `,
    solution: py`
      while b:
          a, b = b, a % b
      return a
    `,
    wrong: { 'min of the two': 'return min(a, b)' },
    check: py`
      def check(candidate):
          assert candidate(12, 18) == 6
          assert candidate(7, 13) == 1
          assert candidate(0, 5) == 5
          assert candidate(0, 0) == 0
    `,
  },
  {
    entry: 'is_prime',
    prompt: py`
      def is_prime(n: int) -> bool:
          """Whether n is a prime number.
          >>> is_prime(7)
          True
          """
    `,
    solution: py`
      if n < 2:
          return False
      i = 2
      while i * i <= n:
          if n % i == 0:
              return False
          i += 1
      return True
    `,
    wrong: {
      '1 is prime': py`
        if n < 1:
            return False
        i = 2
        while i * i <= n:
            if n % i == 0:
                return False
            i += 1
        return True
      `,
      'i * i < n': py`
        if n < 2:
            return False
        i = 2
        while i * i < n:
            if n % i == 0:
                return False
            i += 1
        return True
      `,
    },
    check: py`
      def check(candidate):
          assert candidate(7)
          assert not candidate(1)
          assert not candidate(9)
          assert not candidate(25)
          assert candidate(97)
    `,
  },
  {
    entry: 'digit_sum',
    prompt: py`
      def digit_sum(n: int) -> int:
          """The sum of the decimal digits of n (its sign ignored).
          >>> digit_sum(-123)
          6
          """
    `,
    solution: 'return sum(int(c) for c in str(abs(n)))',
    wrong: { 'no abs()': 'return sum(int(c) for c in str(n))' },
    check: py`
      def check(candidate):
          assert candidate(123) == 6
          assert candidate(-123) == 6
          assert candidate(0) == 0
    `,
  },
  {
    entry: 'flatten',
    prompt: py`
      def flatten(items: list) -> list:
          """Every non-list item of a nested list, in order.
          >>> flatten([1, [2, [3, 4]], 5])
          [1, 2, 3, 4, 5]
          """
    `,
    solution: py`
      out = []
      for item in items:
          if isinstance(item, list):
              out.extend(flatten(item))
          else:
              out.append(item)
      return out
    `,
    wrong: {
      'one level only': py`
        out = []
        for item in items:
            if isinstance(item, list):
                out.extend(item)
            else:
                out.append(item)
        return out
      `,
    },
    check: py`
      def check(candidate):
          assert candidate([1, [2, [3, 4]], 5]) == [1, 2, 3, 4, 5]
          assert candidate([]) == []
          assert candidate([[[]], 'a']) == ['a']
    `,
  },
  {
    entry: 'chunk',
    prompt: py`
      def chunk(items: list, size: int) -> list:
          """items cut into lists of size items (the last one may be shorter).
          >>> chunk([1, 2, 3, 4, 5], 2)
          [[1, 2], [3, 4], [5]]
          """
    `,
    solution: 'return [items[i:i + size] for i in range(0, len(items), size)]',
    wrong: {
      'drops the tail': 'return [items[i:i + size] for i in range(0, len(items) - size + 1, size)]',
    },
    check: py`
      def check(candidate):
          assert candidate([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]
          assert candidate([1, 2, 3], 3) == [[1, 2, 3]]
          assert candidate([], 4) == []
    `,
  },
  {
    entry: 'word_freq',
    prompt: py`
      from typing import Dict


      def word_freq(text: str) -> Dict[str, int]:
          """How often each lowercased word of text occurs.
          >>> word_freq('a B b')
          {'a': 1, 'b': 2}
          """
    `,
    solution: py`
      counts = {}
      for word in text.lower().split():
          counts[word] = counts.get(word, 0) + 1
      return counts
    `,
    wrong: {
      'case-sensitive': py`
        counts = {}
        for word in text.split():
            counts[word] = counts.get(word, 0) + 1
        return counts
      `,
    },
    check: py`
      def check(candidate):
          assert candidate('a B b') == {'a': 1, 'b': 2}
          assert candidate('') == {}
          assert candidate('The the THE') == {'the': 3}
    `,
    metadata: true,
  },
  {
    entry: 'invert_dict',
    prompt: py`
      from typing import Dict, List


      def invert_dict(d: Dict[str, int]) -> Dict[int, List[str]]:
          """Each value of d mapped to the sorted list of its keys.
          >>> invert_dict({'a': 1, 'b': 2, 'c': 1})
          {1: ['a', 'c'], 2: ['b']}
          """
    `,
    solution: py`
      out = {}
      for key, value in d.items():
          out.setdefault(value, []).append(key)
      return {value: sorted(keys) for value, keys in out.items()}
    `,
    wrong: { 'last key wins': 'return {value: [key] for key, value in d.items()}' },
    check: py`
      def check(candidate):
          assert candidate({'a': 1, 'b': 2, 'c': 1}) == {1: ['a', 'c'], 2: ['b']}
          assert candidate({}) == {}
          assert candidate({'z': 0, 'y': 0}) == {0: ['y', 'z']}
    `,
  },
  {
    entry: 'merge_sorted',
    prompt: py`
      from typing import List


      def merge_sorted(a: List[int], b: List[int]) -> List[int]:
          """Two sorted lists merged into one sorted list.
          >>> merge_sorted([1, 4], [2, 3, 5])
          [1, 2, 3, 4, 5]
          """
    `,
    solution: py`
      out = []
      i = j = 0
      while i < len(a) and j < len(b):
          if a[i] <= b[j]:
              out.append(a[i])
              i += 1
          else:
              out.append(b[j])
              j += 1
      return out + a[i:] + b[j:]
    `,
    wrong: {
      'forgets the rest': py`
        out = []
        i = j = 0
        while i < len(a) and j < len(b):
            if a[i] <= b[j]:
                out.append(a[i])
                i += 1
            else:
                out.append(b[j])
                j += 1
        return out
      `,
    },
    check: py`
      def check(candidate):
          assert candidate([1, 4], [2, 3, 5]) == [1, 2, 3, 4, 5]
          assert candidate([], [1]) == [1]
          assert candidate([2, 2], [2]) == [2, 2, 2]
    `,
  },
  {
    entry: 'rotate_left',
    prompt: py`
      from typing import List


      def rotate_left(items: List[int], k: int) -> List[int]:
          """items rotated left by k places (k may exceed the length).
          >>> rotate_left([1, 2, 3, 4], 1)
          [2, 3, 4, 1]
          """
    `,
    solution: py`
      if not items:
          return []
      k %= len(items)
      return items[k:] + items[:k]
    `,
    wrong: { 'k not reduced': 'return items[k:] + items[:k]' },
    check: py`
      def check(candidate):
          assert candidate([1, 2, 3, 4], 1) == [2, 3, 4, 1]
          assert candidate([1, 2, 3], 4) == [2, 3, 1]
          assert candidate([], 3) == []
    `,
  },
  {
    entry: 'caesar',
    prompt: py`
      def caesar(text: str, shift: int) -> str:
          """text with each letter shifted by shift places in the alphabet (case kept, other
          characters unchanged).
          >>> caesar('Abc, xyz!', 3)
          'Def, abc!'
          """
    `,
    solution: py`
      out = []
      for c in text:
          if c.isalpha() and c.isascii():
              base = ord('A') if c.isupper() else ord('a')
              out.append(chr((ord(c) - base + shift) % 26 + base))
          else:
              out.append(c)
      return ''.join(out)
    `,
    wrong: {
      'no wrap-around': py`
        out = []
        for c in text:
            out.append(chr(ord(c) + shift) if c.isalpha() else c)
        return ''.join(out)
      `,
    },
    check: py`
      def check(candidate):
          assert candidate('Abc, xyz!', 3) == 'Def, abc!'
          assert candidate('Hello', 0) == 'Hello'
          assert candidate('b', -1) == 'a'
          assert candidate('Z', 1) == 'A'
    `,
  },
  {
    entry: 'to_roman',
    prompt: py`
      def to_roman(n: int) -> str:
          """n (1 to 3999) in Roman numerals.
          >>> to_roman(1994)
          'MCMXCIV'
          """
    `,
    solution: py`
      table = [(1000, 'M'), (900, 'CM'), (500, 'D'), (400, 'CD'), (100, 'C'), (90, 'XC'),
               (50, 'L'), (40, 'XL'), (10, 'X'), (9, 'IX'), (5, 'V'), (4, 'IV'), (1, 'I')]
      out = ''
      for value, letters in table:
          while n >= value:
              out += letters
              n -= value
      return out
    `,
    wrong: {
      'no subtractive forms': py`
        table = [(1000, 'M'), (500, 'D'), (100, 'C'), (50, 'L'), (10, 'X'), (5, 'V'), (1, 'I')]
        out = ''
        for value, letters in table:
            while n >= value:
                out += letters
                n -= value
        return out
      `,
    },
    check: py`
      def check(candidate):
          assert candidate(1994) == 'MCMXCIV'
          assert candidate(3) == 'III'
          assert candidate(3999) == 'MMMCMXCIX'
    `,
  },
  {
    entry: 'binary_search',
    prompt: py`
      from typing import List


      def binary_search(items: List[int], target: int) -> int:
          """The index of target in the sorted list items, or -1.
          >>> binary_search([1, 3, 5, 7], 7)
          3
          """
    `,
    solution: py`
      lo, hi = 0, len(items) - 1
      while lo <= hi:
          mid = (lo + hi) // 2
          if items[mid] == target:
              return mid
          if items[mid] < target:
              lo = mid + 1
          else:
              hi = mid - 1
      return -1
    `,
    wrong: {
      'lo < hi': py`
        lo, hi = 0, len(items) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if items[mid] == target:
                return mid
            if items[mid] < target:
                lo = mid + 1
            else:
                hi = mid - 1
        return -1
      `,
    },
    check: py`
      def check(candidate):
          assert candidate([1, 3, 5, 7], 7) == 3
          assert candidate([1, 3, 5, 7], 1) == 0
          assert candidate([1, 3, 5, 7], 4) == -1
          assert candidate([2], 2) == 0
          assert candidate([], 1) == -1
    `,
  },
  {
    entry: 'fib',
    prompt: py`
      def fib(n: int) -> int:
          """The n-th Fibonacci number, fib(0) = 0, fib(1) = 1.
          >>> fib(10)
          55
          """
    `,
    solution: py`
      a, b = 0, 1
      for _ in range(n):
          a, b = b, a + b
      return a
    `,
    wrong: {
      'one too far': py`
        a, b = 0, 1
        for _ in range(n):
            a, b = b, a + b
        return b
      `,
    },
    check: py`
      def check(candidate):
          assert candidate(0) == 0
          assert candidate(1) == 1
          assert candidate(10) == 55
          assert candidate(90) == 2880067194370816120
    `,
  },
  {
    entry: 'pascal_row',
    prompt: py`
      from typing import List


      def pascal_row(n: int) -> List[int]:
          """Row n of Pascal's triangle (row 0 is [1]).
          >>> pascal_row(4)
          [1, 4, 6, 4, 1]
          """
    `,
    solution: py`
      row = [1]
      for _ in range(n):
          row = [a + b for a, b in zip([0] + row, row + [0])]
      return row
    `,
    wrong: {
      'one row short': py`
        row = [1]
        for _ in range(n - 1):
            row = [a + b for a, b in zip([0] + row, row + [0])]
        return row
      `,
    },
    check: py`
      def check(candidate):
          assert candidate(4) == [1, 4, 6, 4, 1]
          assert candidate(0) == [1]
          assert candidate(1) == [1, 1]
    `,
  },
  {
    entry: 'are_anagrams',
    prompt: py`
      def are_anagrams(a: str, b: str) -> bool:
          """Whether a and b use the same letters the same number of times (case and spaces ignored).
          >>> are_anagrams('Dormitory', 'dirty room')
          True
          """
    `,
    solution: "return sorted(a.replace(' ', '').lower()) == sorted(b.replace(' ', '').lower())",
    wrong: {
      'sets of letters':
        "return set(a.replace(' ', '').lower()) == set(b.replace(' ', '').lower())",
    },
    check: py`
      def check(candidate):
          assert candidate('Dormitory', 'dirty room') is True
          assert candidate('aab', 'abb') is False
          assert candidate('', '') is True
    `,
  },
  {
    entry: 'median',
    prompt: py`
      from typing import List


      def median(numbers: List[float]) -> float:
          """The median of a non-empty list (the mean of the middle two for an even length).
          >>> median([3, 1, 2])
          2
          """
    `,
    solution: py`
      ordered = sorted(numbers)
      mid = len(ordered) // 2
      if len(ordered) % 2:
          return ordered[mid]
      return (ordered[mid - 1] + ordered[mid]) / 2
    `,
    wrong: {
      unsorted: py`
        mid = len(numbers) // 2
        if len(numbers) % 2:
            return numbers[mid]
        return (numbers[mid - 1] + numbers[mid]) / 2
      `,
      'upper middle for even lengths': 'return sorted(numbers)[len(numbers) // 2]',
    },
    check: py`
      def check(candidate):
          assert candidate([3, 1, 2]) == 2
          assert candidate([4, 1, 3, 2]) == 2.5
          assert abs(candidate([0.5, 0.25]) - 0.375) < 1e-9
    `,
  },
  {
    entry: 'compress',
    prompt: py`
      def compress(s: str) -> str:
          """Run-length encoding: each run of a character as the character and the run's length.
          >>> compress('aaabcc')
          'a3b1c2'
          """
    `,
    solution: py`
      out = []
      i = 0
      while i < len(s):
          j = i
          while j < len(s) and s[j] == s[i]:
              j += 1
          out.append(f'{s[i]}{j - i}')
          i = j
      return ''.join(out)
    `,
    wrong: {
      'loses the last run': py`
        out = []
        count = 1
        for i in range(1, len(s)):
            if s[i] == s[i - 1]:
                count += 1
            else:
                out.append(f'{s[i - 1]}{count}')
                count = 1
        return ''.join(out)
      `,
    },
    check: py`
      def check(candidate):
          assert candidate('aaabcc') == 'a3b1c2'
          assert candidate('') == ''
          assert candidate('z') == 'z1'
    `,
  },
  {
    entry: 'title_case',
    prompt: py`
      def title_case(s: str) -> str:
          """Each space-separated word with its first letter upper case and the rest lower case;
          the spaces kept as they are.
          >>> title_case('hELLO  wORLD')
          'Hello  World'
          """
    `,
    solution: "return ' '.join(w[:1].upper() + w[1:].lower() for w in s.split(' '))",
    wrong: { 'collapses spaces': "return ' '.join(w.capitalize() for w in s.split())" },
    check: py`
      def check(candidate):
          assert candidate('hELLO  wORLD') == 'Hello  World'
          assert candidate('') == ''
          assert candidate('a') == 'A'
    `,
  },
  {
    entry: 'max_subarray',
    prompt: py`
      from typing import List


      def max_subarray(numbers: List[int]) -> int:
          """The largest sum of a non-empty contiguous run of numbers.
          >>> max_subarray([-2, 1, -3, 4, -1, 2, 1, -5, 4])
          6
          """
    `,
    solution: py`
      best = current = numbers[0]
      for x in numbers[1:]:
          current = max(x, current + x)
          best = max(best, current)
      return best
    `,
    wrong: {
      'never below 0': py`
        best = current = 0
        for x in numbers:
            current = max(0, current + x)
            best = max(best, current)
        return best
      `,
    },
    check: py`
      def check(candidate):
          assert candidate([-2, 1, -3, 4, -1, 2, 1, -5, 4]) == 6
          assert candidate([-3, -1, -2]) == -1
          assert candidate([5]) == 5
    `,
  },
  {
    entry: 'dedupe',
    prompt: py`
      from typing import List


      def dedupe(items: List[int]) -> List[int]:
          """items without repeats, each kept where it first appears.
          >>> dedupe([3, 1, 3, 2, 1])
          [3, 1, 2]
          """
    `,
    solution: py`
      seen = set()
      out = []
      for x in items:
          if x not in seen:
              seen.add(x)
              out.append(x)
      return out
    `,
    wrong: { 'sorted set': 'return sorted(set(items))' },
    check: py`
      def check(candidate):
          assert candidate([3, 1, 3, 2, 1]) == [3, 1, 2]
          assert candidate([]) == []
    `,
  },
  {
    entry: 'valid_parens',
    prompt: py`
      def valid_parens(s: str) -> bool:
          """Whether the brackets ()[]{} of s are balanced and properly nested.
          >>> valid_parens('([]{})')
          True
          """
    `,
    solution: py`
      pairs = {')': '(', ']': '[', '}': '{'}
      stack = []
      for c in s:
          if c in '([{':
              stack.append(c)
          elif c in pairs:
              if not stack or stack.pop() != pairs[c]:
                  return False
      return not stack
    `,
    wrong: {
      'counts only': py`
        return sum(c in '([{' for c in s) == sum(c in ')]}' for c in s)
      `,
    },
    check: py`
      def check(candidate):
          assert candidate('([]{})') is True
          assert candidate('([)]') is False
          assert candidate('((') is False
          assert candidate('') is True
    `,
  },
  {
    entry: 'transpose',
    prompt: py`
      from typing import List


      def transpose(matrix: List[List[int]]) -> List[List[int]]:
          """The transpose of a rectangular matrix given as a list of rows.
          >>> transpose([[1, 2, 3], [4, 5, 6]])
          [[1, 4], [2, 5], [3, 6]]
          """
    `,
    solution: 'return [list(column) for column in zip(*matrix)]',
    wrong: { tuples: 'return list(zip(*matrix))' },
    check: py`
      def check(candidate):
          assert candidate([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]
          assert candidate([[1]]) == [[1]]
          assert candidate([]) == []
    `,
  },
  {
    entry: 'nested_get',
    prompt: py`
      def nested_get(data: dict, path: str, default=None):
          """The value at a dotted path of nested dicts ('a.b.c'), or default where it is missing.
          >>> nested_get({'a': {'b': 1}}, 'a.b')
          1
          """
    `,
    solution: py`
      current = data
      for key in path.split('.'):
          if not isinstance(current, dict) or key not in current:
              return default
          current = current[key]
      return current
    `,
    wrong: {
      'first key only': 'return data.get(path.split(".")[0], default)',
    },
    check: py`
      def check(candidate):
          assert candidate({'a': {'b': 1}}, 'a.b') == 1
          assert candidate({'a': {'b': 1}}, 'a.c', 0) == 0
          assert candidate({'a': 5}, 'a.b', 'none') == 'none'
    `,
  },
  {
    entry: 'sum_odd_squares',
    prompt: py`
      from typing import List


      def sum_odd_squares(numbers: List[int]) -> int:
          """The sum of the squares of the odd numbers (negative ones included).
          >>> sum_odd_squares([1, 2, 3])
          10
          """
    `,
    solution: 'return sum(x * x for x in numbers if x % 2 == 1)',
    wrong: { 'odd positions': 'return sum(x * x for x in numbers[::2])' },
    check: py`
      def check(candidate):
          assert candidate([1, 2, 3]) == 10
          assert candidate([-3, 4]) == 9
          assert candidate([2, 3]) == 9
          assert candidate([]) == 0
    `,
  },
  {
    entry: 'mode',
    prompt: py`
      from typing import List


      def mode(numbers: List[int]) -> int:
          """The most common number of a non-empty list; the smallest one on a tie.
          >>> mode([3, 1, 3, 1, 2])
          1
          """
    `,
    solution: py`
      counts = {}
      for x in numbers:
          counts[x] = counts.get(x, 0) + 1
      best = max(counts.values())
      return min(x for x, c in counts.items() if c == best)
    `,
    wrong: {
      'first on a tie': py`
        counts = {}
        for x in numbers:
            counts[x] = counts.get(x, 0) + 1
        return max(counts, key=counts.get)
      `,
    },
    check: py`
      def check(candidate):
          assert candidate([3, 1, 3, 1, 2]) == 1
          assert candidate([5]) == 5
          assert candidate([2, 2, 9]) == 2
    `,
  },
];

const METADATA = "METADATA = {'author': 'judge-cases', 'dataset': 'test'}\n\n\n";

/** The public-benchmark set: each problem's canonical solution, its wrong ones, and a None body. */
export const BENCHMARK_CASES: readonly JudgeCase[] = PROBLEMS.flatMap((problem) => {
  const program = (body: string) =>
    body.startsWith('def ') ? body : `${problem.prompt}\n${indent(body)}\n`;
  const wrong: Record<string, string> = { 'returns None': 'pass' };
  for (const [label, body] of Object.entries(problem.wrong)) wrong[label] = body;
  return cases({
    kind: 'benchmark',
    name: problem.entry,
    tests: `${problem.metadata ? METADATA : ''}${problem.check}\n\n\ncheck(${problem.entry})\n`,
    total: 1,
    right: { canonical: program(problem.solution) },
    wrong: Object.fromEntries(Object.entries(wrong).map(([label, body]) => [label, program(body)])),
  });
});

/** How many problems the benchmark set holds. */
export const BENCHMARK_PROBLEMS = PROBLEMS.length;
