// `eval --tasks FILE.json` through a subprocess, as a teacher runs it: pass@1 and pass@k of the demo
// model on their own tasks (the custom-task format), and the page's messages for a file with a
// mistake, before any model is loaded.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { customTasksProblems } from '../../src/tasks/custom.ts';
import { cli } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'eval-cli-'));

/** Writes `content` to a file in the test's folder and returns its path. */
function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('eval --tasks FILE.json', () => {
  it("prints pass@1 and pass@k over the file's tasks, and each task's", async () => {
    const tasks = file(
      'mine.json',
      JSON.stringify([
        {
          prompt:
            'Write Python code to compute F(12), with F(0)=0 and F(1)=1. Print only the result.',
          expectedOutput: '144',
        },
        {
          prompt:
            'Define a function `triple(n)` that returns three times n. Then print triple(14).',
          tests: 'assert triple(2) == 6\nassert triple(0) == 0',
        },
      ]),
    );
    const { code, json } = await cli(
      'eval',
      '--model',
      'demo',
      '--tasks',
      tasks,
      '--samples',
      '2',
      '--seed',
      '2',
    );
    expect(code).toBe(0);
    expect(Object.keys(json)).toEqual(['pass@1', 'pass@k', 'k', 'tasks']);
    expect(json.k).toBe(2);
    const perTask = json.tasks as Record<string, { 'pass@1': number; 'pass@k': number }>;
    expect(Object.keys(perTask)).toEqual(['custom/1', 'custom/2']);
    for (const scores of Object.values(perTask)) {
      // a rate over 2 samples, and pass@k says whether either passed
      expect([0, 0.5, 1]).toContain(scores['pass@1']);
      expect(scores['pass@k']).toBe(scores['pass@1'] > 0 ? 1 : 0);
    }
    const mean = (perTask['custom/1']!['pass@1'] + perTask['custom/2']!['pass@1']) / 2;
    expect(json['pass@1']).toBeCloseTo(mean, 9);
    expect(json['pass@k']).toBeGreaterThanOrEqual(json['pass@1'] as number);
  }, 300_000);

  it('says what is wrong with a task as the page does, and how to fix it', async () => {
    const broken = [{ prompt: 'Print 2 + 2.' }, { prompt: '', tests: 'x = 1' }];
    const { code, json } = await cli(
      'eval',
      '--model',
      'demo',
      '--tasks',
      file('broken.json', JSON.stringify(broken)),
    );
    expect(code).not.toBe(0);
    for (const problem of customTasksProblems(broken)) expect(json.error).toContain(problem);
    expect(json.error).toContain('custom task 1 has neither an expected output nor tests. Fix:');
  }, 60_000);

  it('refuses tests Python cannot compile, with the line and the message, as the page does', async () => {
    const tasks = [
      { prompt: 'Define double(n).', tests: 'assert double(2) == 4' },
      { prompt: 'Define half(n).', tests: 'assert half(4) == 2\nassert half(2) == 1 1' },
    ];
    const { code, json } = await cli(
      'eval',
      '--model',
      'demo',
      '--tasks',
      file('syntax.json', JSON.stringify(tasks)),
    );
    expect(code).not.toBe(0);
    expect(json.error).toMatch(/syntax\.json: custom task 2's tests do not compile: line 2: /);
    expect(json.error).not.toContain('custom task 1');
  }, 120_000);
});
