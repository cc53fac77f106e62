// Skills on integers: aggregates over ranges with a condition, digits, divisors, predicates,
// formulas rounded to some decimals, loops that count steps. Left out on purpose (held_out.ts):
// counting the multiples of a number in a range (count_multiples), anything about primes
// (is_prime), temperature conversions (c_to_f).
import type { Rng } from '../../src/model/rng.ts';
import { skill, type FunctionSpec } from './skill.ts';
import { int, pick, type Template } from './template.ts';

/** A condition on an integer `x`: plural and singular verb phrases, and Python. */
interface Condition {
  are: (k: string) => string;
  is: (k: string) => string;
  code: (x: string, k: string) => string;
  /** Whether the condition takes a divisor parameter. */
  divisor: boolean;
  tag: string;
}

const CONDITIONS: readonly Condition[] = [
  {
    are: () => 'are even',
    is: () => 'is even',
    code: (x) => `${x} % 2 == 0`,
    divisor: false,
    tag: 'even',
  },
  {
    are: () => 'are odd',
    is: () => 'is odd',
    code: (x) => `${x} % 2 == 1`,
    divisor: false,
    tag: 'odd',
  },
  {
    are: (k) => `are divisible by ${k}`,
    is: (k) => `is divisible by ${k}`,
    code: (x, k) => `${x} % ${k} == 0`,
    divisor: true,
    tag: 'multiples',
  },
  {
    are: (k) => `are not divisible by ${k}`,
    is: (k) => `is not divisible by ${k}`,
    code: (x, k) => `${x} % ${k} != 0`,
    divisor: true,
    tag: 'non_multiples',
  },
  {
    are: () => 'are perfect squares',
    is: () => 'is a perfect square',
    code: (x) => `int(${x} ** 0.5) ** 2 == ${x}`,
    divisor: false,
    tag: 'squares',
  },
  {
    are: (k) => `leave remainder 1 when divided by ${k}`,
    is: (k) => `leaves remainder 1 when divided by ${k}`,
    code: (x, k) => `${x} % ${k} == 1`,
    divisor: true,
    tag: 'rem_one',
  },
  {
    are: () => 'end in the digit 7',
    is: () => 'ends in the digit 7',
    code: (x) => `${x} % 10 == 7`,
    divisor: false,
    tag: 'ending_7',
  },
];

/** A range an aggregate runs over: its parameters, wordings, Python, a wrong bound, arguments. */
interface RangeSpec {
  params: readonly ('int' | readonly string[])[];
  words: readonly ((p: string[]) => string)[];
  range: (p: string[]) => string;
  wrong: (p: string[]) => string;
  args: (rng: Rng) => string[];
}

const LOW = ['a', 'lo', 'low', 'start', 'first'];
const HIGH = ['b', 'hi', 'high', 'stop', 'last', 'end'];

const RANGES: readonly RangeSpec[] = [
  {
    params: ['int'],
    words: [([n]) => `from 1 to ${n}, including ${n}`, ([n]) => `between 1 and ${n} inclusive`],
    range: ([n]) => `range(1, ${n} + 1)`,
    wrong: ([n]) => `range(1, ${n})`,
    args: (rng) => [String(int(rng, 8, 60))],
  },
  {
    params: [LOW, HIGH],
    words: [
      ([a, b]) => `from ${a} to ${b}, both included`,
      ([a, b]) => `between ${a} and ${b}, inclusive`,
      ([a, b]) => `in the range ${a} to ${b} (both ends included)`,
    ],
    range: ([a, b]) => `range(${a}, ${b} + 1)`,
    wrong: ([a, b]) => `range(${a}, ${b})`,
    args: (rng) => {
      const a = int(rng, 0, 30);
      return [String(a), String(a + int(rng, 5, 40))];
    },
  },
  {
    params: ['int'],
    words: [([n]) => `below ${n}`, ([n]) => `from 0 up to but not including ${n}`],
    range: ([n]) => `range(${n})`,
    wrong: ([n]) => `range(1, ${n} + 1)`,
    args: (rng) => [String(int(rng, 8, 60))],
  },
];

