// The corpus's skills: every skill makes programs that run and print an answer, with the function
// the prompt names; names, parameters, values and wordings vary from instance to instance; no
// held-out function name is ever drawn; the skill part of a corpus is the same for the same seed.
import { beforeAll, describe, expect, it } from 'vitest';
import type { CodeExecutor } from '../../src/env/types.ts';
import { Rng } from '../../src/model/rng.ts';
import { lastLine } from '../../src/rl/rewards.ts';
import { TASKS_BY_ID } from '../../src/tasks/registry.ts';
import { generateSkillCorpus } from '../../scripts/demo/corpus_skills.ts';
import { HELD_OUT_NAMES } from '../../scripts/demo/held_out.ts';
import { sandboxExecutor } from '../../scripts/demo/sandbox_executor.ts';
import { NAME_HEADS, NAME_NOUNS } from '../../scripts/demo/name_words.ts';
import {
  DEFAULT_NAME_SHARES,
  functionName,
  longName,
  madeUpArgs,
  madeUpName,
  wordName,
} from '../../scripts/demo/skill.ts';
import type { NameShares } from '../../scripts/demo/template.ts';
import { SKILLS } from '../../scripts/demo/skills.ts';

let executor: CodeExecutor;
const distinct = [...new Set(SKILLS)];

beforeAll(async () => {
  executor = await sandboxExecutor();
}, 120_000);

