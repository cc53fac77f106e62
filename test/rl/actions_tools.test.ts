// The action protocol with tools (issue 32): the system prompt built from the run's tools, the
// parser reading each tool's call format (search's `SEARCH:` line and ```search block), malformed
// calls answered with a hint, and a run without search parsing exactly as before tools existed.
import { describe, expect, it } from 'vitest';
import { toolRegistry, type Tool } from '../../src/env/tools.ts';
import {
  FORMAT_ERROR_OBSERVATION,
  formatErrorObservation,
  formatSearchCall,
  parseAction,
  SEARCH_MARKER,
  SYSTEM_PROMPT,
  systemPrompt,
  userTurnAfter,
} from '../../src/rl/actions.ts';
import type { Action } from '../../src/rl/types.ts';

const SEARCH = ['execute_code', 'search', 'finish'] as const;
const DEFAULT = ['execute_code', 'finish'] as const;

/** The system prompt as it stood before tools were a registry: the default run must keep it. */
const PROMPT_BEFORE_TOOLS =
  'You solve Python tasks by running code.\nTo run code, reply with one block:\n```python\n<code>\n```\nYou will then see its output. When you know the answer, reply with:\nFINAL ANSWER: <answer>';

const search = (text: string): Action => parseAction(text, 'strict', SEARCH);

describe('systemPrompt', () => {
  it('is the prompt of before tools for execute_code + finish, in any order', () => {
    expect(SYSTEM_PROMPT).toBe(PROMPT_BEFORE_TOOLS);
    expect(systemPrompt(DEFAULT)).toBe(PROMPT_BEFORE_TOOLS);
    expect(systemPrompt(['finish', 'execute_code'])).toBe(PROMPT_BEFORE_TOOLS);
    expect(systemPrompt()).toBe(PROMPT_BEFORE_TOOLS);
  });

  it("with search, adds search's usage between running code and answering (the spec's text)", () => {
    const expected =
      'You solve Python tasks by running code.\nTo run code, reply with one block:\n```python\n<code>\n```\nYou will then see its output. To look up a Python function, reply with one line:\nSEARCH: <what it should do>\nYou will then see the top 3 matches from the docs. When you know the answer, reply with:\nFINAL ANSWER: <answer>';
    expect(systemPrompt(SEARCH)).toBe(expected);
    // a link may list the tools in any order; the prompt must not change with it
    expect(systemPrompt(['search', 'finish', 'execute_code'])).toBe(expected);
    expect(systemPrompt(toolRegistry(SEARCH))).toBe(expected);
  });

  it("lists a registered tool's own usage", () => {
    const lookup: Tool = {
      description: 'A fake lookup.',
      usage: 'To look a word up, reply with:\nLOOKUP: <word>',
      call: { marker: 'LOOKUP', fence: 'lookup' },
      run: async () => ({ observation: '', done: false }),
    };
    const registry = toolRegistry(['execute_code', 'lookup', 'finish'], { tools: { lookup } });
    expect(systemPrompt(registry)).toMatch(
      /its output\. To look a word up, reply with:\nLOOKUP: <word> When you know/,
    );
  });

  it('refuses a tool that does not exist, saying which do', () => {
    expect(() => systemPrompt(['execute_code', 'browse'])).toThrow(
      /unknown tool "browse"\. Fix: use tools from execute_code, search, finish/,
    );
    // a name that happens to be an Object property is not a tool either
    expect(() => systemPrompt(['constructor'])).toThrow(/unknown tool "constructor"/);
  });
});

describe('parseAction without search (the default run)', () => {
  it('reads a SEARCH: line as plain text, exactly as before tools', () => {
    for (const tools of [undefined, DEFAULT]) {
      expect(parseAction('SEARCH: greatest common divisor', 'strict', tools)).toEqual({
        type: 'format_error',
        observation: FORMAT_ERROR_OBSERVATION,
      });
      expect(parseAction('```search\ngcd\n```', 'strict', tools)).toEqual({
        type: 'format_error',
        observation:
          'Format error: only Python runs here, not `search`. Use a ```python block, or FINAL ANSWER: <answer> to finish.',
      });
      expect(parseAction('SEARCH: x\n```python\nprint(1)\n```', 'strict', tools)).toEqual({
        type: 'execute_code',
        code: 'print(1)\n',
        unterminated: false,
      });
    }
    // the text before tools existed, word for word (a changed word changes the default run's ids)
    expect(FORMAT_ERROR_OBSERVATION).toBe(
      'Format error: reply with Python code in a ```python block to run it, or with FINAL ANSWER: <answer> to finish.',
    );
    expect(parseAction('SEARCH: gcd', 'reference')).toEqual({
      type: 'execute_code',
      code: 'SEARCH: gcd',
      unterminated: false,
    });
  });
});