/**
 * count / sum / list / largest of the integers in a range that meet a condition. Counting the
 * integers of a range that a number divides is the held-out task count_multiples, so counting is
 * never paired with a divisor.
 */
const rangeAggregate = skill('range_aggregate', (rng): FunctionSpec => {
  const aggregate = pick(rng, ['count', 'sum', 'list', 'max'] as const);
  const condition = pick(
    rng,
    CONDITIONS.filter((c) => aggregate !== 'count' || !c.divisor),
  );
  const range = pick(rng, RANGES);
  const words = pick(rng, range.words);
  const divisorAt = range.params.length;
  const k = (p: string[]) => (condition.divisor ? p[divisorAt]! : '');
  // The loop variable, never one of the parameters.
  const v = (p: string[]) => (p.includes('x') ? 'i' : 'x');
  const test = (p: string[]) => condition.code(v(p), k(p));
  const lead = {
    count: pick(rng, ['returns how many integers', 'returns the number of integers']),
    sum: pick(rng, ['returns the sum of the integers', 'adds up the integers']),
    list: pick(rng, ['returns a list of the integers', 'returns the integers']),
    max: 'returns the largest integer',
  }[aggregate];
  const prefix = pick(
    rng,
    {
      count: ['count_', 'how_many_', 'num_'],
      sum: ['sum_', 'total_', 'add_'],
      list: ['list_', 'get_', 'find_'],
      max: ['largest_', 'max_', 'biggest_'],
    }[aggregate],
  );
  return {
    names: [`${prefix}${condition.tag}`, `${prefix}${condition.tag}_in_range`],
    params: [...range.params, ...(condition.divisor ? (['divisor'] as const) : [])],
    what: (p) => {
      const where = words(p);
      if (aggregate === 'count') return `${lead} ${where} ${condition.are(k(p))}`;
      if (aggregate === 'max')
        return `${lead} ${where} that ${condition.is(k(p))}, or None if there is none`;
      const tail = aggregate === 'list' ? ', in increasing order' : '';
      return `${lead} ${where} that ${condition.are(k(p))}${tail}`;
    },
    bodies: (p) => {
      const r = range.range(p);
      const t = test(p);
      const x = v(p);
      switch (aggregate) {
        case 'count':
          return [
            `    return sum(1 for ${x} in ${r} if ${t})`,
            `    return len([${x} for ${x} in ${r} if ${t}])`,
            `    count = 0\n    for ${x} in ${r}:\n        if ${t}:\n            count += 1\n    return count`,
          ];
        case 'sum':
          return [
            `    return sum(${x} for ${x} in ${r} if ${t})`,
            `    total = 0\n    for ${x} in ${r}:\n        if ${t}:\n            total += ${x}\n    return total`,
          ];
        case 'list':
          return [
            `    return [${x} for ${x} in ${r} if ${t}]`,
            `    out = []\n    for ${x} in ${r}:\n        if ${t}:\n            out.append(${x})\n    return out`,
          ];
        case 'max':
          return [
            `    found = [${x} for ${x} in ${r} if ${t}]\n    return max(found) if found else None`,
            `    best = None\n    for ${x} in ${r}:\n        if ${t}:\n            best = ${x}\n    return best`,
          ];
      }
    },
    args: [...range.args(rng), ...(condition.divisor ? [String(int(rng, 2, 9))] : [])],
    wrong: (p) => {
      const r = range.wrong(p);
      const t = test(p);
      const x = v(p);
      const body = {
        count: `    return sum(1 for ${x} in ${r} if ${t})`,
        sum: `    return sum(${x} for ${x} in ${r} if ${t})`,
        list: `    return [${x} for ${x} in ${r} if ${t}]`,
        max: `    found = [${x} for ${x} in ${r} if ${t}]\n    return max(found) if found else None`,
      }[aggregate];
      return [{ body, note: `${r} does not cover the range asked for; fix the bounds.` }];
    },
  };
});

