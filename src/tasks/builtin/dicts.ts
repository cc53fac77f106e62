// Built-in tasks on dictionaries: counting, inverting, grouping, merging, ordering.
import { py, type TaskSpec } from '../task.ts';

/** Dictionary tasks. */
export const DICT_TASKS: readonly TaskSpec[] = [
  {
    name: 'word_count',
    kind: 'counting',
    difficulty: 1,
    prompt:
      "Define a function `word_count(s)` that returns a dictionary mapping each word of s (split on whitespace) to the number of times it occurs, in order of first occurrence. Then print word_count('the cat and the hat').",
    expectedOutput: "{'the': 2, 'cat': 1, 'and': 1, 'hat': 1}",
    tests: [
      "assert word_count('') == {}",
      "assert word_count('a a a') == {'a': 3}",
      "assert word_count('x y') == {'x': 1, 'y': 1}",
      "assert list(word_count('b a b')) == ['b', 'a']",
    ],
    solution: py`
      def word_count(s):
          counts = {}
          for w in s.split():
              counts[w] = counts.get(w, 0) + 1
          return counts
      print(word_count('the cat and the hat'))`,
  },
  {
    name: 'invert',
    kind: 'invert',
    difficulty: 1,
    prompt:
      "Define a function `invert(d)` that returns a new dictionary with the keys and values of d swapped (the values of d are all different). Then print invert({'a': 1, 'b': 2}).",
    expectedOutput: "{1: 'a', 2: 'b'}",
    tests: [
      'assert invert({}) == {}',
      "assert invert({'x': 'y'}) == {'y': 'x'}",
      'assert invert({1: 2, 3: 4}) == {2: 1, 4: 3}',
    ],
    solution: py`
      def invert(d):
          return {v: k for k, v in d.items()}
      print(invert({'a': 1, 'b': 2}))`,
  },
  {
    name: 'group_by_length',
    kind: 'grouping',
    difficulty: 2,
    prompt:
      "Define a function `group_by_length(words)` that returns a dictionary mapping each word length to the list of words of that length, in their original order. Then print group_by_length(['hi', 'yes', 'no', 'cat']).",
    expectedOutput: "{2: ['hi', 'no'], 3: ['yes', 'cat']}",
    tests: [
      'assert group_by_length([]) == {}',
      "assert group_by_length(['a']) == {1: ['a']}",
      "assert group_by_length(['ab', 'c', 'de']) == {2: ['ab', 'de'], 1: ['c']}",
    ],
    solution: py`
      def group_by_length(words):
          groups = {}
          for w in words:
              groups.setdefault(len(w), []).append(w)
          return groups
      print(group_by_length(['hi', 'yes', 'no', 'cat']))`,
  },
  {
    name: 'merge_counts',
    kind: 'merge',
    difficulty: 2,
    prompt:
      "Define a function `merge_counts(a, b)` that returns a new dictionary with every key of a and b, where keys present in both get the sum of their values. Then print merge_counts({'a': 1, 'b': 2}, {'b': 3, 'c': 4}).",
    expectedOutput: "{'a': 1, 'b': 5, 'c': 4}",
    tests: [
      'assert merge_counts({}, {}) == {}',
      "assert merge_counts({'x': 1}, {}) == {'x': 1}",
      "assert merge_counts({'x': 1}, {'x': -1}) == {'x': 0}",
      "a = {'k': 1}; merge_counts(a, {'k': 2}); assert a == {'k': 1}",
    ],
    solution: py`
      def merge_counts(a, b):
          out = dict(a)
          for k, v in b.items():
              out[k] = out.get(k, 0) + v
          return out
      print(merge_counts({'a': 1, 'b': 2}, {'b': 3, 'c': 4}))`,
  },
  {
    name: 'key_of_max',
    kind: 'selection',
    difficulty: 2,
    prompt:
      "Define a function `key_of_max(d)` that returns the key with the largest value in the non-empty dictionary d; if several keys share that value, return the one that comes first. Then print key_of_max({'x': 3, 'y': 9, 'z': 9}).",
    expectedOutput: 'y',
    tests: [
      "assert key_of_max({'a': 1}) == 'a'",
      "assert key_of_max({'a': 1, 'b': 2}) == 'b'",
      "assert key_of_max({'a': 5, 'b': 5}) == 'a'",
      "assert key_of_max({'a': -1, 'b': -2}) == 'a'",
    ],
    solution: py`
      def key_of_max(d):
          return max(d, key=d.get)
      print(key_of_max({'x': 3, 'y': 9, 'z': 9}))`,
  },
  {
    name: 'first_indexes',
    kind: 'indexing',
    difficulty: 2,
    prompt:
      "Define a function `first_indexes(s)` that returns a dictionary mapping each character of s to the index where it first appears. Then print first_indexes('banana').",
    expectedOutput: "{'b': 0, 'a': 1, 'n': 2}",
    tests: [
      "assert first_indexes('') == {}",
      "assert first_indexes('aaa') == {'a': 0}",
      "assert first_indexes('abca') == {'a': 0, 'b': 1, 'c': 2}",
    ],
    solution: py`
      def first_indexes(s):
          out = {}
          for i, c in enumerate(s):
              if c not in out:
                  out[c] = i
          return out
      print(first_indexes('banana'))`,
  },
  {
    name: 'at_least',
    kind: 'filter',
    difficulty: 1,
    prompt:
      "Define a function `at_least(d, threshold)` that returns a new dictionary with only the entries of d whose value is greater than or equal to threshold. Then print at_least({'a': 1, 'b': 5, 'c': 3}, 3).",
    expectedOutput: "{'b': 5, 'c': 3}",
    tests: [
      'assert at_least({}, 0) == {}',
      "assert at_least({'a': 2}, 2) == {'a': 2}",
      "assert at_least({'a': 1}, 2) == {}",
      "assert at_least({'a': 1, 'b': 0}, 0) == {'a': 1, 'b': 0}",
    ],
    solution: py`
      def at_least(d, threshold):
          return {k: v for k, v in d.items() if v >= threshold}
      print(at_least({'a': 1, 'b': 5, 'c': 3}, 3))`,
  },
  {
    name: 'ranking',
    kind: 'sort_keys',
    difficulty: 3,
    prompt:
      "Define a function `ranking(scores)` that returns the names in the dictionary scores sorted by score from highest to lowest, with equal scores in alphabetical order. Then print ranking({'bob': 3, 'amy': 5, 'cat': 3}).",
    expectedOutput: "['amy', 'bob', 'cat']",
    tests: [
      'assert ranking({}) == []',
      "assert ranking({'z': 1, 'a': 1}) == ['a', 'z']",
      "assert ranking({'a': 1, 'b': 2}) == ['b', 'a']",
      "assert ranking({'c': 2, 'b': 3, 'a': 2}) == ['b', 'a', 'c']",
    ],
    solution: py`
      def ranking(scores):
          return sorted(scores, key=lambda name: (-scores[name], name))
      print(ranking({'bob': 3, 'amy': 5, 'cat': 3}))`,
  },
  {
    name: 'nested_get',
    kind: 'nested',
    difficulty: 2,
    prompt:
      "Define a function `nested_get(d, keys)` that follows the list keys through nested dictionaries and returns the value found, or None if a key is missing. Then print nested_get({'a': {'b': {'c': 42}}}, ['a', 'b', 'c']).",
    expectedOutput: '42',
    tests: [
      "assert nested_get({'a': 1}, ['a']) == 1",
      "assert nested_get({'a': 1}, ['b']) == None",
      "assert nested_get({'a': {'b': 2}}, ['a', 'x']) == None",
      "assert nested_get({'a': {}}, []) == {'a': {}}",
    ],
    solution: py`
      def nested_get(d, keys):
          for k in keys:
              if k not in d:
                  return None
              d = d[k]
          return d
      print(nested_get({'a': {'b': {'c': 42}}}, ['a', 'b', 'c']))`,
  },
  {
    name: 'count_by_first_letter',
    kind: 'grouping',
    difficulty: 1,
    prompt:
      "Define a function `count_by_first_letter(words)` that returns a dictionary mapping each first letter to how many words start with it, in order of first appearance. Then print count_by_first_letter(['apple', 'avocado', 'banana', 'cherry', 'blueberry']).",
    expectedOutput: "{'a': 2, 'b': 2, 'c': 1}",
    tests: [
      'assert count_by_first_letter([]) == {}',
      "assert count_by_first_letter(['x']) == {'x': 1}",
      "assert count_by_first_letter(['bo', 'ba', 'a']) == {'b': 2, 'a': 1}",
      "assert list(count_by_first_letter(['b', 'a'])) == ['b', 'a']",
    ],
    solution: py`
      def count_by_first_letter(words):
          counts = {}
          for w in words:
              counts[w[0]] = counts.get(w[0], 0) + 1
          return counts
      print(count_by_first_letter(['apple', 'avocado', 'banana', 'cherry', 'blueberry']))`,
  },
  {
    name: 'common_keys',
    kind: 'set_ops',
    difficulty: 1,
    prompt:
      "Define a function `common_keys(a, b)` that returns a sorted list of the keys present in both dictionaries a and b. Then print common_keys({'a': 1, 'b': 2, 'c': 3}, {'c': 0, 'b': 0, 'd': 0}).",
    expectedOutput: "['b', 'c']",
    tests: [
      "assert common_keys({}, {'a': 1}) == []",
      "assert common_keys({'x': 1}, {'x': 2}) == ['x']",
      "assert common_keys({'b': 1, 'a': 1}, {'a': 1, 'b': 1}) == ['a', 'b']",
    ],
    solution: py`
      def common_keys(a, b):
          return sorted(k for k in a if k in b)
      print(common_keys({'a': 1, 'b': 2, 'c': 3}, {'c': 0, 'b': 0, 'd': 0}))`,
  },
];
