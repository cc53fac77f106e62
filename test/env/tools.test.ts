// The run's tool registry (issue 32): built from config names in a fixed order, the real search
// tool answering through Environment.step with the index's formatted matches, and its argument
// checks.
import { describe, expect, it } from 'vitest';
import { Environment } from '../../src/env/environment.ts';
import { formatSearchResults, searchDocs } from '../../src/env/search/index.ts';
import { defaultTools, searchTool, SEARCH_TOP_K, toolRegistry } from '../../src/env/tools.ts';
import type { CodeExecutor } from '../../src/env/types.ts';

/** An executor that must not be reached: search needs no sandbox. */
const noSandbox: CodeExecutor = {
  execute: async () => {
    throw new Error('search must not run code');
  },
};

describe('toolRegistry', () => {
  it('registers in the prompt order whatever order the names come in, once each', () => {
    expect(toolRegistry(['finish', 'search', 'execute_code', 'search']).names()).toEqual([
      'execute_code',
      'search',
      'finish',
    ]);
    expect(defaultTools().names()).toEqual(['execute_code', 'finish']);
  });

  it('puts added tools before finish, and lets deps replace a built-in', () => {
    const fake = { ...searchTool, description: 'fake' };
    const registry = toolRegistry(['finish', 'lookup', 'execute_code', 'search'], {
      tools: { lookup: fake, search: fake },
    });
    expect(registry.names()).toEqual(['execute_code', 'search', 'lookup', 'finish']);
    expect(registry.get('search')?.description).toBe('fake');
  });

  it('refuses an unknown name with the names there are', () => {
    expect(() => toolRegistry(['execute_code', 'web'])).toThrow(
      'unknown tool "web". Fix: use tools from execute_code, search, finish.',
    );
  });
});

describe('searchTool', () => {
  it('answers with the index top matches, formatted as the model sees them', async () => {
    const environment = new Environment(noSandbox, { tools: toolRegistry(['search', 'finish']) });
    const query = 'number of ways to choose k items from n without order';
    const step = await environment.step('search', { query });
    expect(step).toEqual({
      observation: formatSearchResults(query, searchDocs(query, SEARCH_TOP_K)),
      done: false,
    });
    expect(step.observation).toMatch(/^Search results:\n1\. /);
    // the rollout passes the call's text as `input`
    expect((await searchTool.run({ input: query }, { executor: noSandbox })).observation).toBe(
      step.observation,
    );
  });

  it('says what it needs when the query is missing or empty', async () => {
    const context = { executor: noSandbox };
    expect((await searchTool.run({}, context)).observation).toBe(
      'search needs a non-empty string argument "query", got nothing.',
    );
    expect((await searchTool.run({ query: '  ' }, context)).observation).toMatch(/got " {2}"/);
    expect((await searchTool.run({ query: 3 }, context)).done).toBe(false);
  });
});