/** Operations on the decimal digits of a non-negative integer `n`. */
const DIGIT_OPS = [
  {
    tag: 'digit_product',
    what: (n: string) =>
      `returns the product of the decimal digits of the non-negative integer ${n}`,
    body: (n: string) =>
      `    result = 1\n    for c in str(${n}):\n        result *= int(c)\n    return result`,
    wrong: (n: string) =>
      `    result = 0\n    for c in str(${n}):\n        result *= int(c)\n    return result`,
    note: 'A product must start at 1, not 0.',
  },
  {
    tag: 'digit_count',
    what: (n: string) => `returns how many decimal digits the non-negative integer ${n} has`,
    body: (n: string) => `    return len(str(${n}))`,
    wrong: (n: string) => `    return len(${n})`,
    note: 'An int has no len(); count the characters of str() of it.',
  },
  {
    tag: 'max_digit',
    what: (n: string) => `returns the largest decimal digit of the non-negative integer ${n}`,
    body: (n: string) => `    return max(int(c) for c in str(${n}))`,
    wrong: (n: string) => `    return max(str(${n}))`,
    note: 'That returns a character; convert the digits to int.',
  },
  {
    tag: 'even_digits',
    what: (n: string) =>
      `returns how many of the decimal digits of the non-negative integer ${n} are even`,
    body: (n: string) => `    return sum(1 for c in str(${n}) if int(c) % 2 == 0)`,
    wrong: (n: string) => `    return sum(int(c) for c in str(${n}) if int(c) % 2 == 0)`,
    note: 'That adds the even digits; count them instead.',
  },
  {
    tag: 'digit_squares',
    what: (n: string) => `returns the sum of the squares of the decimal digits of ${n}`,
    body: (n: string) => `    return sum(int(c) ** 2 for c in str(${n}))`,
    wrong: (n: string) => `    return sum(int(c) for c in str(${n})) ** 2`,
    note: 'Square each digit before adding.',
  },
  {
    tag: 'sorted_digits',
    what: (n: string) =>
      `returns the integer made of the decimal digits of ${n} sorted from largest to smallest`,
    body: (n: string) => `    return int(''.join(sorted(str(${n}), reverse=True)))`,
    wrong: (n: string) => `    return int(''.join(sorted(str(${n}))))`,
    note: 'That sorts smallest first; reverse the order.',
  },
  {
    tag: 'reads_same_backwards',
    what: (n: string) =>
      `returns True if the digits of ${n} read the same backwards, and False otherwise`,
    body: (n: string) => `    return str(${n}) == str(${n})[::-1]`,
    wrong: (n: string) => `    return ${n} == str(${n})[::-1]`,
    note: 'An int never equals a string; compare the string with its reverse.',
  },
];

const digits = skill('digits', (rng): FunctionSpec => {
  const op = pick(rng, DIGIT_OPS);
  const half = String(int(rng, 1, 999));
  const mirrored = half + [...half].reverse().join('');
  const value =
    op.tag === 'reads_same_backwards' && rng.uniform() < 0.5
      ? mirrored
      : String(int(rng, 10, 999999));
  return {
    names: [op.tag, `get_${op.tag}`, `${op.tag}_of`],
    params: ['int'],
    what: ([n]) => op.what(n!),
    bodies: ([n]) => [op.body(n!)],
    args: [value],
    wrong: ([n]) => [{ body: op.wrong(n!), note: op.note }],
  };
});

/** Divisors of n: how many, their sum, their list, the largest below n. */
const DIVISOR_OPS = [
  {
    tag: 'count_divisors',
    what: (n: string) => `returns how many positive divisors the positive integer ${n} has`,
    body: (n: string, d: string, r: string) =>
      `    return sum(1 for ${d} in ${r} if ${n} % ${d} == 0)`,
  },
  {
    tag: 'divisor_sum',
    what: (n: string) => `returns the sum of all positive divisors of ${n}, including ${n} itself`,
    body: (n: string, d: string, r: string) =>
      `    return sum(${d} for ${d} in ${r} if ${n} % ${d} == 0)`,
  },
  {
    tag: 'divisors',
    what: (n: string) => `returns the list of the positive divisors of ${n} in increasing order`,
    body: (n: string, d: string, r: string) =>
      `    return [${d} for ${d} in ${r} if ${n} % ${d} == 0]`,
  },
];

