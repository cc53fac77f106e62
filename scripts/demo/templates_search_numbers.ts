// Templates for the `search` family's train split, math and statistics (templates_search.ts has
// the whole list and says what a search template holds).
import { int, pick, pyRepr, sample } from './template.ts';
import { attempt, guess, ints, STDLIB, template, uses } from './search_template.ts';
import type { SearchTemplate } from './transcripts_search.ts';

export const MATH: SearchTemplate[] = [
  template('choose', (rng) => {
    const n = int(rng, 6, 20);
    const k = int(rng, 2, Math.min(5, n - 2));
    const prompt = pick(rng, [
      `${pick(rng, STDLIB)} print the number of ways to choose ${k} items from ${n} when order does not matter.`,
      `${pick(rng, STDLIB)} print how many ways there are to pick a team of ${k} from ${n} people, where order does not matter.`,
      `Print the number of ${k}-element subsets of a set of ${n} elements, using the standard library.`,
    ]);
    return {
      prompt,
      solution: uses('math', `math.comb(${n}, ${k})`),
      queries: [
        'number of ways to choose k items from n without order',
        'choose k of n items where order does not matter',
        'number of combinations n choose k',
        'binomial coefficient',
      ],
      wrongNames: [
        guess('math', 'choose', `${n}, ${k}`),
        guess('math', 'binomial', `${n}, ${k}`),
        guess('math', 'combinations', `${n}, ${k}`),
        guess(null, 'choose', `${n}, ${k}`),
      ],
      handRolled: [
        attempt(`import math\nprint(math.factorial(${n}) // math.factorial(${k}))`),
        attempt(`print(${n} ** ${k})`),
      ],
    };
  }),
  template('gcd', (rng) => {
    const g = int(rng, 2, 15);
    const [x, y] = pick(rng, [
      [2, 3],
      [3, 4],
      [3, 5],
      [4, 7],
      [5, 6],
      [7, 3],
      [5, 8],
    ] as const);
    const [a, b] = [g * x, g * y];
    return {
      prompt: pick(rng, [
        `Print the greatest common divisor of ${a} and ${b} using a standard library function.`,
        `${pick(rng, STDLIB)} print the largest number that divides both ${a} and ${b}.`,
      ]),
      solution: uses('math', `math.gcd(${a}, ${b})`),
      queries: [
        'greatest common divisor of integers',
        'largest number that divides both',
        'greatest common divisor',
      ],
      wrongNames: [
        guess('math', 'greatest_common_divisor', `${a}, ${b}`),
        guess('math', 'gcf', `${a}, ${b}`),
        guess('math', 'hcf', `${a}, ${b}`),
        guess(null, 'gcd', `${a}, ${b}`),
      ],
      handRolled: [attempt(`print(min(${a}, ${b}))`), attempt(`print(${b} - ${a} % ${b})`)],
    };
  }),
  template('arrangements', (rng) => {
    const n = int(rng, 5, 12);
    const k = int(rng, 2, 4);
    const prompt = pick(rng, [
      `${pick(rng, STDLIB)} print the number of ways to arrange ${k} of ${n} different books in a row, where order matters.`,
      `${pick(rng, STDLIB)} print how many ways ${k} of ${n} guests can sit in a row of ${k} chairs, where order matters.`,
    ]);
    return {
      prompt,
      solution: uses('math', `math.perm(${n}, ${k})`),
      queries: [
        'number of ways to arrange k of n items where order matters',
        'ordered arrangements of k items from n',
        'number of permutations of k items from n',
      ],
      wrongNames: [
        guess('math', 'permutations', `${n}, ${k}`),
        guess('math', 'arrangements', `${n}, ${k}`),
        guess('math', 'npr', `${n}, ${k}`),
        guess(null, 'perm', `${n}, ${k}`),
      ],
      handRolled: [attempt(uses('math', `math.comb(${n}, ${k})`)), attempt(`print(${n} ** ${k})`)],
    };
  }),
  template('lcm_of', (rng) => {
    const nums = pick(rng, [
      [4, 6],
      [6, 8, 12],
      [2, 9, 12],
      [6, 10],
      [4, 10, 14],
      [9, 15],
      [8, 12, 20],
      [6, 9, 15],
    ]);
    const call = `lcm_of(${pyRepr(nums)})`;
    const define = (body: string) =>
      `import math\n\ndef lcm_of(nums):\n    return ${body}\n\nprint(${call})\n`;
    return {
      prompt: `${pick(rng, ['Using a standard library function,', 'With a function from the standard library,'])} define \`lcm_of(nums)\` that returns the least common multiple of a non-empty list of positive integers. Then print ${call}.`,
      solution: define('math.lcm(*nums)'),
      queries: [
        'least common multiple of integers',
        'smallest number that is a multiple of all of them',
        'least common multiple',
      ],
      wrongNames: [
        attempt(define('math.least_common_multiple(*nums)')),
        attempt(define('math.lcd(*nums)')),
        attempt(define('lcm(*nums)')),
      ],
      handRolled: [attempt(define('math.prod(nums)')), attempt(define('max(nums)'))],
    };
  }),
  template('int_root', (rng) => {
    const m = int(rng, 5, 60);
    // Past m*m + m the square root's fraction is over .5, so rounding it goes one too high.
    const n = m * m + m + int(rng, 1, m);
    const call = `int_root(${n})`;
    const define = (body: string) =>
      `import math\n\ndef int_root(n):\n    return ${body}\n\nprint(${call})\n`;
    return {
      prompt: `${pick(
        rng,
        STDLIB.map((s) => s.replace(' function', '')),
      )} define \`int_root(n)\` that returns the largest whole number whose square is at most n, exact even for very large n. Then print ${call}.`,
      solution: define('math.isqrt(n)'),
      queries: [
        'integer square root rounded down',
        'largest whole number whose square is at most n',
        'exact integer square root',
      ],
      wrongNames: [
        attempt(define('math.intsqrt(n)')),
        attempt(define('math.int_sqrt(n)')),
        attempt(define('isqrt(n)')),
      ],
      handRolled: [attempt(define('round(math.sqrt(n))')), attempt(define('n // 2'))],
    };
  }),
  template('factorial', (rng) => {
    const n = int(rng, 5, 15);
    return {
      prompt: pick(rng, [
        `Print ${n} factorial (${n} × ${n - 1} × ... × 1) using a standard library function.`,
        `${pick(rng, STDLIB)} print ${n} factorial, the product of the whole numbers from 1 to ${n}.`,
      ]),
      solution: uses('math', `math.factorial(${n})`),
      queries: ['factorial of a number', 'n factorial', 'factorial'],
      wrongNames: [
        guess('math', 'fact', `${n}`),
        guess('math', 'fac', `${n}`),
        guess(null, 'factorial', `${n}`),
      ],
      handRolled: [
        attempt(`print(${n} * ${n - 1})`),
        attempt(`import math\nprint(math.prod(range(1, ${n})))`),
      ],
    };
  }),
  template('product', (rng) => {
    const nums = ints(rng, int(rng, 3, 5), 2, 9);
    const list = pyRepr(nums);
    return {
      prompt: pick(rng, [
        `Using a standard library function, print the product of all the numbers in ${list} without writing a loop.`,
        `${pick(rng, STDLIB)} multiply together all the numbers in ${list} without writing a loop, and print the result.`,
      ]),
      solution: uses('math', `math.prod(${list})`),
      queries: [
        'multiply all numbers in a list together product',
        'product of all the numbers in a list',
        'multiply together every number',
      ],
      wrongNames: [
        guess('math', 'product', list),
        guess('math', 'multiply', list),
        guess(null, 'product', list),
      ],
      handRolled: [attempt(`print(sum(${list}))`), attempt(`print(max(${list}) ** 2)`)],
    };
  }),
];

