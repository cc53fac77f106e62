// Skills on lists: aggregates of the elements that meet a condition, element-wise maps, neighbours
// and windows, slices, positions, repeats, two lists at once, lists of lists, sorting. Left out on
// purpose (held_out.ts): joining a list of lists into one list with nothing else done
// (flatten), rotating to the left (rotate_left), the largest sum of a run of any length
// (max_subarray).
import type { Rng } from '../../src/model/rng.ts';
import { intList, skill, type FunctionSpec, type Op, type Param } from './skill.ts';
import { int, pick, pyRepr, type Template } from './template.ts';

const NUMS: Param = ['nums', 'items', 'values', 'xs', 'numbers', 'data', 'arr', 'lst', 'seq'];

/** A condition on an element `x`, with an optional number parameter `t`. */
interface Condition {
  tag: string;
  words: (t: string) => string;
  code: (x: string, t: string) => string;
  param: 'bound' | 'divisor' | null;
}

const CONDITIONS: readonly Condition[] = [
  { tag: 'even', words: () => 'are even', code: (x: string) => `${x} % 2 == 0`, param: null },
  { tag: 'odd', words: () => 'are odd', code: (x: string) => `${x} % 2 == 1`, param: null },
  { tag: 'positive', words: () => 'are positive', code: (x: string) => `${x} > 0`, param: null },
  { tag: 'negative', words: () => 'are negative', code: (x: string) => `${x} < 0`, param: null },
  {
    tag: 'above',
    words: (t: string) => `are greater than ${t}`,
    code: (x: string, t: string) => `${x} > ${t}`,
    param: 'bound',
  },
  {
    tag: 'below',
    words: (t: string) => `are smaller than ${t}`,
    code: (x: string, t: string) => `${x} < ${t}`,
    param: 'bound',
  },
  {
    tag: 'divisible',
    words: (t: string) => `are divisible by ${t}`,
    code: (x: string, t: string) => `${x} % ${t} == 0`,
    param: 'divisor',
  },
];

/** A list of ints for conditions that may look at signs. */
const signedList = (rng: Rng) => intList(rng, int(rng, 4, 8), -9, 20);

const listAggregate = skill('list_aggregate', (rng): FunctionSpec => {
  const cond = pick(rng, CONDITIONS);
  const aggregate = pick(rng, ['count', 'sum', 'filter', 'max', 'first'] as const);
  const t = cond.param === 'divisor' ? String(int(rng, 2, 5)) : String(int(rng, 0, 12));
  const lead = {
    count: 'returns how many elements of',
    sum: 'returns the sum of the elements of',
    filter: 'returns a new list of the elements of',
    max: 'returns the largest element of',
    first: 'returns the first element of',
  }[aggregate];
  const tail = {
    count: '',
    sum: '',
    filter: ', in their original order',
    max: ', or None if there is none',
    first: ', or None if there is none',
  }[aggregate];
  const prefix = { count: 'count_', sum: 'sum_', filter: 'keep_', max: 'max_', first: 'first_' }[
    aggregate
  ];
  return {
    names: [`${prefix}${cond.tag}`, `${prefix}${cond.tag}_items`],
    params: [NUMS, ...(cond.param ? [cond.param] : [])],
    what: ([xs, p]) => {
      const words = cond.words(p ?? '');
      if (aggregate === 'count') return `${lead} ${xs} ${words}`;
      if (aggregate === 'max' || aggregate === 'first')
        return `${lead} ${xs} that ${words.replace(/^are /, 'is ')}${tail}`;
      return `${lead} ${xs} that ${words}${tail}`;
    },
    bodies: ([xs, p]) => {
      const test = cond.code('x', p ?? '');
      return {
        count: [
          `    return sum(1 for x in ${xs} if ${test})`,
          `    count = 0\n    for x in ${xs}:\n        if ${test}:\n            count += 1\n    return count`,
        ],
        sum: [
          `    return sum(x for x in ${xs} if ${test})`,
          `    total = 0\n    for x in ${xs}:\n        if ${test}:\n            total += x\n    return total`,
        ],
        filter: [
          `    return [x for x in ${xs} if ${test}]`,
          `    out = []\n    for x in ${xs}:\n        if ${test}:\n            out.append(x)\n    return out`,
        ],
        max: [
          `    found = [x for x in ${xs} if ${test}]\n    return max(found) if found else None`,
        ],
        first: [`    for x in ${xs}:\n        if ${test}:\n            return x\n    return None`],
      }[aggregate];
    },
    args: [pyRepr(signedList(rng)), ...(cond.param ? [t] : [])],
    wrong: ([xs, p]) => {
      const test = cond.code('x', p ?? '');
      return [
        {
          body: {
            count: `    return sum(x for x in ${xs} if ${test})`,
            sum: `    return sum(1 for x in ${xs} if ${test})`,
            filter: `    return [x for x in ${xs} if not ${test}]`,
            max: `    return max(${xs})`,
            first: `    for x in ${xs}:\n        if ${test}:\n            return x\n        return None`,
          }[aggregate],
          note: 'That does not compute what was asked; fix it.',
        },
      ];
    },
  };
});