const divisors = skill('divisors', (rng): FunctionSpec => {
  const op = pick(rng, DIVISOR_OPS);
  const d = pick(rng, ['d', 'i', 'j', 'div']);
  return {
    names: [op.tag, `get_${op.tag}`],
    params: [['n', 'num', 'value', 'x']],
    what: ([n]) => op.what(n!),
    bodies: ([n]) => [op.body(n!, d, `range(1, ${n} + 1)`)],
    args: [String(int(rng, 6, 120))],
    wrong: ([n]) => [
      {
        body: op.body(n!, d, `range(1, ${n})`),
        note: 'The range stops before n itself; include it.',
      },
    ],
  };
});

/** True/False questions about integers, in the "returns True if ... and False otherwise" form. */
const INT_PREDICATES = [
  {
    tag: 'is_square',
    params: [['n', 'x', 'num']] as const,
    what: ([n]: string[]) =>
      `returns True if ${n} is a perfect square (the square of a whole number) and False otherwise`,
    body: ([n]: string[]) => `    r = int(${n} ** 0.5)\n    return r * r == ${n}`,
    wrong: ([n]: string[]) => `    return ${n} ** 0.5 == ${n} // 2`,
    args: (r: Rng) => [String(r.uniform() < 0.5 ? int(r, 2, 30) ** 2 : int(r, 2, 900))],
  },
  {
    tag: 'is_power_of_two',
    params: [['n', 'x', 'num']] as const,
    what: ([n]: string[]) =>
      `returns True if the positive integer ${n} is a power of two (1, 2, 4, 8, ...) and False otherwise`,
    body: ([n]: string[]) => `    while ${n} % 2 == 0:\n        ${n} //= 2\n    return ${n} == 1`,
    wrong: ([n]: string[]) => `    return ${n} % 2 == 0`,
    args: (r: Rng) => [String(r.uniform() < 0.5 ? 2 ** int(r, 0, 12) : int(r, 3, 500))],
  },
  {
    tag: 'divisible_by_both',
    params: ['int', 'divisor', 'divisor'] as const,
    what: ([n, a, b]: string[]) =>
      `returns True if ${n} is divisible by both ${a} and ${b}, and False otherwise`,
    body: ([n, a, b]: string[]) => `    return ${n} % ${a} == 0 and ${n} % ${b} == 0`,
    wrong: ([n, a, b]: string[]) => `    return ${n} % ${a} == 0 or ${n} % ${b} == 0`,
    args: (r: Rng) => [String(int(r, 10, 200)), String(int(r, 2, 6)), String(int(r, 3, 9))],
  },
  {
    tag: 'in_range',
    params: [['x', 'n', 'value'], LOW, HIGH] as const,
    what: ([x, lo, hi]: string[]) =>
      `returns True if ${x} lies between ${lo} and ${hi}, both included, and False otherwise`,
    body: ([x, lo, hi]: string[]) => `    return ${lo} <= ${x} <= ${hi}`,
    wrong: ([x, lo, hi]: string[]) => `    return ${lo} < ${x} < ${hi}`,
    args: (r: Rng) => {
      const lo = int(r, 0, 50);
      const hi = lo + int(r, 1, 30);
      return [String(pick(r, [lo, hi, int(r, lo - 5, hi + 5)])), String(lo), String(hi)];
    },
  },
  {
    tag: 'is_perfect',
    params: [['n', 'x', 'num']] as const,
    what: ([n]: string[]) =>
      `returns True if ${n} equals the sum of its positive divisors smaller than itself, and False otherwise`,
    body: ([n]: string[]) => `    return sum(d for d in range(1, ${n}) if ${n} % d == 0) == ${n}`,
    wrong: ([n]: string[]) =>
      `    return sum(d for d in range(1, ${n} + 1) if ${n} % d == 0) == ${n}`,
    args: (r: Rng) => [String(pick(r, [6, 28, 496, int(r, 2, 100), int(r, 2, 100)]))],
  },
];