describe('parseAction with search', () => {
  it('reads the line form, in any case, after other lines', () => {
    expect(search('SEARCH: greatest common divisor')).toEqual({
      type: 'tool_call',
      tool: 'search',
      input: 'greatest common divisor',
    });
    expect(search('I do not know the name.\n  search:   ways to choose k of n  \nthanks')).toEqual({
      type: 'tool_call',
      tool: 'search',
      input: 'ways to choose k of n',
    });
    expect(search(formatSearchCall('median of a list'))).toEqual({
      type: 'tool_call',
      tool: 'search',
      input: 'median of a list',
    });
    expect(SEARCH_MARKER).toBe('SEARCH:');
  });

  it('reads the fenced form, a wrapped query as one line', () => {
    expect(search('Let me look.\n```search\nnumber of combinations\n```')).toEqual({
      type: 'tool_call',
      tool: 'search',
      input: 'number of combinations',
    });
    expect(search('```Search\n  split a string\n  on whitespace\n```')).toMatchObject({
      input: 'split a string on whitespace',
    });
    // cut off before the closing fence (maxNewTokens): the query so far still counts
    expect(search('```search\nsort a list')).toMatchObject({
      type: 'tool_call',
      input: 'sort a list',
    });
  });

  it('does not take a marker in the middle of a line or inside another word', () => {
    const notCalls = ['I will SEARCH: gcd', 'research: gcd', 'SEARCHING: gcd'];
    for (const text of notCalls)
      expect(search(text)).toEqual({
        type: 'format_error',
        observation: formatErrorObservation(SEARCH),
      });
  });

  it('lets whichever of code, search and answer starts first win', () => {
    expect(search('SEARCH: gcd\n```python\nprint(1)\n```')).toMatchObject({ type: 'tool_call' });
    expect(search('```python\nprint(1)\n```\nSEARCH: gcd')).toMatchObject({
      type: 'execute_code',
    });
    // a SEARCH: line inside the code block is code
    expect(search('```python\n# SEARCH: gcd\nprint(1)\n```')).toMatchObject({
      type: 'execute_code',
    });
    expect(search('FINAL ANSWER: 6\nSEARCH: gcd')).toEqual({ type: 'finish', answer: '6' });
    expect(search('SEARCH: gcd\nFINAL ANSWER: 6')).toMatchObject({ type: 'tool_call' });
    expect(search('```search\ngcd\n```\n```python\nprint(1)\n```')).toMatchObject({
      type: 'tool_call',
      input: 'gcd',
    });
  });

  it('answers an empty query with where the query goes, never a crash', () => {
    for (const text of ['SEARCH:', 'SEARCH:   ', 'SEARCH:\ngcd', 'x\nsearch:  \n'])
      expect(search(text)).toEqual({
        type: 'format_error',
        observation: 'Format error: write what to look up after SEARCH: on the same line.',
      });
    for (const text of ['```search\n\n```', '```search\n', '```search'])
      expect(search(text)).toEqual({
        type: 'format_error',
        observation:
          'Format error: the search block is empty. Put what to look up between ```search and ```.',
      });
  });

  it('names search among the choices when a turn has no action', () => {
    expect(search('I think the answer is 6.')).toEqual({
      type: 'format_error',
      observation:
        'Format error: reply with Python code in a ```python block to run it, SEARCH: <what it should do> to look up a function, or with FINAL ANSWER: <answer> to finish.',
    });
    expect(search('```bash\nls\n```')).toEqual({
      type: 'format_error',
      observation:
        'Format error: only Python runs here, not `bash`. Use a ```python block, SEARCH: <what it should do> to look up a function, or FINAL ANSWER: <answer> to finish.',
    });
  });

  it('returns an action for any text (odd fences, markers, empty)', () => {
    const odd = ['', '```', '``````', 'SEARCH', ':', '```search```', 'SEARCH: ```', '\n\n\n'];
    for (const text of odd) {
      for (const parser of ['strict', 'reference'] as const) {
        const action = parseAction(text, parser, SEARCH);
        expect(['execute_code', 'finish', 'tool_call', 'format_error']).toContain(action.type);
        if (action.type === 'format_error') expect(action.observation).toMatch(/^Format error: /);
        if (action.type === 'tool_call') expect(action.input.trim()).not.toBe('');
      }
    }
  });

  it("reads a registered tool's own call format", () => {
    const lookup: Tool = {
      description: '',
      usage: '',
      call: { marker: 'LOOKUP', fence: 'lookup', input: 'a word' },
      run: async () => ({ observation: '', done: false }),
    };
    const registry = toolRegistry(['execute_code', 'lookup', 'finish'], { tools: { lookup } });
    expect(parseAction('LOOKUP: zfill', 'strict', registry)).toEqual({
      type: 'tool_call',
      tool: 'lookup',
      input: 'zfill',
    });
    expect(parseAction('LOOKUP:', 'strict', registry)).toEqual({
      type: 'format_error',
      observation: 'Format error: write a word after LOOKUP: on the same line.',
    });
    expect(parseAction('SEARCH: zfill', 'strict', registry)).toMatchObject({
      type: 'format_error',
      observation: expect.stringContaining('LOOKUP: <a word> to call lookup, '),
    });
  });
});

describe("the 'reference' parser with search", () => {
  const reference = (text: string): Action => parseAction(text, 'reference', SEARCH);

  it('takes a search call that comes before any ```python and FINAL ANSWER:', () => {
    expect(reference('SEARCH: gcd')).toEqual({ type: 'tool_call', tool: 'search', input: 'gcd' });
    expect(reference('SEARCH: gcd\n```python\nprint(1)\n```')).toMatchObject({
      type: 'tool_call',
    });
    expect(reference('SEARCH:')).toMatchObject({ type: 'format_error' });
  });

  it('otherwise parses as the reference design: code first, then the answer, else code', () => {
    expect(reference('```python\nprint(1)\n```\nSEARCH: gcd')).toEqual({
      type: 'execute_code',
      code: '\nprint(1)\n',
      unterminated: false,
    });
    expect(reference('FINAL ANSWER: 6\nSEARCH: gcd')).toEqual({
      type: 'finish',
      answer: '6\nSEARCH: gcd',
    });
    expect(reference('print(6)')).toMatchObject({ type: 'execute_code', code: 'print(6)' });
  });
});

describe('userTurnAfter a tool call', () => {
  it("is the tool's observation as it stands (no Execution result: prefix)", () => {
    const results = 'Search results:\n1. math.gcd(*integers)\n   Greatest common divisor.';
    expect(userTurnAfter({ type: 'tool_call', tool: 'search', input: 'gcd' }, results)).toBe(
      results,
    );
  });
});