/** Element-wise maps, optionally only over the elements that meet a condition. */
const MAPS = [
  {
    tag: 'squares',
    words: 'the squares of',
    code: (x: string) => `${x} * ${x}`,
    wrong: (x: string) => `${x} * 2`,
  },
  {
    tag: 'doubled',
    words: 'twice each of',
    code: (x: string) => `${x} * 2`,
    wrong: (x: string) => `${x} + 2`,
  },
  {
    tag: 'absolute',
    words: 'the absolute values of',
    code: (x: string) => `abs(${x})`,
    wrong: (x: string) => `-${x}`,
  },
  {
    tag: 'negated',
    words: 'the negatives of',
    code: (x: string) => `-${x}`,
    wrong: (x: string) => `abs(${x})`,
  },
  {
    tag: 'halved',
    words: 'the halves (integer division by 2) of',
    code: (x: string) => `${x} // 2`,
    wrong: (x: string) => `${x} / 2`,
  },
];

const listMap = skill('list_map', (rng): FunctionSpec => {
  const map = pick(rng, MAPS);
  const cond =
    rng.uniform() < 0.4
      ? pick(
          rng,
          CONDITIONS.filter((c) => !c.param),
        )
      : null;
  return {
    names: [cond ? `${map.tag}_of_${cond.tag}` : map.tag, `${map.tag}_list`, `make_${map.tag}`],
    params: [NUMS],
    what: ([xs]) =>
      cond
        ? `returns a new list of ${map.words} the elements of ${xs} that ${cond.words('')}, in order`
        : `returns a new list of ${map.words} the elements of ${xs}, in order`,
    bodies: ([xs]) => [
      `    return [${map.code('x')} for x in ${xs}${cond ? ` if ${cond.code('x', '')}` : ''}]`,
      `    out = []\n    for x in ${xs}:\n${cond ? `        if ${cond.code('x', '')}:\n            out.append(${map.code('x')})` : `        out.append(${map.code('x')})`}\n    return out`,
    ],
    args: [pyRepr(signedList(rng))],
    wrong: ([xs]) => [
      {
        body: `    return [${map.wrong('x')} for x in ${xs}${cond ? ` if ${cond.code('x', '')}` : ''}]`,
        note: 'Each element is transformed the wrong way; fix the expression.',
      },
    ],
  };
});