const predicates = skill('int_predicate', (rng): FunctionSpec => {
  const op = pick(rng, INT_PREDICATES);
  return {
    names: [op.tag, op.tag.replace(/^is_/, 'check_'), `${op.tag}_number`],
    params: op.params,
    what: op.what,
    bodies: (p) => [op.body(p)],
    args: op.args(rng),
    wrong: (p) => [
      { body: op.wrong(p), note: 'That tests another condition than the one asked for.' },
    ],
  };
});

/** Formulas given in the prompt, rounded. No temperatures: c_to_f is held out. */
const FORMULAS = [
  {
    from: 'kilometres',
    to: 'miles',
    letter: 'K',
    out: 'M',
    expr: (x: string) => `${x} * 0.621371`,
    params: ['km', 'kilometres', 'dist'],
  },
  {
    from: 'miles',
    to: 'kilometres',
    letter: 'M',
    out: 'K',
    expr: (x: string) => `${x} * 1.609344`,
    params: ['miles', 'dist', 'distance'],
  },
  {
    from: 'kilograms',
    to: 'pounds',
    letter: 'K',
    out: 'P',
    expr: (x: string) => `${x} * 2.20462`,
    params: ['kg', 'mass', 'weight'],
  },
  {
    from: 'pounds',
    to: 'kilograms',
    letter: 'P',
    out: 'K',
    expr: (x: string) => `${x} / 2.20462`,
    params: ['lb', 'pounds', 'weight'],
  },
  {
    from: 'inches',
    to: 'centimetres',
    letter: 'I',
    out: 'C',
    expr: (x: string) => `${x} * 2.54`,
    params: ['inches', 'length', 'size'],
  },
  {
    from: 'hours',
    to: 'minutes',
    letter: 'H',
    out: 'M',
    expr: (x: string) => `${x} * 60`,
    params: ['hours', 'h', 'time'],
  },
  {
    from: 'a radius',
    to: 'the area of a circle',
    letter: 'R',
    out: 'A',
    expr: (x: string) => `3.14159 * ${x} * ${x}`,
    params: ['r', 'radius'],
  },
  {
    from: 'a speed in km/h',
    to: 'metres per second',
    letter: 'V',
    out: 'S',
    expr: (x: string) => `${x} * 1000 / 3600`,
    params: ['speed', 'kmh', 'v'],
  },
  {
    from: 'a price',
    to: 'the price with tax',
    letter: 'P',
    out: 'T',
    expr: (x: string) => `${x} * 1.2 + 5`,
    params: ['price', 'cost', 'amount'],
  },
  {
    from: 'a raw score',
    to: 'a grade',
    letter: 'S',
    out: 'G',
    expr: (x: string) => `${x} * 4 / 100 + 1`,
    params: ['score', 'raw', 'points'],
  },
  {
    from: 'seconds',
    to: 'hours',
    letter: 'S',
    out: 'H',
    expr: (x: string) => `${x} / 3600`,
    params: ['seconds', 'secs', 'duration'],
  },
  {
    from: 'a side length',
    to: 'the diagonal of a square',
    letter: 'A',
    out: 'D',
    expr: (x: string) => `${x} * 1.41421`,
    params: ['side', 'a', 'length'],
  },
  {
    from: 'a number of days',
    to: 'weeks',
    letter: 'D',
    out: 'W',
    expr: (x: string) => `${x} / 7`,
    params: ['days', 'n_days', 'd'],
  },
  {
    from: 'a length in feet',
    to: 'metres',
    letter: 'F',
    out: 'M',
    expr: (x: string) => `${x} * 0.3048`,
    params: ['feet', 'ft', 'length'],
  },
];

