// Built-in tasks on strings: counting, splitting and joining, shifting, encoding.
import { py, type TaskSpec } from '../task.ts';

/** String tasks. */
export const STRING_TASKS: readonly TaskSpec[] = [
  {
    name: 'count_vowels',
    kind: 'count_chars',
    difficulty: 1,
    prompt:
      "Define a function `count_vowels(s)` that returns how many vowels (a, e, i, o, u, in upper or lower case) the string s contains. Then print count_vowels('Programming In Python').",
    expectedOutput: '5',
    tests: [
      "assert count_vowels('') == 0",
      "assert count_vowels('AEIOUaeiou') == 10",
      "assert count_vowels('xyz') == 0",
      "assert count_vowels('Hello World') == 3",
    ],
    solution: py`
      def count_vowels(s):
          return sum(1 for c in s if c.lower() in 'aeiou')
      print(count_vowels('Programming In Python'))`,
  },
  {
    name: 'reverse_words',
    kind: 'split_join',
    difficulty: 1,
    prompt:
      "Define a function `reverse_words(s)` that returns the words of s (separated by whitespace) in reverse order, joined by single spaces. Then print reverse_words('the quick brown fox').",
    expectedOutput: 'fox brown quick the',
    tests: [
      "assert reverse_words('one') == 'one'",
      "assert reverse_words('a b') == 'b a'",
      "assert reverse_words('  hello   world ') == 'world hello'",
    ],
    solution: py`
      def reverse_words(s):
          return ' '.join(reversed(s.split()))
      print(reverse_words('the quick brown fox'))`,
  },
  {
    name: 'is_clean_palindrome',
    kind: 'palindrome',
    difficulty: 2,
    prompt:
      "Define a function `is_clean_palindrome(s)` that returns True if s reads the same backwards once only its letters are kept and case is ignored. Then print is_clean_palindrome('A man, a plan, a canal: Panama').",
    expectedOutput: 'True',
    tests: [
      "assert is_clean_palindrome('') == True",
      "assert is_clean_palindrome('ab') == False",
      "assert is_clean_palindrome('No lemon, no melon') == True",
      "assert is_clean_palindrome('Hello') == False",
      "assert is_clean_palindrome('Was it a car or a cat I saw?') == True",
    ],
    solution: py`
      def is_clean_palindrome(s):
          letters = [c.lower() for c in s if c.isalpha()]
          return letters == letters[::-1]
      print(is_clean_palindrome('A man, a plan, a canal: Panama'))`,
  },
  {
    name: 'capitalize_words',
    kind: 'split_join',
    difficulty: 1,
    prompt:
      "Define a function `capitalize_words(s)` that returns the words of s with the first letter in upper case and the rest in lower case, joined by single spaces. Then print capitalize_words('hello wORLD from python').",
    expectedOutput: 'Hello World From Python',
    tests: [
      "assert capitalize_words('a') == 'A'",
      "assert capitalize_words('ONE two') == 'One Two'",
      "assert capitalize_words('') == ''",
    ],
    solution: py`
      def capitalize_words(s):
          return ' '.join(w[0].upper() + w[1:].lower() for w in s.split())
      print(capitalize_words('hello wORLD from python'))`,
  },
  {
    name: 'most_common_char',
    kind: 'counting',
    difficulty: 2,
    prompt:
      "Define a function `most_common_char(s)` that returns the character occurring most often in s; if several tie, return the one that appears first in s. Then print most_common_char('abracadabra').",
    expectedOutput: 'a',
    tests: [
      "assert most_common_char('abcabc') == 'a'",
      "assert most_common_char('bbaa') == 'b'",
      "assert most_common_char('z') == 'z'",
      "assert most_common_char('aabbb') == 'b'",
      "assert most_common_char('xyzzy') == 'y'",
    ],
    solution: py`
      def most_common_char(s):
          best = s[0]
          for c in s:
              if s.count(c) > s.count(best):
                  best = c
          return best
      print(most_common_char('abracadabra'))`,
  },
  {
    name: 'unique_chars',
    kind: 'dedupe_order',
    difficulty: 2,
    prompt:
      "Define a function `unique_chars(s)` that returns s without repeated characters, keeping the first occurrence of each in order. Then print unique_chars('mississippi').",
    expectedOutput: 'misp',
    tests: [
      "assert unique_chars('') == ''",
      "assert unique_chars('aaaa') == 'a'",
      "assert unique_chars('abcabc') == 'abc'",
      "assert unique_chars('banana') == 'ban'",
    ],
    solution: py`
      def unique_chars(s):
          seen = ''
          for c in s:
              if c not in seen:
                  seen += c
          return seen
      print(unique_chars('mississippi'))`,
  },
  {
    name: 'count_words',
    kind: 'split_join',
    difficulty: 2,
    prompt:
      "Define a function `count_words(s)` that returns the number of words in s, where words are separated by any amount of whitespace. Then print count_words('  leading and   multiple spaces ').",
    expectedOutput: '4',
    tests: [
      "assert count_words('') == 0",
      "assert count_words('   ') == 0",
      "assert count_words('one') == 1",
      "assert count_words('a\\tb\\nc') == 3",
    ],
    solution: py`
      def count_words(s):
          return len(s.split())
      print(count_words('  leading and   multiple spaces '))`,
  },
  {
    name: 'caesar',
    kind: 'char_shift',
    difficulty: 3,
    prompt:
      "Define a function `caesar(s, k)` that shifts every letter of s by k places in the alphabet, wrapping around from z to a and keeping its case; other characters stay as they are. Then print caesar('Hello, World!', 3).",
    expectedOutput: 'Khoor, Zruog!',
    tests: [
      "assert caesar('abc', 1) == 'bcd'",
      "assert caesar('xyz', 3) == 'abc'",
      "assert caesar('XYZ', 3) == 'ABC'",
      "assert caesar('a b!', 0) == 'a b!'",
      "assert caesar('abc', 26) == 'abc'",
      "assert caesar('bcd', -1) == 'abc'",
    ],
    solution: py`
      def caesar(s, k):
          out = []
          for c in s:
              if c.isalpha() and c.isascii():
                  base = ord('A') if c.isupper() else ord('a')
                  out.append(chr((ord(c) - base + k) % 26 + base))
              else:
                  out.append(c)
          return ''.join(out)
      print(caesar('Hello, World!', 3))`,
  },
  {
    name: 'is_anagram',
    kind: 'counting',
    difficulty: 1,
    prompt:
      "Define a function `is_anagram(a, b)` that returns True if the strings a and b contain exactly the same characters the same number of times (case-sensitive). Then print is_anagram('listen', 'silent').",
    expectedOutput: 'True',
    tests: [
      "assert is_anagram('', '') == True",
      "assert is_anagram('aab', 'abb') == False",
      "assert is_anagram('abc', 'cba') == True",
      "assert is_anagram('ab', 'abc') == False",
      "assert is_anagram('Ab', 'ab') == False",
    ],
    solution: py`
      def is_anagram(a, b):
          return sorted(a) == sorted(b)
      print(is_anagram('listen', 'silent'))`,
  },
  {
    name: 'longest_word',
    kind: 'split_join',
    difficulty: 1,
    prompt:
      "Define a function `longest_word(s)` that returns the longest word in s (words are separated by spaces); if several are equally long, return the first. Then print longest_word('I love programming in python').",
    expectedOutput: 'programming',
    tests: [
      "assert longest_word('a bb cc') == 'bb'",
      "assert longest_word('hello') == 'hello'",
      "assert longest_word('one three seven') == 'three'",
    ],
    solution: py`
      def longest_word(s):
          return max(s.split(), key=len)
      print(longest_word('I love programming in python'))`,
  },
  {
    name: 'run_length',
    kind: 'encoding',
    difficulty: 3,
    prompt:
      "Define a function `run_length(s)` that encodes each run of a repeated character as the character followed by the length of the run. Then print run_length('aaabccdddd').",
    expectedOutput: 'a3b1c2d4',
    tests: [
      "assert run_length('') == ''",
      "assert run_length('a') == 'a1'",
      "assert run_length('abab') == 'a1b1a1b1'",
      "assert run_length('zzzzzzzzzzzz') == 'z12'",
    ],
    solution: py`
      def run_length(s):
          out = ''
          i = 0
          while i < len(s):
              j = i
              while j < len(s) and s[j] == s[i]:
                  j += 1
              out += s[i] + str(j - i)
              i = j
          return out
      print(run_length('aaabccdddd'))`,
  },
];
