// Every skill of the corpus's skill part (skill.ts says what a skill is), by family.
import type { Template } from './template.ts';
import { DICT_SKILLS } from './skills_dicts.ts';
import { LIST_SKILLS } from './skills_lists.ts';
import { NUMBER_SKILLS } from './skills_numbers.ts';
import { STRING_SKILLS } from './skills_strings.ts';

/** All skills; a family's list may hold a skill twice to draw it more often. */
export const SKILLS: readonly Template[] = [
  ...NUMBER_SKILLS,
  ...STRING_SKILLS,
  ...LIST_SKILLS,
  ...DICT_SKILLS,
];
