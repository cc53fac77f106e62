// A file of custom tasks (what `eval --tasks FILE.json` reads): the page's checks and messages,
// and what is wrong with the file itself, each with its fix.
import { describe, expect, it } from 'vitest';
import { customTasksFromJson, customTasksProblems } from '../../src/tasks/custom.ts';

describe('customTasksFromJson', () => {
  it('reads a list of custom tasks into tasks, as the page would', () => {
    const tasks = customTasksFromJson(
      JSON.stringify([
        { prompt: 'Print 2 + 2.', expectedOutput: '4' },
        { prompt: 'Define add(a, b).', tests: 'assert add(1, 2) == 3\nassert add(0, 0) == 0' },
      ]),
      'mine.json',
    );
    expect(tasks.map((t) => [t.id, t.expectedOutput, t.tests])).toEqual([
      ['custom/1', '4', null],
      ['custom/2', null, ['assert add(1, 2) == 3', 'assert add(0, 0) == 0']],
    ]);
  });

  it("gives the page's message for each task with a mistake, prefixed by the file", () => {
    const broken = [{ prompt: 'Print 2 + 2.' }, { prompt: '', tests: 'x = 1' }];
    const read = () => customTasksFromJson(JSON.stringify(broken), 'mine.json');
    expect(read).toThrow(/^mine\.json: /);
    for (const problem of customTasksProblems(broken)) expect(read).toThrow(problem);
  });

  it('names a file that is not JSON, not a list, or empty, with the fix', () => {
    expect(() => customTasksFromJson('[{"prompt": ', 'a.json')).toThrow(
      /a\.json is not JSON: .*Fix:/,
    );
    expect(() => customTasksFromJson('{}', 'b.json')).toThrow(
      /b\.json: customTasks must be a list.*Fix:/,
    );
    expect(() => customTasksFromJson('[]', 'c.json')).toThrow(/c\.json has no tasks\. Fix:/);
  });
});
