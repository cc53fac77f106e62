// Templates for the `search` family's train split, itertools and the rest (collections, string,
// re, str methods, builtins); templates_search.ts has the whole list.
import { int, pick, pyRepr, sample } from './template.ts';
import { attempt, guess, ints, STDLIB, template, uses } from './search_template.ts';
import type { SearchTemplate } from './transcripts_search.ts';

const LETTERS = 'abcdefghkmnprstwxyz';

export const ITERTOOLS: SearchTemplate[] = [
  template('letter_orderings', (rng) => {
    const s = sample(rng, [...LETTERS], int(rng, 3, 5)).join('');
    const r = int(rng, 2, 3);
    return {
      prompt: `Using the standard library, generate every ${r}-letter arrangement of the letters of '${s}' (order matters, no letter twice) and print how many there are.`,
      solution: uses('itertools', `len(list(itertools.permutations('${s}', ${r})))`),
      queries: [
        'all orderings arrangements of items of length r',
        'every ordering of r items from a sequence',
        'all arrangements of r items where order matters',
      ],
      wrongNames: [
        guess('itertools', 'arrangements', `'${s}', ${r}`, 'print(len(list(%)))'),
        guess('itertools', 'orderings', `'${s}', ${r}`, 'print(len(list(%)))'),
        guess(null, 'permutations', `'${s}', ${r}`, 'print(len(list(%)))'),
      ],
      handRolled: [
        attempt(uses('itertools', `len(list(itertools.combinations('${s}', ${r})))`)),
        attempt(`print(len('${s}') * ${r})`),
      ],
    };
  }),
  template('running_totals', (rng) => {
    const list = pyRepr(ints(rng, int(rng, 4, 6), 1, 9));
    return {
      prompt: pick(rng, [
        `Using the standard library, print the running totals of ${list} as a list, without writing a loop.`,
        `Using the standard library, print the cumulative sums of ${list} as a list, without writing a loop.`,
      ]),
      solution: uses('itertools', `list(itertools.accumulate(${list}))`),
      queries: [
        'running totals cumulative sums',
        'cumulative sum of a list',
        'running totals of a list',
      ],
      wrongNames: [
        guess('itertools', 'cumsum', list, 'print(list(%))'),
        guess('itertools', 'running_sum', list, 'print(list(%))'),
        guess('math', 'cumsum', list, 'print(list(%))'),
      ],
      handRolled: [
        attempt(`print(sum(${list}))`),
        attempt(`xs = ${list}\nprint([sum(xs[:i]) for i in range(len(xs))])`),
      ],
    };
  }),
  template('neighbours', (rng) => {
    const list = pyRepr(ints(rng, int(rng, 4, 6), 1, 20));
    return {
      prompt: `Using the standard library, print the list of overlapping pairs of consecutive items in ${list}, as tuples.`,
      solution: uses('itertools', `list(itertools.pairwise(${list}))`),
      queries: [
        'overlapping pairs of consecutive items',
        'successive overlapping pairs from an iterable',
        'consecutive overlapping pairs',
        'sliding window of pairs',
      ],
      wrongNames: [
        guess('itertools', 'pairs', list, 'print(list(%))'),
        guess('itertools', 'consecutive', list, 'print(list(%))'),
        guess('itertools', 'sliding_window', `${list}, 2`, 'print(list(%))'),
        guess(null, 'pairwise', list, 'print(list(%))'),
      ],
      handRolled: [
        attempt(`xs = ${list}\nprint(list(zip(xs, xs)))`),
        attempt(`xs = ${list}\nprint([(xs[i], xs[i + 1]) for i in range(0, len(xs) - 1, 2)])`),
      ],
    };
  }),
  template('pick_two', (rng) => {
    const s = sample(rng, [...LETTERS], int(rng, 3, 4)).join('');
    const r = s.length === 4 ? int(rng, 2, 3) : 2;
    return {
      prompt: `Using the standard library, print every way to pick ${r} letters from '${s}' when order does not matter, as a list of tuples.`,
      solution: uses('itertools', `list(itertools.combinations('${s}', ${r}))`),
      queries: [
        'all subsets of r items without order combinations',
        'every way to pick r items where order does not matter',
        'all combinations of r items',
      ],
      wrongNames: [
        guess('itertools', 'choose', `'${s}', ${r}`, 'print(list(%))'),
        guess('itertools', 'subsets', `'${s}', ${r}`, 'print(list(%))'),
        guess(null, 'combinations', `'${s}', ${r}`, 'print(list(%))'),
      ],
      handRolled: [
        attempt(uses('itertools', `list(itertools.permutations('${s}', ${r}))`)),
        attempt(`print([c for c in '${s}'])`),
      ],
    };
  }),
  template('strings_of_length', (rng) => {
    const s = sample(rng, [...LETTERS], int(rng, 2, 3)).join('');
    const n = int(rng, 2, 4);
    return {
      prompt: `Using the standard library, generate every ${n}-character string over the letters '${s}' (letters may repeat) and print how many there are.`,
      solution: uses('itertools', `len(list(itertools.product('${s}', repeat=${n})))`),
      queries: [
        'cartesian product of iterables repeat',
        'cartesian product',
        'all tuples of length n over the same items, cartesian product',
      ],
      wrongNames: [
        guess('itertools', 'cartesian', `'${s}', repeat=${n}`, 'print(len(list(%)))'),
        guess('itertools', 'strings', `'${s}', ${n}`, 'print(len(list(%)))'),
        guess(null, 'product', `'${s}', repeat=${n}`, 'print(len(list(%)))'),
      ],
      handRolled: [
        attempt(`print(len('${s}') * ${n})`),
        attempt(uses('itertools', `len(list(itertools.permutations('${s}', ${n})))`)),
      ],
    };
  }),
  template('join_lists', (rng) => {
    const parts = [int(rng, 1, 3), int(rng, 1, 2), int(rng, 1, 3)];
    const values = ints(rng, parts[0]! + parts[1]! + parts[2]!, 1, 30);
    const lists = [
      values.slice(0, parts[0]),
      values.slice(parts[0], parts[0]! + parts[1]!),
      values.slice(parts[0]! + parts[1]!),
    ].map(pyRepr);
    const [a, b, c] = lists;
    return {
      prompt: `Using the standard library, join the lists ${a}, ${b} and ${c} end to end into one list without writing a loop, and print it.`,
      solution: uses('itertools', `list(itertools.chain(${a}, ${b}, ${c}))`),
      queries: [
        'join several iterables one after another into one',
        'chain iterables one after another',
        'chain several lists into one',
        'iterate over several iterables one after another',
      ],
      wrongNames: [
        guess('itertools', 'concat', `${a}, ${b}, ${c}`, 'print(list(%))'),
        guess('itertools', 'join', `${a}, ${b}, ${c}`, 'print(list(%))'),
        guess('itertools', 'merge', `${a}, ${b}, ${c}`, 'print(list(%))'),
      ],
      handRolled: [attempt(`print([${a}, ${b}, ${c}])`), attempt(`print(${a} + ${b})`)],
    };
  }),
];

