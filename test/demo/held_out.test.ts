// The honest split, checked: no held-out task's prompt (a run of PROMPT_NGRAM words), function
// (called or defined), reference solution (a run of SOLUTION_NGRAM code tokens) or hidden test is
// in a corpus made with every part the recipe uses (train-task templates, search, skills); and the check
// fails on each kind of planted leak.
import { beforeAll, describe, expect, it } from 'vitest';
import type { CodeExecutor } from '../../src/env/types.ts';
import { BUILTIN_TASKS } from '../../src/tasks/builtin/index.ts';
import { generateCorpus } from '../../scripts/demo/corpus.ts';
import { generateSearchCorpus } from '../../scripts/demo/corpus_search.ts';
import { generateSkillCorpus } from '../../scripts/demo/corpus_skills.ts';
import { SKILLS } from '../../scripts/demo/skills.ts';
import {
  HELD_OUT_NAMES,
  HELD_OUT_TASKS,
  heldOutFindings,
  heldOutLeaks,
  PROMPT_NGRAM,
  words,
} from '../../scripts/demo/held_out.ts';
import { sandboxExecutor } from '../../scripts/demo/sandbox_executor.ts';
import { TEMPLATES } from '../../scripts/demo/templates.ts';
import { SEARCH_TEMPLATES } from '../../scripts/demo/templates_search.ts';
import type { Transcript } from '../../scripts/demo/transcripts.ts';

let executor: CodeExecutor;
let texts: string[];

const text = (t: Transcript) => t.messages.map((m) => m.content).join('\n');
const options = { wrongShare: 0.35, genericShare: 0.3, guessShare: 0.3 };

beforeAll(async () => {
  executor = await sandboxExecutor();
  const templates = await generateCorpus(TEMPLATES, executor, {
    size: 2 * TEMPLATES.length,
    seed: 31,
    ...options,
  });
  const search = await generateSearchCorpus(SEARCH_TEMPLATES, TEMPLATES, executor, {
    size: 2 * SEARCH_TEMPLATES.length,
    seed: 33,
    mix: { searchFirst: 0.3, guessName: 0.4, guessFix: 0.5 },
    plainShare: 0.15,
    wrongShare: 0.35,
    genericShare: 0.3,
  });
  const skills = await generateSkillCorpus(SKILLS, executor, {
    size: 3 * SKILLS.length,
    seed: 35,
    ...options,
  });
  texts = [...templates, ...search, ...skills.transcripts].map(text);
}, 300_000);

describe('the held-out split', () => {
  it('covers both eval splits, and their functions', () => {
    const builtinEval = BUILTIN_TASKS.filter((t) => t.split === 'eval').map((t) => t.id);
    expect(HELD_OUT_TASKS.map((t) => t.id)).toEqual(expect.arrayContaining(builtinEval));
    expect(HELD_OUT_TASKS.some((t) => t.id.startsWith('search/'))).toBe(true);
    for (const name of ['is_prime', 'flatten', 'nested_get', 'hyp'])
      expect(HELD_OUT_NAMES).toContain(name);
  });

  it('has nothing of it in a corpus of every part', () => {
    expect(texts.length).toBe(
      2 * TEMPLATES.length + 2 * SEARCH_TEMPLATES.length + 3 * SKILLS.length,
    );
    expect(heldOutLeaks(texts)).toEqual([]);
  });

  it('catches a planted prompt, function, solution or hidden test', () => {
    const task = HELD_OUT_TASKS.find((t) => t.id === 'builtin/rotate_left')!;
    const clean = texts.slice(0, 50);
    const planted = (leak: string) => heldOutLeaks([...clean, `${clean[3]}\n${leak}`]);
    // the whole prompt, or just one run of PROMPT_NGRAM of its words inside other text
    expect(planted(task.prompt)).toContainEqual(
      expect.stringContaining('prompt of builtin/rotate_left'),
    );
    const run = words(task.prompt)
      .slice(4, 4 + PROMPT_NGRAM)
      .join(' ');
    expect(planted(`Something else: ${run}, and more.`).join('\n')).toMatch(
      /prompt of builtin\/rotate_left.*\(transcript 50\)/,
    );
    // one word short of a run is no leak
    const shorter = words(task.prompt)
      .slice(4, 3 + PROMPT_NGRAM)
      .join(' ');
    expect(planted(`Something else: ${shorter}.`)).toEqual([]);
    // the function, called or defined under its held-out name
    expect(planted('print(rotate_left([1, 2], 1))')).toContainEqual(
      expect.stringContaining('held-out function name rotate_left'),
    );
    // the reference solution's body, renamed
    const body = task.solution!.replaceAll('rotate_left', 'shift');
    expect(planted(body)).toContainEqual(
      expect.stringContaining('solution of builtin/rotate_left'),
    );
    // a hidden test line of any task
    const test = BUILTIN_TASKS.find((t) => t.split === 'train')!.tests![0]!;
    expect(planted(test)).toContainEqual(expect.stringContaining('hidden test of'));
  });

  it('does not flag what the train split shares with a held-out task, or runs of literals', () => {
    // "from a to b, both included" is in both evens_between (train) and count_multiples (eval)
    expect(heldOutFindings('Return the odd numbers from a to b, both included.')).toEqual([]);
    // a list the rotate_left call also uses
    expect(heldOutFindings('print(sorted([1, 2, 3, 4, 5], reverse=True))')).toEqual([]);
  });
});
