// The itertools and collections modules, as of CPython 3.12. Same rules as docs_builtins.ts.
import { entries } from './entries.ts';

export const ITER_DOCS = entries([
  [
    'itertools.permutations(iterable, r=None)',
    'All orderings (arrangements) of r items chosen from the iterable, as tuples: order matters and no item repeats; r defaults to the full length. `len(list(itertools.permutations("abc", 2))) == 6`',
  ],
  [
    'itertools.combinations(iterable, r)',
    'All ways to pick r items from the iterable as tuples in input order: subsets of size r, where order does not matter and no item repeats. `list(itertools.combinations("xyz", 2)) == [("x", "y"), ("x", "z"), ("y", "z")]`',
  ],
  [
    'itertools.combinations_with_replacement(iterable, r)',
    'All ways to pick r items with repetition allowed (the same item may be picked more than once) where order does not matter, as tuples. `len(list(itertools.combinations_with_replacement("ab", 2))) == 3`',
  ],
  [
    'itertools.product(*iterables, repeat=1)',
    'Cartesian product: every tuple taking one item from each iterable, like nested for loops; repeat=n combines an iterable with itself n times. `len(list(itertools.product("ab", repeat=3))) == 8`',
  ],
  [
    'itertools.accumulate(iterable, func=None, *, initial=None)',
    'Running totals (cumulative sums, prefix sums) of the items, or running results of a two-argument function such as max. `list(itertools.accumulate([1, 2, 3])) == [1, 3, 6]`',
  ],
  [
    'itertools.chain(*iterables)',
    'Iterate over several iterables one after another as one sequence (concatenate them). `list(itertools.chain([1], [2, 3])) == [1, 2, 3]`',
  ],
  [
    'itertools.chain.from_iterable(iterable)',
    'Flatten one level: the items of each iterable inside an iterable, such as a list of lists. `list(itertools.chain.from_iterable([[1], [2, 3]])) == [1, 2, 3]`',
  ],
  [
    'itertools.groupby(iterable, key=None)',
    'Group consecutive items with the same key into (key, group) pairs: runs of equal adjacent values; sort first to group all equal items.',
  ],
  [
    'itertools.pairwise(iterable)',
    'Successive overlapping pairs of adjacent elements: (a, b), (b, c), (c, d). `list(itertools.pairwise("abc")) == [("a", "b"), ("b", "c")]`',
  ],
  [
    'itertools.batched(iterable, n)',
    'Split into tuples (batches, chunks) of n items; the last one may be shorter. `list(itertools.batched("abcde", 2)) == [("a", "b"), ("c", "d"), ("e",)]`',
  ],
  [
    'itertools.islice(iterable, start, stop[, step])',
    'Slice of an iterator: the items from position start up to stop, taking every step-th; islice(it, n) takes the first n items.',
  ],
  [
    'itertools.count(start=0, step=1)',
    'Endless counter: start, start + step, start + 2 * step, and so on forever.',
  ],
  ['itertools.cycle(iterable)', 'Repeat the items of an iterable endlessly, in a loop.'],
  [
    'itertools.repeat(object[, times])',
    'Yield the same object over and over: times times, or forever. `list(itertools.repeat("x", 3)) == ["x", "x", "x"]`',
  ],
  [
    'itertools.zip_longest(*iterables, fillvalue=None)',
    'Like zip, but continues to the end of the longest iterable, filling missing values with fillvalue.',
  ],
  [
    'itertools.starmap(function, iterable)',
    'Call function with each tuple of the iterable unpacked as its arguments. `list(itertools.starmap(pow, [(2, 3)])) == [8]`',
  ],
  [
    'itertools.takewhile(predicate, iterable)',
    'Items from the start for as long as the predicate is true; stops at the first item that fails.',
  ],
  [
    'itertools.dropwhile(predicate, iterable)',
    'Skip items while the predicate is true, then yield every item after that.',
  ],
  [
    'itertools.filterfalse(predicate, iterable)',
    'Items for which the predicate is false: the opposite of filter.',
  ],
  [
    'itertools.compress(data, selectors)',
    'Items of data whose matching selector is true: filter one sequence by a list of booleans.',
  ],
  ['itertools.tee(iterable, n=2)', 'Split one iterator into n independent iterators.'],
  [
    'collections.Counter(iterable)',
    'Dictionary that counts how many times each element appears (a frequency table, a tally); missing keys count 0. `collections.Counter("abca")["a"] == 2`',
  ],
  [
    'collections.Counter.most_common(n=None)',
    'The n most common elements and their counts, as (element, count) pairs from the most frequent to the least. `collections.Counter("abca").most_common(1) == [("a", 2)]`',
  ],
  [
    'collections.Counter.elements()',
    'Iterator that repeats each key of a Counter by its tally. `sorted(collections.Counter(a=2, b=1).elements()) == ["a", "a", "b"]`',
  ],
  ['collections.Counter.total()', 'Sum of all the counts in a Counter.'],
  [
    'collections.deque(iterable, maxlen=None)',
    'Double-ended queue with fast appends and pops at both ends, for a queue (first in, first out) or a stack; with maxlen it keeps only the last maxlen items.',
  ],
  ['collections.deque.appendleft(x)', 'Add x to the left end (the front) of a deque.'],
  [
    'collections.deque.popleft()',
    'Remove and return the item at the left end (the front) of a deque: take from a queue in first-in, first-out order.',
  ],
  [
    'collections.deque.rotate(n=1)',
    'Rotate a deque n steps to the right; a negative n rotates it to the left.',
  ],
  [
    'collections.defaultdict(default_factory=None)',
    "Dictionary that makes a missing key's value by calling default_factory: defaultdict(list) groups items into lists, defaultdict(int) counts.",
  ],
  [
    'collections.OrderedDict([items])',
    'Dictionary that remembers insertion order and can reorder keys with move_to_end; popitem(last=False) removes the oldest.',
  ],
  [
    'collections.OrderedDict.move_to_end(key, last=True)',
    'Move a key to the end of an OrderedDict, or to the beginning with last=False.',
  ],
  [
    'collections.namedtuple(typename, field_names, *, rename=False, defaults=None, module=None)',
    'Make a tuple subclass whose fields can also be read by name, e.g. Point = namedtuple("Point", ["x", "y"]).',
  ],
  [
    'collections.ChainMap(*maps)',
    'Look up keys in several dictionaries in order, as one combined view.',
  ],
]);