/** Words whose most common letter is unique (a tie would make the answer order-dependent). */
const COUNT_WORDS = [
  'abracadabra',
  'bookkeeper',
  'assess',
  'referee',
  'parallel',
  'success',
  'pepper',
  'cheese',
  'tomorrow',
  'possess',
];

export const OTHERS: SearchTemplate[] = [
  template('top_letter', (rng) => {
    const word = pick(rng, COUNT_WORDS);
    return {
      prompt: pick(rng, [
        `Using the standard library, print the letter that occurs most often in '${word}' and how many times, as a tuple.`,
        `${pick(rng, STDLIB)} print the most common letter of '${word}' together with its count, as a tuple.`,
      ]),
      solution: uses('collections', `collections.Counter('${word}').most_common(1)[0]`),
      queries: [
        'count how often each item occurs most common',
        'count occurrences of each letter',
        'count of each item most common',
        'most common letter and its count',
        'count each letter',
      ],
      wrongNames: [
        guess('collections', 'Tally', `'${word}'`, 'print(%.most_common(1)[0])'),
        guess('collections', 'counter', `'${word}'`, 'print(%.most_common(1)[0])'),
        guess(null, 'Counter', `'${word}'`, 'print(%.most_common(1)[0])'),
      ],
      handRolled: [
        attempt(`word = '${word}'\nprint((max(word), word.count(max(word))))`),
        attempt(`word = '${word}'\nprint((word[-1], word.count(word[-1])))`),
        attempt(`word = '${word}'\nprint(max(word.count(c) for c in word))`),
      ],
    };
  }),
  template('rotate_right', (rng) => {
    const xs = ints(rng, int(rng, 4, 7), 1, 9);
    const k = int(rng, 1, xs.length - 1);
    const list = pyRepr(xs);
    const rotate = (call: string) =>
      `import collections\nitems = ${call}\nitems.rotate(${k})\nprint(list(items))\n`;
    return {
      prompt: `Using a standard library container with a built-in rotate operation, rotate ${list} ${k === 1 ? 'one place' : `${k} places`} to the right and print the result as a list.`,
      solution: rotate(`collections.deque(${list})`),
      queries: [
        'double-ended queue rotate',
        'rotate a sequence to the right',
        'deque rotate',
        'rotate items of a queue',
      ],
      wrongNames: [
        attempt(rotate(`collections.RotatingList(${list})`)),
        attempt(rotate(`collections.Deque(${list})`)),
        attempt(rotate(`collections.queue(${list})`)),
      ],
      handRolled: [
        attempt(`xs = ${list}\nprint(xs[${k}:] + xs[:${k}])`),
        attempt(`xs = ${list}\nprint(xs[::-1])`),
      ],
    };
  }),
  template('alphabet', (rng) => {
    const n = int(rng, 5, 26);
    const whole = n === 26 || rng.uniform() < 0.4;
    const expression = whole ? 'string.ascii_lowercase' : `string.ascii_lowercase[:${n}]`;
    const prompt = whole
      ? 'Using the standard library, print the 26 lowercase English letters as one string, without typing them out.'
      : `Using the standard library, print the first ${n} lowercase English letters as one string, without typing them out.`;
    const count = whole ? 26 : n;
    return {
      prompt,
      solution: uses('string', expression),
      queries: [
        'lowercase letters of the alphabet as a string',
        'all lowercase ascii letters',
        'the lowercase alphabet as a string',
      ],
      wrongNames: [
        attempt(uses('string', expression.replace('ascii_lowercase', 'lowercase'))),
        attempt(uses('string', expression.replace('ascii_lowercase', 'alphabet'))),
        attempt(uses('string', expression.replace('ascii_lowercase', 'letters'))),
      ],
      handRolled: [
        attempt(`print(''.join(chr(i) for i in range(97, ${97 + count - 1})))`),
        attempt(`print(''.join(chr(i) for i in range(65, ${65 + count})))`),
      ],
    };
  }),
  template('digit_runs', (rng) => {
    const chunks: string[] = [];
    const runs = int(rng, 2, 4);
    for (let i = 0; i < runs; i++)
      chunks.push(
        sample(rng, [...LETTERS], int(rng, 1, 3)).join(''),
        String(int(rng, i === 0 ? 10 : 1, i === 0 ? 99 : 999)),
      );
    const s = chunks.join('');
    return {
      prompt: pick(rng, [
        `Using the standard library's regular expressions, print the list of all runs of digits in '${s}'.`,
        `With the standard library's regular expressions, print every run of digits in '${s}' as a list.`,
      ]),
      solution: uses('re', `re.findall(r'\\d+', '${s}')`),
      queries: [
        'find all matches of a regular expression pattern in a string',
        'list of all matches of a pattern',
        'all matches of a regular expression',
      ],
      wrongNames: [
        attempt(uses('re', `re.find_all(r'\\d+', '${s}')`)),
        attempt(uses('re', `re.matchall(r'\\d+', '${s}')`)),
        attempt(uses('re', `re.search_all(r'\\d+', '${s}')`)),
      ],
      handRolled: [
        attempt(uses('re', `re.search(r'\\d+', '${s}').group()`)),
        attempt(`print([c for c in '${s}' if c.isdigit()])`),
      ],
    };
  }),
  template('zero_pad', (rng) => {
    const n = String(int(rng, 1, 999));
    const width = n.length + int(rng, 1, 4);
    return {
      prompt: `Using a built-in string method, print the number ${n} padded on the left with zeros to ${width} characters (the string '${n}' made ${width} long).`,
      solution: `print('${n}'.zfill(${width}))\n`,
      queries: [
        'pad a string with zeros on the left',
        'left pad a numeric string with zeros',
        'fill a string with zeros on the left',
      ],
      wrongNames: [
        attempt(`print('${n}'.zeropad(${width}))`),
        attempt(`print('${n}'.padleft(${width}, '0'))`),
        attempt(`print('${n}'.lpad(${width}, '0'))`),
      ],
      handRolled: [
        attempt(`print('0' * ${width} + '${n}')`),
        attempt(`print('${n}' + '0' * ${width - n.length})`),
      ],
    };
  }),
  template('quotient_remainder', (rng) => {
    const b = int(rng, 3, 9);
    const a = b * int(rng, 2, 12) + int(rng, 1, b - 1);
    return {
      prompt: `Using one built-in function, print the quotient and the remainder of ${a} divided by ${b} together, as a tuple.`,
      solution: `print(divmod(${a}, ${b}))\n`,
      queries: [
        'quotient and remainder at once',
        'quotient and remainder of a division together',
        'integer division quotient and remainder',
      ],
      wrongNames: [
        guess(null, 'quotrem', `${a}, ${b}`),
        guess('math', 'divmod', `${a}, ${b}`),
        guess(null, 'divide', `${a}, ${b}`),
      ],
      handRolled: [
        attempt(`print((${a} / ${b}, ${a} % ${b}))`),
        attempt(`print((${a} % ${b}, ${a} // ${b}))`),
      ],
    };
  }),
  template('from_hex', (rng) => {
    const value = int(rng, 17, 4095);
    const [base, name, text] = pick(rng, [
      [16, 'hexadecimal', value.toString(16)],
      [16, 'hexadecimal', value.toString(16)],
      [2, 'binary', int(rng, 17, 255).toString(2)],
      [8, 'octal', value.toString(8)],
    ] as const);
    return {
      prompt: `Using a built-in function, convert the ${name} text '${text}' to a number and print it in decimal.`,
      solution: `print(int('${text}', ${base}))\n`,
      queries: [
        `convert a string in base ${base} to an integer`,
        'parse a string as an integer in a given base',
        `convert ${name} string to integer`,
        `integer from a string in base ${base}`,
      ],
      wrongNames: [
        guess(null, name === 'hexadecimal' ? 'hex_to_int' : 'parse_int', `'${text}'`),
        attempt(`print(int.from_string('${text}', ${base}))`),
        guess('math', 'parse_int', `'${text}', ${base}`),
      ],
      handRolled: [
        attempt(`print(sum(int(c, 16) for c in '${text}'))`),
        attempt(`print(len('${text}') * ${base})`),
      ],
    };
  }),
];
