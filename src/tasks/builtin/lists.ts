// Built-in tasks on lists: prefix sums, selection, slicing, merging, stable sorting, and the
// mutable-default-argument trap.
import { py, type TaskSpec } from '../task.ts';

/** List tasks. */
export const LIST_TASKS: readonly TaskSpec[] = [
  {
    name: 'running_sum',
    kind: 'prefix',
    difficulty: 1,
    prompt:
      'Define a function `running_sum(nums)` that returns a new list whose i-th element is the sum of nums[0] through nums[i]. Then print running_sum([1, 2, 3, 4]).',
    expectedOutput: '[1, 3, 6, 10]',
    tests: [
      'assert running_sum([]) == []',
      'assert running_sum([5]) == [5]',
      'assert running_sum([1, -1, 1]) == [1, 0, 1]',
      'nums = [1, 2]; running_sum(nums); assert nums == [1, 2]',
    ],
    solution: py`
      def running_sum(nums):
          out, total = [], 0
          for x in nums:
              total += x
              out.append(total)
          return out
      print(running_sum([1, 2, 3, 4]))`,
  },
  {
    name: 'second_largest',
    kind: 'selection',
    difficulty: 2,
    prompt:
      'Define a function `second_largest(nums)` that returns the second largest distinct value in nums (it has at least two distinct values). Then print second_largest([4, 1, 7, 7, 3]).',
    expectedOutput: '4',
    tests: [
      'assert second_largest([1, 2]) == 1',
      'assert second_largest([5, 5, 4]) == 4',
      'assert second_largest([-1, -2, -3]) == -2',
      'assert second_largest([3, 9, 9, 9, 1]) == 3',
    ],
    solution: py`
      def second_largest(nums):
          return sorted(set(nums))[-2]
      print(second_largest([4, 1, 7, 7, 3]))`,
  },
  {
    name: 'flatten',
    kind: 'flatten',
    difficulty: 1,
    prompt:
      'Define a function `flatten(lists)` that takes a list of lists and returns one list of all their elements in order. Then print flatten([[1, 2], [3], [], [4, 5]]).',
    expectedOutput: '[1, 2, 3, 4, 5]',
    tests: [
      'assert flatten([]) == []',
      'assert flatten([[]]) == []',
      'assert flatten([[1], [2, 3]]) == [1, 2, 3]',
      "assert flatten([['a'], ['b']]) == ['a', 'b']",
    ],
    solution: py`
      def flatten(lists):
          return [x for inner in lists for x in inner]
      print(flatten([[1, 2], [3], [], [4, 5]]))`,
  },
  {
    name: 'dedupe',
    kind: 'dedupe_order',
    difficulty: 1,
    prompt:
      'Define a function `dedupe(items)` that returns items without duplicates, keeping the first occurrence of each in its original order. Then print dedupe([3, 1, 3, 2, 1]).',
    expectedOutput: '[3, 1, 2]',
    tests: [
      'assert dedupe([]) == []',
      'assert dedupe([1, 1, 1]) == [1]',
      'assert dedupe([2, 1]) == [2, 1]',
      "assert dedupe(['b', 'a', 'b']) == ['b', 'a']",
    ],
    solution: py`
      def dedupe(items):
          out = []
          for x in items:
              if x not in out:
                  out.append(x)
          return out
      print(dedupe([3, 1, 3, 2, 1]))`,
  },
  {
    name: 'chunk',
    kind: 'slicing',
    difficulty: 2,
    prompt:
      'Define a function `chunk(items, size)` that splits items into consecutive lists of length size, the last of which may be shorter. Then print chunk([1, 2, 3, 4, 5, 6, 7], 3).',
    expectedOutput: '[[1, 2, 3], [4, 5, 6], [7]]',
    tests: [
      'assert chunk([], 2) == []',
      'assert chunk([1, 2], 2) == [[1, 2]]',
      'assert chunk([1, 2, 3], 1) == [[1], [2], [3]]',
      'assert chunk([1, 2, 3], 5) == [[1, 2, 3]]',
    ],
    solution: py`
      def chunk(items, size):
          return [items[i:i + size] for i in range(0, len(items), size)]
      print(chunk([1, 2, 3, 4, 5, 6, 7], 3))`,
  },
  {
    name: 'rotate_left',
    kind: 'slicing',
    difficulty: 2,
    prompt:
      'Define a function `rotate_left(items, k)` that returns items rotated k places to the left; k may be larger than the length of the list. Then print rotate_left([1, 2, 3, 4, 5], 7).',
    expectedOutput: '[3, 4, 5, 1, 2]',
    tests: [
      'assert rotate_left([1, 2, 3], 0) == [1, 2, 3]',
      'assert rotate_left([1, 2, 3], 3) == [1, 2, 3]',
      'assert rotate_left([1, 2, 3], 1) == [2, 3, 1]',
      'assert rotate_left([], 4) == []',
      'assert rotate_left([1, 2, 3], 4) == [2, 3, 1]',
    ],
    solution: py`
      def rotate_left(items, k):
          if not items:
              return []
          k %= len(items)
          return items[k:] + items[:k]
      print(rotate_left([1, 2, 3, 4, 5], 7))`,
  },
  {
    name: 'evens_between',
    kind: 'range_bounds',
    difficulty: 1,
    prompt:
      'Define a function `evens_between(a, b)` that returns the even numbers from a to b, both included, in increasing order. Then print evens_between(3, 11).',
    expectedOutput: '[4, 6, 8, 10]',
    tests: [
      'assert evens_between(2, 6) == [2, 4, 6]',
      'assert evens_between(1, 1) == []',
      'assert evens_between(0, 0) == [0]',
      'assert evens_between(-3, 2) == [-2, 0, 2]',
    ],
    solution: py`
      def evens_between(a, b):
          return [x for x in range(a, b + 1) if x % 2 == 0]
      print(evens_between(3, 11))`,
  },
  {
    name: 'merge_sorted',
    kind: 'merge',
    difficulty: 2,
    prompt:
      'Define a function `merge_sorted(a, b)` that merges two lists sorted in ascending order into one sorted list. Then print merge_sorted([1, 4, 9], [2, 3, 10]).',
    expectedOutput: '[1, 2, 3, 4, 9, 10]',
    tests: [
      'assert merge_sorted([], []) == []',
      'assert merge_sorted([1], []) == [1]',
      'assert merge_sorted([], [2]) == [2]',
      'assert merge_sorted([1, 1], [1]) == [1, 1, 1]',
      'assert merge_sorted([5], [1, 2, 3]) == [1, 2, 3, 5]',
    ],
    solution: py`
      def merge_sorted(a, b):
          out, i, j = [], 0, 0
          while i < len(a) and j < len(b):
              if a[i] <= b[j]:
                  out.append(a[i]); i += 1
              else:
                  out.append(b[j]); j += 1
          return out + a[i:] + b[j:]
      print(merge_sorted([1, 4, 9], [2, 3, 10]))`,
  },
  {
    name: 'max_subarray',
    kind: 'dynamic',
    difficulty: 3,
    prompt:
      'Define a function `max_subarray(nums)` that returns the largest sum of a non-empty run of consecutive elements of nums. Then print max_subarray([-2, 1, -3, 4, -1, 2, 1, -5, 4]).',
    expectedOutput: '6',
    tests: [
      'assert max_subarray([1]) == 1',
      'assert max_subarray([-3, -1, -2]) == -1',
      'assert max_subarray([2, -1, 2]) == 3',
      'assert max_subarray([5, -10, 5]) == 5',
    ],
    solution: py`
      def max_subarray(nums):
          best = current = nums[0]
          for x in nums[1:]:
              current = max(x, current + x)
              best = max(best, current)
          return best
      print(max_subarray([-2, 1, -3, 4, -1, 2, 1, -5, 4]))`,
  },
  {
    name: 'sort_by_length',
    kind: 'stable_sort',
    difficulty: 2,
    prompt:
      "Define a function `sort_by_length(words)` that returns the words sorted by length, shortest first; words of equal length keep their original order. Then print sort_by_length(['ccc', 'a', 'bb', 'd', 'ee']).",
    expectedOutput: "['a', 'd', 'bb', 'ee', 'ccc']",
    tests: [
      'assert sort_by_length([]) == []',
      "assert sort_by_length(['bb', 'a']) == ['a', 'bb']",
      "assert sort_by_length(['b', 'a']) == ['b', 'a']",
      "assert sort_by_length(['xx', 'b', 'yy', 'a']) == ['b', 'a', 'xx', 'yy']",
    ],
    solution: py`
      def sort_by_length(words):
          return sorted(words, key=len)
      print(sort_by_length(['ccc', 'a', 'bb', 'd', 'ee']))`,
  },
  {
    name: 'add_item',
    kind: 'mutable_default',
    difficulty: 2,
    prompt:
      'Define a function `add_item(item, items=None)` that appends item to the list items and returns that list; when items is not given, each call starts from a new empty list. Then print add_item(1), and then print add_item(2).',
    expectedOutput: '[2]',
    tests: [
      "assert add_item('x') == ['x']",
      "assert add_item('y') == ['y']",
      'l = [1]; assert add_item(2, l) == [1, 2] and l == [1, 2]',
    ],
    solution: py`
      def add_item(item, items=None):
          if items is None:
              items = []
          items.append(item)
          return items
      print(add_item(1))
      print(add_item(2))`,
  },
];
