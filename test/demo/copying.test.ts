// The copy shares inspect.ts reports: hand-made episodes, each part right or wrong on purpose.
import { describe, expect, it } from 'vitest';
import { copyShares, promptParts } from '../../scripts/demo/copying.ts';

const task = (prompt: string, answer: string) => [
  { role: 'system' as const, content: 'You solve tasks.' },
  { role: 'user' as const, content: prompt },
  { role: 'assistant' as const, content: answer },
];
const COUNT =
  'Define a function `count_multiples(a, b, k)` that returns how many integers from a to b, both included, are divisible by k. Then print count_multiples(10, 50, 7).';
const F =
  'Write a Python function `c_to_f(celsius)` that converts it. Print c_to_f(3.5) at the end.';

describe('copy shares', () => {
  it('read the signature and the call from the prompt, whatever the closer', () => {
    expect(promptParts(COUNT)).toEqual({
      signature: 'count_multiples(a, b, k)',
      call: 'count_multiples(10, 50, 7)',
    });
    expect(promptParts(F)).toEqual({ signature: 'c_to_f(celsius)', call: 'c_to_f(3.5)' });
    expect(promptParts('Make `f(x)` that doubles x. Then print the result of f(2).')?.call).toBe(
      'f(2)',
    );
    expect(promptParts('Using the standard library, print the sample variance of [2, 4].')).toBe(
      null,
    );
  });

  it('count an episode only when its first program has the exact signature and call', () => {
    const right =
      '```python\ndef count_multiples(a, b, k):\n    return 0\n\nprint(count_multiples(10, 50, 7))\n```';
    const dropped = right.replace('(a, b, k):', '(a, b):');
    const garbled = right.replace(
      'print(count_multiples(10, 50, 7))',
      'print(count_multiple(10, 50, 7))',
    );
    const shares = copyShares([
      task(COUNT, right),
      task(COUNT, dropped),
      task(COUNT, garbled),
      task(F, '```python\ndef c_to_f(celsius):\n    return 1\n\nprint(c_to_f(3.5))\n```'),
      // Not a function task: not counted.
      task('Print the sum of [1, 2, 3] using the standard library', 'FINAL ANSWER: 6'),
    ]);
    expect(shares).toEqual({ episodes: 4, signature: 3 / 4, call: 3 / 4 });
    // Only the first program counts: a fix in a later turn does not.
    const later = [...task(COUNT, dropped), { role: 'assistant' as const, content: right }];
    expect(copyShares([later])).toEqual({ episodes: 1, signature: 0, call: 1 });
  });
});