/** Neighbours and fixed-size windows (never a run of any length: max_subarray is held out). */
const NEIGHBOURS = [
  {
    tag: 'differences',
    k: false,
    what: (xs: string) =>
      `returns the list of differences between consecutive elements of ${xs} (each element minus the one before it)`,
    body: (xs: string) => `    return [${xs}[i] - ${xs}[i - 1] for i in range(1, len(${xs}))]`,
    wrong: (xs: string) => `    return [${xs}[i - 1] - ${xs}[i] for i in range(1, len(${xs}))]`,
  },
  {
    tag: 'pair_sums',
    k: false,
    what: (xs: string) => `returns the list of the sums of each two neighbouring elements of ${xs}`,
    body: (xs: string) => `    return [${xs}[i] + ${xs}[i + 1] for i in range(len(${xs}) - 1)]`,
    wrong: (xs: string) => `    return [${xs}[i] + ${xs}[i + 1] for i in range(len(${xs}) - 2)]`,
  },
  {
    tag: 'increases',
    k: false,
    what: (xs: string) =>
      `returns how many elements of ${xs} are larger than the element just before them`,
    body: (xs: string) =>
      `    return sum(1 for i in range(1, len(${xs})) if ${xs}[i] > ${xs}[i - 1])`,
    wrong: (xs: string) =>
      `    return sum(1 for i in range(len(${xs})) if ${xs}[i] > ${xs}[i - 1])`,
  },
  {
    tag: 'longest_equal_run',
    k: false,
    what: (xs: string) =>
      `returns the length of the longest run of consecutive equal elements in the non-empty list ${xs}`,
    body: (xs: string) =>
      `    best = run = 1\n    for i in range(1, len(${xs})):\n        run = run + 1 if ${xs}[i] == ${xs}[i - 1] else 1\n        best = max(best, run)\n    return best`,
    wrong: (xs: string) =>
      `    best = run = 1\n    for i in range(1, len(${xs})):\n        run = run + 1 if ${xs}[i] == ${xs}[i - 1] else 1\n    return best`,
  },
  {
    tag: 'window_sums',
    k: true,
    what: (xs: string, k: string) =>
      `returns the list of the sums of every ${k} consecutive elements of ${xs}`,
    body: (xs: string, k: string) =>
      `    return [sum(${xs}[i:i + ${k}]) for i in range(len(${xs}) - ${k} + 1)]`,
    wrong: (xs: string, k: string) =>
      `    return [sum(${xs}[i:i + ${k}]) for i in range(len(${xs}) - ${k})]`,
  },
  {
    tag: 'best_window',
    k: true,
    what: (xs: string, k: string) =>
      `returns the largest sum of ${k} consecutive elements of ${xs} (it has at least ${k} elements)`,
    body: (xs: string, k: string) =>
      `    return max(sum(${xs}[i:i + ${k}]) for i in range(len(${xs}) - ${k} + 1))`,
    wrong: (xs: string, k: string) => `    return sum(sorted(${xs})[-${k}:])`,
  },
];

const neighbours = skill('neighbours', (rng): FunctionSpec => {
  const op = pick(rng, NEIGHBOURS);
  const xs =
    op.tag === 'longest_equal_run'
      ? Array.from({ length: int(rng, 3, 6) }, () => int(rng, 1, 4)).flatMap((v) =>
          Array(int(rng, 1, 3)).fill(v),
        )
      : intList(rng, int(rng, 4, 8), -5, 15);
  return {
    names: [op.tag, `get_${op.tag}`],
    params: op.k ? [NUMS, ['k', 'size', 'width', 'w']] : [NUMS],
    what: ([a, k]) => op.what(a!, k!),
    bodies: ([a, k]) => [op.body(a!, k!)],
    args: [pyRepr(xs), ...(op.k ? [String(int(rng, 2, 3))] : [])],
    wrong: ([a, k]) => [{ body: op.wrong(a!, k!), note: 'The indexes are off; fix the range.' }],
  };
});

/** Slices of one list (rotating right only: rotate_left is held out). */
const SLICES = [
  {
    tag: 'first_k',
    k: true,
    what: (xs: string, k: string) => `returns the first ${k} elements of ${xs}`,
    body: (xs: string, k: string) => `    return ${xs}[:${k}]`,
    wrong: (xs: string, k: string) => `    return ${xs}[${k}:]`,
  },
  {
    tag: 'last_k',
    k: true,
    what: (xs: string, k: string) => `returns the last ${k} elements of ${xs}, in order`,
    body: (xs: string, k: string) => `    return ${xs}[-${k}:]`,
    wrong: (xs: string, k: string) => `    return ${xs}[:-${k}]`,
  },
  {
    tag: 'drop_k',
    k: true,
    what: (xs: string, k: string) => `returns ${xs} without its first ${k} elements`,
    body: (xs: string, k: string) => `    return ${xs}[${k}:]`,
    wrong: (xs: string, k: string) => `    return ${xs}[${k} + 1:]`,
  },
  {
    tag: 'every_kth',
    k: true,
    what: (xs: string, k: string) =>
      `returns every ${k}-th element of ${xs}, starting with the first`,
    body: (xs: string, k: string) => `    return ${xs}[::${k}]`,
    wrong: (xs: string, k: string) => `    return ${xs}[${k}::${k}]`,
  },
  {
    tag: 'rotate_right',
    k: true,
    what: (xs: string, k: string) =>
      `returns ${xs} rotated ${k} places to the right (${k} can exceed the length of ${xs})`,
    body: (xs: string, k: string) =>
      `    if not ${xs}:\n        return []\n    ${k} %= len(${xs})\n    return ${xs}[-${k}:] + ${xs}[:-${k}] if ${k} else ${xs}[:]`,
    wrong: (xs: string, k: string) => `    return ${xs}[-${k}:] + ${xs}[:-${k}]`,
  },
  {
    tag: 'reversed_list',
    k: false,
    what: (xs: string) => `returns a new list with the elements of ${xs} in reverse order`,
    body: (xs: string) => `    return ${xs}[::-1]`,
    wrong: (xs: string) => `    return ${xs}.reverse()`,
  },
  {
    tag: 'halves',
    k: false,
    what: (xs: string) =>
      `returns a list of two lists: the first half of ${xs} and the second half (the second half gets the extra element when the length is odd)`,
    body: (xs: string) => `    mid = len(${xs}) // 2\n    return [${xs}[:mid], ${xs}[mid:]]`,
    wrong: (xs: string) => `    mid = len(${xs}) // 2 + 1\n    return [${xs}[:mid], ${xs}[mid:]]`,
  },
  {
    tag: 'middle',
    k: false,
    what: (xs: string) => `returns the middle element of ${xs}, which has an odd length`,
    body: (xs: string) => `    return ${xs}[len(${xs}) // 2]`,
    wrong: (xs: string) => `    return ${xs}[len(${xs}) // 2 - 1]`,
  },
];