describe('skills', () => {
  it('mirror no task of the suite', () => {
    for (const skill of distinct) {
      expect(skill.taskId.startsWith('skill/')).toBe(true);
      expect(TASKS_BY_ID.has(skill.taskId)).toBe(false);
    }
  });

  it('make programs that run and print an answer, defining and calling the function the prompt names', async () => {
    const rng = new Rng(41);
    for (const skill of distinct) {
      for (let i = 0; i < 6; i++) {
        const instance = skill.make(rng);
        const name = instance.functionName!;
        expect(instance.prompt, skill.taskId).toMatch(new RegExp(`\`${name}\\(`));
        expect(instance.solution).toMatch(new RegExp(`^def ${name}\\(`));
        expect(instance.solution.trimEnd().split('\n').at(-1)).toMatch(
          new RegExp(`^print\\(${name}\\(`),
        );
        const run = await executor.execute(instance.solution);
        expect(run.ok, `${skill.taskId}:\n${instance.solution}\n${run.observation}`).toBe(true);
        expect(lastLine(run.observation), instance.solution).not.toBeNull();
      }
    }
  }, 120_000);

  it('vary names, parameters and wordings', () => {
    const rng = new Rng(42);
    for (const skill of distinct) {
      const instances = Array.from({ length: 60 }, () => skill.make(rng));
      const names = new Set(instances.map((i) => i.functionName));
      const signatures = new Set(instances.map((i) => /`([^`]+)`/.exec(i.prompt)![1]));
      const prompts = new Set(instances.map((i) => i.prompt));
      expect(names.size, skill.taskId).toBeGreaterThanOrEqual(5);
      expect(signatures.size, skill.taskId).toBeGreaterThan(names.size);
      expect(prompts.size, skill.taskId).toBeGreaterThanOrEqual(55);
    }
  });

  it('never draw a held-out function name, even when a skill offers one', () => {
    const rng = new Rng(43);
    for (let i = 0; i < 200; i++)
      expect(HELD_OUT_NAMES.has(functionName(rng, ['flatten', 'count_multiples', 'ok_name']))).toBe(
        false,
      );
  });

  it('give a share of functions and parameters made-up names, which only copying can write', () => {
    const rng = new Rng(45);
    const made = Array.from({ length: 400 }, () => madeUpName(rng, 2));
    for (const name of made) {
      expect(name).toMatch(/^[a-z]+(_[a-z]+)?$/);
      expect(HELD_OUT_NAMES.has(name)).toBe(false);
      expect(['def', 'for', 'not', 'sum', 'len', 'max', 'min', 'set', 'map']).not.toContain(name);
    }
    expect(new Set(made).size).toBeGreaterThan(300);
    const instances = distinct.flatMap((skill) =>
      Array.from({ length: 20 }, () => skill.make(rng)),
    );
    const descriptive = /count|sum|list|word|char|key|to_|_of|num|value|item/;
    const madeUp = instances.filter(
      (i) => !descriptive.test(i.functionName!) && !i.functionName!.includes('2'),
    );
    expect(madeUp.length / instances.length).toBeGreaterThan(0.2);
  });

  it('make as many names up as a recipe asks, functions and parameters apart', () => {
    const syllables = /^([bdfgklmnprstvz][aeiou])+(_([bdfgklmnprstvz][aeiou])+)?$/;
    const share = (names: NameShares) => {
      const rng = new Rng(47);
      const signatures = distinct.flatMap((skill) =>
        Array.from({ length: 10 }, () => /`(\w+)\(([^)]*)\)`/.exec(skill.make(rng, names).prompt)!),
      );
      const params = signatures.flatMap((m) => m[2]!.split(', '));
      const made = (xs: string[]) => xs.filter((x) => syllables.test(x)).length / xs.length;
      return { function: made(signatures.map((m) => m[1]!)), param: made(params) };
    };
    expect(share({ function: 1, param: 0 })).toEqual({ function: 1, param: expect.any(Number) });
    expect(share({ function: 1, param: 0 }).param).toBeLessThan(0.1);
    expect(share({ function: 0, param: 1 }).param).toBeGreaterThan(0.97);
    expect(share({ function: 0, param: 1 }).function).toBeLessThan(0.1);
    const usual = share(DEFAULT_NAME_SHARES);
    expect(usual.function).toBeGreaterThan(0.2);
    expect(usual.function).toBeLessThan(0.45);
  });

  it('build a share of made-up names from English words, none a held-out name or a part of one', () => {
    const heldParts = new Set([...HELD_OUT_NAMES].flatMap((name) => name.split('_')));
    for (const word of [...NAME_HEADS, ...NAME_NOUNS]) {
      expect(word).toMatch(/^[a-z]+(_[a-z]+)?$/);
      expect(heldParts.has(word), word).toBe(false);
    }
    const rng = new Rng(48);
    for (let i = 0; i < 300; i++) {
      expect(NAME_NOUNS).toContain(wordName(rng, 1));
      const name = wordName(rng, 2);
      expect(
        NAME_HEADS.some((head) => name.startsWith(`${head}_`)),
        name,
      ).toBe(true);
      expect(HELD_OUT_NAMES.has(name)).toBe(false);
    }
    const isWords = (name: string) => NAME_NOUNS.some((noun) => name.split('_').includes(noun));
    const signatures = (words: number) => {
      const rng = new Rng(49);
      return distinct.flatMap((skill) =>
        Array.from(
          { length: 10 },
          () =>
            /`(\w+)\(([^)]*)\)`/.exec(skill.make(rng, { function: 1, param: 1, words }).prompt)!,
        ),
      );
    };
    const half = signatures(0.5);
    const fromWords = half.filter((m) => isWords(m[1]!)).length / half.length;
    expect(fromWords).toBeGreaterThan(0.4);
    expect(fromWords).toBeLessThan(0.6);
    const params = half.flatMap((m) => m[2]!.split(', '));
    expect(params.filter((p) => NAME_NOUNS.includes(p)).length / params.length).toBeGreaterThan(
      0.3,
    );
    expect(signatures(0).some((m) => isWords(m[1]!))).toBe(false);
  });

  it('build a share of the syllable names long, of several parts, as long as held-out names', () => {
    const rng = new Rng(50);
    const python = ['and', 'else', 'try', 'range', 'list', 'print', 'sum', 'len', 'max', 'in'];
    const functions = Array.from({ length: 400 }, () => longName(rng, 2));
    for (const name of functions) {
      expect(name).toMatch(/^[a-z]+(_[a-z]+){1,2}$/);
      expect(HELD_OUT_NAMES.has(name)).toBe(false);
    }
    const params = Array.from({ length: 400 }, () => longName(rng, 1));
    for (const name of params) expect(python, name).not.toContain(name);
    const mean = (xs: string[]) => xs.reduce((sum, x) => sum + x.length, 0) / xs.length;
    // Held-out names run 6 to 19 characters (`c_to_f`, `is_clean_palindrome`), 13 on average.
    expect(mean(functions)).toBeGreaterThan(10);
    expect(mean(functions)).toBeLessThan(20);
    expect(new Set(functions).size).toBeGreaterThan(390);

    const names = (long: number | undefined) => {
      const rng = new Rng(51);
      const shares = { function: 1, param: 1, ...(long === undefined ? {} : { long }) };
      return distinct.flatMap((skill) =>
        Array.from({ length: 10 }, () => /`(\w+)\(/.exec(skill.make(rng, shares).prompt)![1]!),
      );
    };
    // No long share draws nothing, so an older recipe's corpus stays the same.
    expect(names(0)).toEqual(names(undefined));
    const multiPart = (xs: string[]) =>
      xs.filter((x) => x.split('_').length >= 2).length / xs.length;
    expect(multiPart(names(1))).toBe(1);
    expect(mean(names(1))).toBeGreaterThan(mean(names(0)) + 3);
  });

  it('make up the words of string arguments consistently, leaving the rest of a literal as it was', () => {
    const rng = new Rng(52);
    const [a, b, c] = madeUpArgs(rng, [
      "['apple', 'Pear', 'apple', 'ox']",
      "{'apple': 3, 'lime': 1}",
      "'two\\nlines 42'",
    ]);
    const list = /^\['([a-z]+)', '([A-Z][a-z]+)', '([a-z]+)', 'ox'\]$/.exec(a!)!;
    expect(list, a).not.toBeNull();
    expect(list[1]).toBe(list[3]); // the same word, the same made-up word
    expect(list[1]).not.toBe('apple');
    expect(list[2]!.toLowerCase()).not.toBe(list[1]);
    const dict = /^\{'([a-z]+)': 3, '([a-z]+)': 1\}$/.exec(b!)!;
    expect(dict[1]).toBe(list[1]); // a key still finds its dictionary's word across arguments
    expect(dict[2]).not.toBe('lime');
    // The word after an escape (`\\n`) is kept with it; the word before is made up.
    expect(c).toMatch(/^'[a-z]+\\nlines 42'$/);
    expect(c).not.toContain('two');
    expect(madeUpArgs(new Rng(1), ['[1, 2, 3]', '7'])).toEqual(['[1, 2, 3]', '7']);
  });

  it('still make programs that run when string arguments are made up, and only when asked', async () => {
    const pool = /'(apple|river|stone|cloud|tiger|piano|lemon|garden|planet|pencil)'/;
    const calls = (values: number | undefined) => {
      const rng = new Rng(53);
      const shares = { function: 0.3, param: 0.2, ...(values === undefined ? {} : { values }) };
      return distinct.flatMap((skill) =>
        Array.from({ length: 6 }, () => skill.make(rng, shares).solution),
      );
    };
    expect(calls(0)).toEqual(calls(undefined));
    const made = calls(1);
    const lastLines = made.map((code) => code.trimEnd().split('\n').at(-1)!);
    expect(calls(0).some((code) => pool.test(code.trimEnd().split('\n').at(-1)!))).toBe(true);
    expect(lastLines.some((line) => pool.test(line))).toBe(false);
    for (const solution of made.filter((_, i) => i % 3 === 0)) {
      const run = await executor.execute(solution);
      expect(run.ok, `${solution}\n${run.observation}`).toBe(true);
    }
  }, 120_000);

  it('never make the held-out palindrome test (letters kept, case ignored in either case)', () => {
    const rng = new Rng(46);
    const clean = distinct.find((s) => s.taskId === 'skill/clean_then')!;
    for (let i = 0; i < 400; i++) {
      const { prompt } = clean.make(rng);
      if (!/backwards/.test(prompt)) continue;
      expect(
        /letters/.test(prompt) && /(lower|upper) case|case is ignored/.test(prompt),
        prompt,
      ).toBe(false);
    }
  });

  it('make the same corpus part for the same seed', async () => {
    const options = { size: 40, seed: 44, wrongShare: 0.4, genericShare: 0.3, guessShare: 0.3 };
    const a = await generateSkillCorpus(SKILLS, executor, options);
    const b = await generateSkillCorpus(SKILLS, executor, options);
    expect(a.transcripts).toHaveLength(40);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(a.transcripts.some((t) => t.guessed)).toBe(true);
    expect(a.transcripts.some((t) => !t.firstTryCorrect && !t.guessed)).toBe(true);
  }, 120_000);
});
