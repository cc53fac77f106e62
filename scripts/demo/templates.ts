// Every template of the demo corpus: the seed tasks and the builtin train split, one template each.
import { DICT_TEMPLATES } from './templates_dicts.ts';
import { LIST_TEMPLATES } from './templates_lists.ts';
import { NUMBER_TEMPLATES, SEED_TEMPLATES } from './templates_numbers.ts';
import { STRING_TEMPLATES } from './templates_strings.ts';
import type { Template } from './template.ts';

/** All templates, seed first. */
export const TEMPLATES: readonly Template[] = [
  ...SEED_TEMPLATES,
  ...NUMBER_TEMPLATES,
  ...STRING_TEMPLATES,
  ...LIST_TEMPLATES,
  ...DICT_TEMPLATES,
];