const slices = skill('slice', (rng): FunctionSpec => {
  const op = pick(rng, SLICES);
  const n = op.tag === 'middle' ? 2 * int(rng, 1, 4) + 1 : int(rng, 4, 8);
  const k = op.tag === 'rotate_right' ? int(rng, 1, 12) : int(rng, 1, 3);
  return {
    names: [op.tag, `get_${op.tag}`, op.tag.replace('_k', '_n')],
    params: op.k ? [NUMS, ['k', 'n', 'count', 'steps']] : [NUMS],
    what: ([xs, kk]) => op.what(xs!, kk!),
    bodies: ([xs, kk]) => [op.body(xs!, kk!)],
    args: [pyRepr(intList(rng, n, 0, 30)), ...(op.k ? [String(k)] : [])],
    wrong: ([xs, kk]) => [
      { body: op.wrong(xs!, kk!), note: 'The slice is wrong; fix its bounds.' },
    ],
  };
});

/** Where values are: index of the largest, of a value, of the first above a bound, all indexes. */
const POSITIONS: readonly Op[] = [
  {
    tag: 'index_of_max',
    params: [NUMS],
    what: ([xs]: string[]) =>
      `returns the index of the largest element of ${xs} (the first one if it occurs several times)`,
    body: ([xs]: string[]) => `    return ${xs}.index(max(${xs}))`,
    wrong: ([xs]: string[]) => `    return max(${xs})`,
  },
  {
    tag: 'find',
    params: [NUMS, ['x', 'target', 'value', 'wanted']],
    what: ([xs, x]: string[]) =>
      `returns the index of the first occurrence of ${x} in ${xs}, or -1 if ${x} does not occur`,
    body: ([xs, x]: string[]) =>
      `    for i, v in enumerate(${xs}):\n        if v == ${x}:\n            return i\n    return -1`,
    wrong: ([xs, x]: string[]) => `    return ${xs}.index(${x})`,
  },
  {
    tag: 'first_above',
    params: [NUMS, 'bound'],
    what: ([xs, t]: string[]) =>
      `returns the index of the first element of ${xs} greater than ${t}, or -1 if there is none`,
    body: ([xs, t]: string[]) =>
      `    for i, v in enumerate(${xs}):\n        if v > ${t}:\n            return i\n    return -1`,
    wrong: ([xs, t]: string[]) =>
      `    for i, v in enumerate(${xs}):\n        if v >= ${t}:\n            return i\n    return -1`,
  },
  {
    tag: 'indexes_of',
    params: [NUMS, ['x', 'target', 'value', 'wanted']],
    what: ([xs, x]: string[]) => `returns the list of every index at which ${x} occurs in ${xs}`,
    body: ([xs, x]: string[]) => `    return [i for i, v in enumerate(${xs}) if v == ${x}]`,
    wrong: ([xs, x]: string[]) => `    return [v for i, v in enumerate(${xs}) if v == ${x}]`,
  },
];

