// Templates for the `search` family's train split (src/tasks/builtin/search_train.ts), one per
// task: the task's kind of prompt (a behaviour, never the function's name) with other parameters
// and wordings, the program that calls the intended function, what one would search for, names one
// might guess instead (math.choose, statistics.middle: they raise), and wrong hand-rolled attempts.
// None mirrors an eval task: the eval split's functions, wordings and parameters stay out
// (corpus_search.ts checks it).
import { ITERTOOLS, OTHERS } from './templates_search_other.ts';
import { MATH, STATISTICS } from './templates_search_numbers.ts';
import type { SearchTemplate } from './transcripts_search.ts';

/** Every search template, in the train split's order. */
export const SEARCH_TEMPLATES: readonly SearchTemplate[] = [
  ...MATH,
  ...STATISTICS,
  ...ITERTOOLS,
  ...OTHERS,
];
