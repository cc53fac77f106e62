// The search preset (issue 32): the default run with the search tool on, on the search tasks, and
// the same run as a config file the CLI reads (examples/search.json).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromArgs } from '../../src/cli/train_command.ts';
import { PRESETS, presetConfig } from '../../src/run/presets.ts';
import { evalTasksFor } from '../../src/tasks/registry.ts';

const root = join(import.meta.dirname, '../..');

describe('the search preset', () => {
  it('is the default preset with tasks search and all three tools', () => {
    const search = presetConfig('search');
    expect(search).toEqual({
      ...presetConfig('default'),
      tasks: 'search',
      tools: ['execute_code', 'search', 'finish'],
    });
    expect(evalTasksFor(search.tasks).every((t) => t.id.startsWith('search/'))).toBe(true);
    // the default run is unchanged: no search there
    expect(presetConfig('default').tools).toEqual(['execute_code', 'finish']);
    expect([...PRESETS.keys()]).toContain('search');
  });

  it('examples/search.json is that run, read the way `train --config` reads it', async () => {
    const config = await configFromArgs({
      options: new Map([['config', join(root, 'examples/search.json')]]),
      flags: new Set(),
      positional: [],
    });
    expect(config).toEqual(presetConfig('search'));
  });
});