const positions = skill('position', (rng): FunctionSpec => {
  const op = pick(rng, POSITIONS);
  const xs = intList(rng, int(rng, 4, 9), 0, 9);
  const second =
    op.tag === 'first_above'
      ? String(int(rng, 3, 10))
      : String(pick(rng, [...xs, int(rng, 0, 12)]));
  return {
    names: [op.tag, `get_${op.tag}`, `position_${op.tag}`],
    params: op.params,
    what: op.what,
    bodies: (p) => [op.body(p)],
    args: [pyRepr(xs), ...(op.params.length > 1 ? [second] : [])],
    wrong: (p) => [{ body: op.wrong(p), note: 'That does not return the position asked for.' }],
  };
});

/** Repeats in one list. */
const REPEATS = [
  {
    tag: 'count_distinct',
    what: (xs: string) => `returns how many different values ${xs} contains`,
    body: (xs: string) => `    return len(set(${xs}))`,
    wrong: (xs: string) => `    return len(${xs})`,
  },
  {
    tag: 'all_different',
    what: (xs: string) => `returns True if no value occurs twice in ${xs}, and False otherwise`,
    body: (xs: string) => `    return len(set(${xs})) == len(${xs})`,
    wrong: (xs: string) => `    return len(set(${xs})) > 1`,
  },
  {
    tag: 'repeated',
    what: (xs: string) =>
      `returns the values that occur more than once in ${xs}, each once, in order of first appearance`,
    body: (xs: string) =>
      `    out = []\n    for x in ${xs}:\n        if ${xs}.count(x) > 1 and x not in out:\n            out.append(x)\n    return out`,
    wrong: (xs: string) => `    return [x for x in ${xs} if ${xs}.count(x) > 1]`,
  },
  {
    tag: 'singles',
    what: (xs: string) =>
      `returns the values that occur exactly once in ${xs}, in their original order`,
    body: (xs: string) => `    return [x for x in ${xs} if ${xs}.count(x) == 1]`,
    wrong: (xs: string) => `    return list(set(${xs}))`,
  },
  {
    tag: 'without_duplicates',
    what: (xs: string) =>
      `returns ${xs} without duplicates, keeping the first occurrence of each value in its original order`,
    body: (xs: string) =>
      `    out = []\n    for x in ${xs}:\n        if x not in out:\n            out.append(x)\n    return out`,
    wrong: (xs: string) => `    return sorted(set(${xs}))`,
  },
];

const repeats = skill('repeats', (rng): FunctionSpec => {
  const op = pick(rng, REPEATS);
  return {
    names: [op.tag, `get_${op.tag}`],
    params: [NUMS],
    what: ([xs]) => op.what(xs!),
    bodies: ([xs]) => [op.body(xs!)],
    args: [pyRepr(intList(rng, int(rng, 4, 9), 1, 7))],
    wrong: ([xs]) => [{ body: op.wrong(xs!), note: 'Repeated values are not handled as asked.' }],
  };
});

/** Two lists at once. */
const PAIRS = [
  {
    tag: 'add_lists',
    what: (a: string, b: string) =>
      `returns the list of the sums of the elements of ${a} and ${b} at the same positions (both have the same length)`,
    body: (a: string, b: string) => `    return [x + y for x, y in zip(${a}, ${b})]`,
    wrong: (a: string, b: string) => `    return ${a} + ${b}`,
  },
  {
    tag: 'interleave',
    what: (a: string, b: string) =>
      `returns a list that takes one element of ${a}, then one of ${b}, and so on (both have the same length)`,
    body: (a: string, b: string) =>
      `    out = []\n    for x, y in zip(${a}, ${b}):\n        out.append(x)\n        out.append(y)\n    return out`,
    wrong: (a: string, b: string) => `    return ${a} + ${b}`,
  },
  {
    tag: 'common',
    what: (a: string, b: string) =>
      `returns the elements of ${a} that also occur in ${b}, in the order of ${a}`,
    body: (a: string, b: string) => `    return [x for x in ${a} if x in ${b}]`,
    wrong: (a: string, b: string) => `    return [x for x in ${b} if x in ${a}]`,
  },
  {
    tag: 'only_in_first',
    what: (a: string, b: string) =>
      `returns the elements of ${a} that do not occur in ${b}, in order`,
    body: (a: string, b: string) => `    return [x for x in ${a} if x not in ${b}]`,
    wrong: (a: string, b: string) => `    return [x for x in ${b} if x not in ${a}]`,
  },
  {
    tag: 'same_multiset',
    what: (a: string, b: string) =>
      `returns True if the lists ${a} and ${b} hold the same values, each the same number of times, in any order`,
    body: (a: string, b: string) => `    return sorted(${a}) == sorted(${b})`,
    wrong: (a: string, b: string) => `    return set(${a}) == set(${b})`,
  },
  {
    tag: 'dot',
    what: (a: string, b: string) =>
      `returns the sum of the products of the elements of ${a} and ${b} at the same positions`,
    body: (a: string, b: string) => `    return sum(x * y for x, y in zip(${a}, ${b}))`,
    wrong: (a: string, b: string) => `    return sum(${a}) * sum(${b})`,
  },
];

