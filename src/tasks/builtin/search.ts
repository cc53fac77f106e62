// Tasks where searching the docs pays: each prompt names a BEHAVIOUR and asks for the
// standard library, never the function, so a model that guesses a name (`math.choose`,
// `statistics.average`) gets an AttributeError, and one that searches first finds the function in
// the top 3 and prints the answer in one line. `kind` is the intended function's dotted name, as
// the docs index (src/env/search/) names it; `query` is words a searcher might type for it (the
// demo corpus's search turns; a test checks the index ranks `kind` in the top 3 for it).
//
// The eval split is held out by function or by parameters and wording, never a copy of a train
// task: each eval entry's comment says which.
import { py, type Task } from '../task.ts';
import { SEARCH_TRAIN_SPECS, type SearchTaskSpec } from './search_train.ts';

export { SEARCH_TRAIN_SPECS, type SearchTaskSpec };

/** Eval split: held out from training (never in the demo corpus). */
export const SEARCH_EVAL_SPECS: readonly SearchTaskSpec[] = [
  // Held out by function: multimode is not trained (mode is).
  {
    name: 'all_modes',
    kind: 'statistics.multimode',
    prompt:
      'Using the standard library, print every value that is tied for most common in [1, 1, 2, 2, 3], as a list.',
    expectedOutput: '[1, 2]',
    tests: null,
    solution: py`
      import statistics
      print(statistics.multimode([1, 1, 2, 2, 3]))`,
    query: 'every most common value when several tie',
  },
  // Held out by function: hypot is not trained.
  {
    name: 'hypotenuse',
    kind: 'math.hypot',
    prompt:
      'Using a standard library function, define `hyp(a, b)` that returns the length of the hypotenuse of a right triangle with legs a and b. Then print hyp(5, 12).',
    expectedOutput: '13.0',
    tests: ['assert hyp(3, 4) == 5.0', 'assert hyp(0, 0) == 0.0', 'assert hyp(8, 15) == 17.0'],
    solution: py`
      import math
      def hyp(a, b):
          return math.hypot(a, b)
      print(hyp(5, 12))`,
    query: 'hypotenuse of a right triangle',
  },
  // Held out by function: combinations_with_replacement is not trained (combinations is).
  {
    name: 'scoops',
    kind: 'itertools.combinations_with_replacement',
    prompt:
      'Using the standard library, generate every way to pick 2 scoops from 3 flavours, where a flavour may be picked twice and order does not matter, and print how many there are.',
    expectedOutput: '6',
    tests: null,
    solution: py`
      import itertools
      print(len(list(itertools.combinations_with_replacement(['a', 'b', 'c'], 2))))`,
    query: 'pick r items with repetition allowed where order does not matter',
  },
  // Held out by function: groupby is not trained.
  {
    name: 'run_lengths',
    kind: 'itertools.groupby',
    prompt:
      "Using the standard library, print the runs of equal letters in 'aaabccdd' as a list of (letter, run length) tuples.",
    expectedOutput: "[('a', 3), ('b', 1), ('c', 2), ('d', 2)]",
    tests: null,
    solution: py`
      import itertools
      print([(key, len(list(group))) for key, group in itertools.groupby('aaabccdd')])`,
    query: 'group consecutive equal items runs',
  },
  // Held out by function: punctuation is not trained (ascii_lowercase is).
  {
    name: 'punctuation',
    kind: 'string.punctuation',
    prompt:
      'Using the standard library, print every ASCII symbol that is not a letter, a digit or whitespace (like ! and ?), as one string, without typing them out.',
    expectedOutput: '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
    tests: null,
    solution: py`
      import string
      print(string.punctuation)`,
    query: 'ASCII punctuation characters string',
  },
  // Held out by function: sub is not trained (findall is).
  {
    name: 'dashes',
    kind: 're.sub',
    prompt:
      "Using the standard library's regular expressions, replace every run of spaces in 'a   b    c' with a single dash and print the result.",
    expectedOutput: 'a-b-c',
    tests: null,
    solution: py`
      import re
      print(re.sub(r' +', '-', 'a   b    c'))`,
    query: 'replace every match of a pattern in a string',
  },
  // Held out by function: variance is not trained (pstdev and mean are).
  {
    name: 'sample_variance',
    kind: 'statistics.variance',
    prompt: 'Using the standard library, print the sample variance of [2, 4, 4, 4, 5, 5, 7, 9].',
    expectedOutput: '4.571428571428571',
    tests: null,
    solution: py`
      import statistics
      print(statistics.variance([2, 4, 4, 4, 5, 5, 7, 9]))`,
    query: 'sample variance of data',
  },
  // Held out by function: three-argument pow is not trained.
  {
    name: 'power_mod',
    kind: 'pow',
    prompt: 'Using one built-in function and no loop, print 3 to the power 200, taken modulo 13.',
    expectedOutput: '9',
    tests: null,
    solution: py`
      print(pow(3, 200, 13))`,
    query: 'raise to a power modulo a number',
  },
  // Held out by wording and parameters: math.comb is trained as "choose 3 items from 10".
  {
    name: 'card_hands',
    kind: 'math.comb',
    prompt:
      'Using the standard library, print how many different 5-card hands can be dealt from a 52-card deck.',
    expectedOutput: '2598960',
    tests: null,
    solution: py`
      import math
      print(math.comb(52, 5))`,
    query: 'number of ways to choose k items from n without order',
  },
  // Held out by wording and parameters: Counter is trained as most_common(1) of 'abracadabra'.
  {
    name: 'top_two_letters',
    kind: 'collections.Counter',
    prompt:
      "Using the standard library, print the two most common letters in 'banana' with their counts, as a list of (letter, count) tuples.",
    expectedOutput: "[('a', 3), ('n', 2)]",
    tests: null,
    solution: py`
      import collections
      print(collections.Counter('banana').most_common(2))`,
    query: 'most common elements and their counts',
  },
];

function searchTask(spec: SearchTaskSpec, split: 'train' | 'eval'): Task {
  return {
    id: `search/${spec.name}`,
    source: 'builtin',
    prompt: spec.prompt,
    expectedOutput: spec.expectedOutput,
    tests: spec.tests ? [...spec.tests] : null,
    family: 'search',
    kind: spec.kind,
    difficulty: 2,
    split,
    solution: spec.solution,
  };
}

/** Every search task, train split first. */
export const SEARCH_TASKS: Task[] = [
  ...SEARCH_TRAIN_SPECS.map((spec) => searchTask(spec, 'train')),
  ...SEARCH_EVAL_SPECS.map((spec) => searchTask(spec, 'eval')),
];