export const STATISTICS: SearchTemplate[] = [
  template('median', (rng) => {
    const list = pyRepr(ints(rng, int(rng, 5, 7), 1, 30));
    return {
      prompt: pick(rng, [
        `Using the standard library, print the median of ${list}.`,
        `${pick(rng, STDLIB)} print the middle value (the median) of the data ${list}.`,
      ]),
      solution: uses('statistics', `statistics.median(${list})`),
      queries: ['middle value median of data', 'median of a list of numbers', 'median'],
      wrongNames: [
        guess('statistics', 'middle', list),
        guess('statistics', 'med', list),
        guess('math', 'median', list),
        guess(null, 'median', list),
      ],
      handRolled: [
        attempt(`xs = ${list}\nprint(xs[len(xs) // 2])`),
        attempt(`xs = ${list}\nprint(max(xs) - min(xs))`),
      ],
    };
  }),
  template('most_frequent_value', (rng) => {
    const [top, ...others] = ints(rng, 3, 1, 9);
    const data = sample(rng, [top!, top!, top!, others[0]!, others[0]!, others[1]!], 6);
    const list = pyRepr(data);
    return {
      prompt: pick(rng, [
        `Using the standard library, print the single most common value in the data ${list}.`,
        `${pick(rng, STDLIB)} print the value that occurs most often in ${list}.`,
      ]),
      solution: uses('statistics', `statistics.mode(${list})`),
      queries: ['most common value in data', 'most frequent value of a list', 'mode of data'],
      wrongNames: [
        guess('statistics', 'most_common', list),
        guess('statistics', 'frequent', list),
        guess(null, 'mode', list),
      ],
      handRolled: [
        attempt(`print(max(${list}))`),
        attempt(`print(min(${list}))`),
        attempt(`xs = ${list}\nprint(xs.count(xs[0]))`),
      ],
    };
  }),
  template('population_spread', (rng) => {
    const list = pyRepr(ints(rng, int(rng, 4, 8), 1, 12));
    return {
      prompt: pick(rng, [
        `Using the standard library, print the population standard deviation of ${list}.`,
        `${pick(rng, STDLIB)} print the standard deviation of the whole population ${list}.`,
      ]),
      solution: uses('statistics', `statistics.pstdev(${list})`),
      queries: [
        'population standard deviation',
        'standard deviation of a whole population',
        'population standard deviation of data',
      ],
      wrongNames: [
        guess('statistics', 'std', list),
        guess('statistics', 'pstd', list),
        guess('math', 'stdev', list),
      ],
      handRolled: [
        attempt(uses('statistics', `statistics.stdev(${list})`)),
        attempt(`xs = ${list}\nprint(max(xs) - min(xs))`),
      ],
    };
  }),
  template('average', (rng) => {
    const list = pyRepr(ints(rng, int(rng, 4, 6), 1, 20));
    return {
      prompt: pick(rng, [
        `Using the standard library, print the arithmetic mean of ${list}.`,
        `${pick(rng, STDLIB)} print the average of the numbers ${list}.`,
      ]),
      solution: uses('statistics', `statistics.mean(${list})`),
      queries: ['arithmetic mean average of data', 'average of a list of numbers', 'mean of data'],
      wrongNames: [
        guess('statistics', 'average', list),
        guess('statistics', 'avg', list),
        guess('math', 'mean', list),
        guess(null, 'mean', list),
      ],
      handRolled: [
        attempt(`print(sum(${list}))`),
        attempt(`xs = ${list}\nprint(xs[len(xs) // 2])`),
      ],
    };
  }),
];