const pairs = skill('two_lists', (rng): FunctionSpec => {
  const op = pick(rng, PAIRS);
  const n = int(rng, 3, 6);
  const a = intList(rng, n, 0, 9);
  const b =
    op.tag === 'same_multiset' && rng.uniform() < 0.5
      ? [...a].sort(() => rng.uniform() - 0.5)
      : intList(rng, n, 0, 9);
  return {
    names: [op.tag, `${op.tag}_lists`],
    params: [
      ['a', 'xs', 'first', 'left'],
      ['b', 'ys', 'second', 'right'],
    ],
    what: ([x, y]) => op.what(x!, y!),
    bodies: ([x, y]) => [op.body(x!, y!)],
    args: [pyRepr(a), pyRepr(b)],
    wrong: ([x, y]) => [
      { body: op.wrong(x!, y!), note: 'The two lists are not combined as asked.' },
    ],
  };
});

/** Lists of lists: totals, per-row results, and elements kept by a condition (never all of them). */
const NESTED = [
  {
    tag: 'total',
    what: (g: string) => `returns the sum of all the numbers in the list of lists ${g}`,
    body: (g: string) => `    return sum(sum(row) for row in ${g})`,
    wrong: (g: string) => `    return sum(len(row) for row in ${g})`,
  },
  {
    tag: 'count_all',
    what: (g: string) => `returns how many numbers there are in the list of lists ${g} altogether`,
    body: (g: string) => `    return sum(len(row) for row in ${g})`,
    wrong: (g: string) => `    return len(${g})`,
  },
  {
    tag: 'largest_anywhere',
    what: (g: string) => `returns the largest number found in any of the non-empty lists in ${g}`,
    body: (g: string) => `    return max(max(row) for row in ${g})`,
    wrong: (g: string) => `    return max(${g})[0]`,
  },
  {
    tag: 'row_sums',
    what: (g: string) => `returns the list of the sums of each inner list of ${g}`,
    body: (g: string) => `    return [sum(row) for row in ${g}]`,
    wrong: (g: string) => `    return sum(sum(row) for row in ${g})`,
  },
  {
    tag: 'row_lengths',
    what: (g: string) => `returns the list of the lengths of the inner lists of ${g}`,
    body: (g: string) => `    return [len(row) for row in ${g}]`,
    wrong: (g: string) => `    return len(${g})`,
  },
  {
    tag: 'firsts',
    what: (g: string) =>
      `returns the list of the first element of each non-empty inner list of ${g}`,
    body: (g: string) => `    return [row[0] for row in ${g}]`,
    wrong: (g: string) => `    return ${g}[0]`,
  },
  {
    tag: 'longest_row',
    what: (g: string) =>
      `returns the longest inner list of ${g} (the first one if several are equally long)`,
    body: (g: string) => `    return max(${g}, key=len)`,
    wrong: (g: string) => `    return max(${g})`,
  },
];

