// The TRL export's search tool against the tab's (issue 48): the exported docs_search.py, reading
// the docs.json the exporter writes from the tab's index, gives the same ranked entries, the same
// scores to the bit and the same observation text as searchDocs/formatSearchResults on every
// entry's name and signature, misspellings, task prompts, multi-word queries and garbage; and the
// exported parsers read a search run's turns as the tab's do.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOC_ENTRIES, formatSearchResults, searchDocs } from '../../src/env/search/index.ts';
import { SEARCH_TOP_K } from '../../src/env/tools.ts';
import { parseReference, parseStrict } from '../../src/rl/actions.ts';
import { defaultConfig } from '../../src/run/config.ts';
import { exportTrlProject } from '../../src/run/trl_export.ts';
import { TASKS_BY_ID } from '../../src/tasks/registry.ts';

const run = promisify(execFile);
const F = '```';
const TOOLS = ['execute_code', 'search', 'finish'] as const;

/** A fixed stream of small integers (an LCG), so the misspellings are the same every run. */
function stream(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state >>> 8;
  };
}

function misspell(word: string, next: () => number): string {
  if (word.length < 3) return `${word}x`;
  const i = next() % (word.length - 1);
  switch (next() % 4) {
    case 0: // a letter dropped
      return word.slice(0, i) + word.slice(i + 1);
    case 1: // two letters swapped
      return word.slice(0, i) + word[i + 1]! + word[i]! + word.slice(i + 2);
    case 2: // a letter doubled
      return word.slice(0, i) + word[i]! + word.slice(i);
    default: // a letter replaced
      return word.slice(0, i) + 'qzxe'[next() % 4]! + word.slice(i + 1);
  }
}

function queries(): string[] {
  const next = stream(48);
  const list: string[] = [];
  for (const entry of DOC_ENTRIES) {
    list.push(entry.name, entry.signature, entry.name.split('.').at(-1)!);
    list.push(misspell(entry.name.split('.').at(-1)!, next));
    const words = entry.summary.split(/\s+/);
    const start = next() % Math.max(1, words.length - 4);
    list.push(words.slice(start, start + 2 + (next() % 4)).join(' '));
  }
  for (const task of TASKS_BY_ID.values()) list.push(task.prompt, task.prompt.slice(0, 80));
  list.push(
    '',
    '   ',
    '!!! ??? ...',
    '12345 678',
    'the of and using python function',
    'standard library',
    'standard deviation using the standard library',
    'STANDARD   Library median',
    'OrderedDict defaultDict camelCaseWords',
    'sorting sorted sorts sort',
    'running arrangements choosing combinations',
    'permut comb fact',
    'zzzz qqqq',
    'ＳＯＲＴ ｌｉｓｔ', // full-width letters: NFKC makes them ASCII
    'café naïve Straße ΣΊΣΥΦΟΣ',
    '排序 列表 😀 sort',
    '𝐬𝐨𝐫𝐭 a list',
    `${'x'.repeat(498)}😀 median`,
    `${'sort '.repeat(200)}median`,
    'gcd\ngcd\tgcd',
    'sum sum sum of a list',
    'ſort ſum', // a long s: case folding differs between engines
    'İstanbul KELVIN',
    'mean median mode variance stdev',
    'split a string on whitespace and join it back',
    'count how many times each item appears',
  );
  return list;
}

describe("the exported search against the tab's", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'trl-search-'));
    const files = exportTrlProject({ ...defaultConfig(), tools: [...TOOLS], tasks: 'search' });
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('ranks, scores and words every query as the tab does', async () => {
    const list = queries();
    expect(list.length).toBeGreaterThan(1000);
    const names = DOC_ENTRIES.map((entry) => entry.name);
    expect(new Set(names).size).toBe(names.length); // the tie-break by name is a total order
    const input = `${list.map((q) => JSON.stringify(q)).join('\n')}\n`;
    const child = run('python3', ['docs_search.py'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
    child.child.stdin!.end(input);
    const { stdout } = await child;
    const got = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as [string[], number[], string]);
    expect(got.length).toBe(list.length);
    let found = 0;
    list.forEach((query, i) => {
      const hits = searchDocs(query, SEARCH_TOP_K);
      if (hits.length > 0) found += 1;
      expect({ query, got: got[i] }).toEqual({
        query,
        got: [hits.map((h) => h.name), hits.map((h) => h.score), formatSearchResults(query, hits)],
      });
    });
    expect(found).toBeGreaterThan(list.length * 0.75);
  });

  it("parses a search run's turns as the tab does (strict and reference parsers)", async () => {
    const turns = [
      'SEARCH: gcd of two numbers',
      '  search:   median  \nmore text',
      'I will look it up.\nSEARCH: sort a list\n```python\nprint(1)\n```',
      `${F}python\nprint(1)\n${F}\nSEARCH: later`,
      'FINAL ANSWER: 3\nSEARCH: after',
      'SEARCH:',
      'SEARCH:   \nnext line',
      `${F}search\nmedian\n  of   values\n${F}`,
      `${F}search\n\n${F}`,
      `${F}javascript\nx\n${F}`,
      'no action at all',
      'text SEARCH: not at a line start',
      'x\rSEARCH: after a carriage return',
      'x\u2028SEARCH: after a line separator',
      'ſEARCH: long s',
      'SEARCH: \u00a0padded\u00a0',
      'SEARCH gcd',
    ];
    const file = join(dir, 'turns.json');
    await writeFile(file, JSON.stringify(turns));
    const { stdout } = await run(
      'python3',
      [
        '-c',
        'import json, sys, environment\nturns = json.load(open(sys.argv[1]))\nprint(json.dumps([[environment.parse_strict(t), environment.parse_reference(t)] for t in turns]))',
        file,
      ],
      { cwd: dir },
    );
    const got = JSON.parse(stdout) as Record<string, unknown>[][];
    const strip = (action: Record<string, unknown>) =>
      action.type === 'execute_code' ? action : { ...action, unterminated: undefined };
    turns.forEach((turn, i) => {
      const [strict, reference] = got[i]!;
      expect({ turn, action: strip(strict!) }).toEqual({
        turn,
        action: strip(parseStrict(turn, TOOLS) as unknown as Record<string, unknown>),
      });
      expect({ turn, action: strip(reference!) }).toEqual({
        turn,
        action: strip(parseReference(turn, TOOLS) as unknown as Record<string, unknown>),
      });
    });
  });
});
