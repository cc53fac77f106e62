// The reference design's three tasks, with its exact prompts and expected outputs. They have no
// hidden tests (no function to call), so only output_match and final_answer apply to them.
import type { Task } from './task.ts';

const seed = (
  name: string,
  kind: string,
  prompt: string,
  expectedOutput: string,
  solution: string,
): Task => ({
  id: `seed/${name}`,
  source: 'seed',
  prompt,
  expectedOutput,
  tests: null,
  family: 'seed',
  kind,
  difficulty: 1,
  split: 'train',
  solution,
});

/** F(10) -> 55; 'racecar' palindrome -> True; sort [5, 1, 4, 2, 8] -> [1, 2, 4, 5, 8]. */
export const SEED_TASKS: readonly Task[] = [
  seed(
    'fibonacci',
    'fibonacci',
    'Write Python code to compute F(10), with F(0)=0 and F(1)=1. Print only the result.',
    '55',
    'a, b = 0, 1\nfor _ in range(10):\n    a, b = b, a + b\nprint(a)\n',
  ),
  seed(
    'palindrome',
    'palindrome',
    "Write Python code to test whether 'racecar' is a palindrome. Print only True or False.",
    'True',
    "s = 'racecar'\nprint(s == s[::-1])\n",
  ),
  seed(
    'sort',
    'sort',
    'Write Python code to sort [5, 1, 4, 2, 8] in ascending order. Print only the sorted list.',
    '[1, 2, 4, 5, 8]',
    'print(sorted([5, 1, 4, 2, 8]))\n',
  ),
];