const nested = skill('nested', (rng): FunctionSpec => {
  const filtered = rng.uniform() < 0.4;
  const grid = Array.from({ length: int(rng, 2, 4) }, () => intList(rng, int(rng, 1, 4), -3, 12));
  const gridArg = pyRepr(grid);
  if (filtered) {
    const cond = pick(
      rng,
      CONDITIONS.filter((c) => !c.param || c.param === 'bound'),
    );
    const t = String(int(rng, 0, 9));
    return {
      names: [`${cond.tag}_anywhere`, `collect_${cond.tag}`],
      params: [
        ['lists', 'rows', 'groups', 'grid', 'matrix', 'batches'],
        ...(cond.param ? (['bound'] as const) : []),
      ],
      what: ([g, p]) =>
        `takes a list of lists ${g} and returns a list of the numbers in it that ${cond.words(p ?? '')}, row by row in order`,
      bodies: ([g, p]) => [
        `    return [x for row in ${g} for x in row if ${cond.code('x', p ?? '')}]`,
        `    out = []\n    for row in ${g}:\n        for x in row:\n            if ${cond.code('x', p ?? '')}:\n                out.append(x)\n    return out`,
      ],
      args: [gridArg, ...(cond.param ? [t] : [])],
      wrong: ([g, p]) => [
        {
          body: `    return [row for row in ${g} if ${cond.code('row[0]', p ?? '')}]`,
          note: 'That keeps whole rows; keep the numbers inside them.',
        },
      ],
    };
  }
  const op = pick(rng, NESTED);
  return {
    names: [op.tag, `${op.tag}_of_rows`],
    params: [['lists', 'rows', 'groups', 'grid', 'matrix', 'batches']],
    what: ([g]) => op.what(g!),
    bodies: ([g]) => [op.body(g!)],
    args: [gridArg],
    wrong: ([g]) => [
      { body: op.wrong(g!), note: 'That is not computed over the inner lists as asked.' },
    ],
  };
});

/** Sorting by a key or in another order. */
const SORTS = [
  {
    tag: 'descending',
    words: true,
    what: (xs: string) => `returns the elements of ${xs} sorted from largest to smallest`,
    body: (xs: string) => `    return sorted(${xs}, reverse=True)`,
    wrong: (xs: string) => `    return sorted(${xs})`,
  },
  {
    tag: 'by_abs',
    words: false,
    what: (xs: string) =>
      `returns the elements of ${xs} sorted by their absolute value, smallest first`,
    body: (xs: string) => `    return sorted(${xs}, key=abs)`,
    wrong: (xs: string) => `    return sorted(${xs})`,
  },
  {
    tag: 'by_last_letter',
    words: true,
    what: (xs: string) =>
      `returns the words in ${xs} sorted by their last letter; words with the same last letter keep their original order`,
    body: (xs: string) => `    return sorted(${xs}, key=lambda w: w[-1])`,
    wrong: (xs: string) => `    return sorted(${xs})`,
  },
  {
    tag: 'k_smallest',
    words: false,
    k: true,
    what: (xs: string, k: string) =>
      `returns the ${k} smallest elements of ${xs}, in increasing order`,
    body: (xs: string, k: string) => `    return sorted(${xs})[:${k}]`,
    wrong: (xs: string, k: string) => `    return ${xs}[:${k}]`,
  },
  {
    tag: 'longest_first',
    words: true,
    what: (xs: string) =>
      `returns the words in ${xs} sorted by length, longest first; words of equal length keep their original order`,
    body: (xs: string) => `    return sorted(${xs}, key=len, reverse=True)`,
    wrong: (xs: string) => `    return sorted(${xs}, key=len)`,
  },
];

const WORD_POOL = [
  'fig',
  'apple',
  'kiwi',
  'banana',
  'plum',
  'cherry',
  'lime',
  'date',
  'mango',
  'pear',
  'grape',
  'melon',
  'sun',
  'moon',
  'star',
  'cloud',
];

const sorts = skill('sort', (rng): FunctionSpec => {
  const op = pick(rng, SORTS);
  const list = op.words
    ? Array.from({ length: int(rng, 3, 6) }, () => pick(rng, WORD_POOL))
    : intList(rng, int(rng, 4, 7), -9, 20);
  const hasK = 'k' in op && op.k;
  return {
    names: [`sort_${op.tag}`, `sorted_${op.tag}`, op.tag],
    params: [op.words ? 'words' : NUMS, ...(hasK ? [['k', 'n', 'count']] : [])],
    what: ([xs, k]) => op.what(xs!, k!),
    bodies: ([xs, k]) => [op.body(xs!, k!)],
    args: [pyRepr(list), ...(hasK ? [String(int(rng, 1, 3))] : [])],
    wrong: ([xs, k]) => [{ body: op.wrong(xs!, k!), note: 'The order is not the one asked for.' }],
  };
});

/** List skills. */
export const LIST_SKILLS: readonly Template[] = [
  listAggregate,
  listAggregate,
  listMap,
  neighbours,
  slices,
  positions,
  repeats,
  pairs,
  nested,
  sorts,
];