const formula = skill('formula', (rng): FunctionSpec => {
  const f = pick(rng, FORMULAS);
  const places = pick(rng, [1, 1, 2, 2, 3]);
  const placesWords = places === 1 ? '1 decimal place' : `${places} decimal places`;
  const last = (words: string) =>
    words
      .split(' ')
      .at(-1)!
      .replace(/[^a-z]/g, '');
  const value = pick(rng, [String(int(rng, 1, 200)), `${int(rng, 1, 99)}.${int(rng, 1, 9)}`]);
  return {
    names: [`${last(f.from)}_to_${last(f.to)}`, `convert_${last(f.to)}`, `to_${last(f.to)}`],
    params: [f.params],
    what: () =>
      `converts ${f.from} to ${f.to} (${f.out} = ${f.expr(f.letter)}), rounded to ${placesWords}`,
    bodies: ([x]) => [
      `    return round(${f.expr(x!)}, ${places})`,
      `    result = ${f.expr(x!)}\n    return round(result, ${places})`,
    ],
    args: [value],
    wrong: ([x]) => [
      { body: `    return ${f.expr(x!)}`, note: `The result must be rounded to ${placesWords}.` },
      {
        body: `    return round(${f.expr(x!)})`,
        note: `round() without a second argument drops every decimal; round to ${places}.`,
      },
    ],
  };
});

/** Loops that repeat until a condition holds, counting the steps (and one closed sum). */
const STEP_LOOPS = [
  {
    tag: 'halvings',
    params: ['int'] as const,
    what: ([n]: string[]) =>
      `returns how many times the positive integer ${n} can be halved with integer division before it reaches 1`,
    body: ([n]: string[]) =>
      `    steps = 0\n    while ${n} > 1:\n        ${n} //= 2\n        steps += 1\n    return steps`,
    wrong: ([n]: string[]) =>
      `    steps = 0\n    while ${n} > 0:\n        ${n} //= 2\n        steps += 1\n    return steps`,
    args: (r: Rng) => [String(int(r, 2, 5000))],
  },
  {
    tag: 'digit_rounds',
    params: ['int'] as const,
    what: ([n]: string[]) =>
      `returns how many times ${n} must be replaced by the sum of its digits until a single digit is left`,
    body: ([n]: string[]) =>
      `    steps = 0\n    while ${n} >= 10:\n        ${n} = sum(int(c) for c in str(${n}))\n        steps += 1\n    return steps`,
    wrong: ([n]: string[]) =>
      `    steps = 1\n    while ${n} >= 10:\n        ${n} = sum(int(c) for c in str(${n}))\n        steps += 1\n    return steps`,
    args: (r: Rng) => [String(int(r, 5, 99999))],
  },
  {
    tag: 'doublings',
    params: ['int', 'bound'] as const,
    what: ([n, t]: string[]) =>
      `returns how many times ${n} must be doubled to reach at least ${t}`,
    body: ([n, t]: string[]) =>
      `    steps = 0\n    while ${n} < ${t}:\n        ${n} *= 2\n        steps += 1\n    return steps`,
    wrong: ([n, t]: string[]) =>
      `    steps = 0\n    while ${n} <= ${t}:\n        ${n} *= 2\n        steps += 1\n    return steps`,
    args: (r: Rng) => [String(int(r, 1, 9)), String(int(r, 10, 5000))],
  },
  {
    tag: 'sum_of_squares',
    params: ['int'] as const,
    what: ([n]: string[]) => `returns the sum of the squares 1*1 + 2*2 + ... + ${n}*${n}`,
    body: ([n]: string[]) => `    return sum(i * i for i in range(1, ${n} + 1))`,
    wrong: ([n]: string[]) => `    return sum(i * i for i in range(${n}))`,
    args: (r: Rng) => [String(int(r, 2, 40))],
  },
];

const stepLoops = skill('step_loop', (rng): FunctionSpec => {
  const op = pick(rng, STEP_LOOPS);
  return {
    names: [op.tag, `count_${op.tag}`, `${op.tag}_needed`],
    params: op.params,
    what: op.what,
    bodies: (p) => [op.body(p)],
    args: op.args(rng),
    wrong: (p) => [
      { body: op.wrong(p), note: 'The loop stops at the wrong moment; fix its condition.' },
    ],
  };
});

/** Number skills. */
export const NUMBER_SKILLS: readonly Template[] = [
  rangeAggregate,
  digits,
  divisors,
  predicates,
  formula,
  stepLoops,
];
