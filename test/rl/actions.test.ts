// Action parsing: code blocks, final answers, both, neither, truncation, and the reference parser.
import { describe, expect, it } from 'vitest';
import {
  FORMAT_ERROR_OBSERVATION,
  PARSERS,
  SYSTEM_PROMPT,
  formatObservation,
  parseAction,
  userTurnAfter,
} from '../../src/rl/actions.ts';

describe('strict parser (default)', () => {
  it('runs a ```python, ```py or bare fenced block', () => {
    for (const fence of ['```python', '```py', '```', '``` Python3']) {
      expect(parseAction(`Let me compute it.\n${fence}\nprint(55)\n\`\`\`\n`)).toEqual({
        type: 'execute_code',
        code: 'print(55)\n',
        unterminated: false,
      });
    }
  });

  it('runs the first Python block and ignores later ones', () => {
    const text = '```python\nprint(1)\n```\nor\n```python\nprint(2)\n```';
    expect(parseAction(text)).toMatchObject({ code: 'print(1)\n' });
  });

  it('skips a block in another language but finds the Python one after it', () => {
    expect(parseAction('```bash\nls\n```\n```python\nprint(3)\n```')).toMatchObject({
      type: 'execute_code',
      code: 'print(3)\n',
    });
    const other = parseAction('```bash\nls\n```');
    expect(other.type).toBe('format_error');
    expect(other.type === 'format_error' && other.observation).toMatch(
      /only Python runs here, not `bash`/,
    );
  });

  it('runs an unterminated block (cut by max tokens) and marks it', () => {
    expect(parseAction('```python\nfor i in range(10):\n    print(i')).toEqual({
      type: 'execute_code',
      code: 'for i in range(10):\n    print(i',
      unterminated: true,
    });
  });

  it('finishes on FINAL ANSWER with the rest of the line', () => {
    expect(parseAction('The output was 55.\nFINAL ANSWER: 55\nThanks!')).toEqual({
      type: 'finish',
      answer: '55',
    });
    expect(parseAction('final answer:   [1, 2, 4, 5, 8]  ')).toEqual({
      type: 'finish',
      answer: '[1, 2, 4, 5, 8]',
    });
    expect(parseAction('FINAL ANSWER:\n True')).toEqual({ type: 'finish', answer: 'True' });
  });

  it('with both, whichever comes first wins', () => {
    expect(parseAction('```python\nprint("FINAL ANSWER: 1")\n```')).toMatchObject({
      type: 'execute_code',
    });
    expect(parseAction('```python\nprint(55)\n```\nFINAL ANSWER: 55')).toMatchObject({
      type: 'execute_code',
      code: 'print(55)\n',
    });
    expect(parseAction('FINAL ANSWER: 55\nCheck:\n```python\nprint(55)\n```')).toEqual({
      type: 'finish',
      answer: '55',
    });
  });

  it('neither: a format error whose observation explains both actions', () => {
    const action = parseAction('I think the answer is 55.');
    expect(action).toEqual({ type: 'format_error', observation: FORMAT_ERROR_OBSERVATION });
    expect(FORMAT_ERROR_OBSERVATION).toContain('```python');
    expect(FORMAT_ERROR_OBSERVATION).toContain('FINAL ANSWER:');
    expect(userTurnAfter(action, null)).toBe(FORMAT_ERROR_OBSERVATION);
  });

  it('an empty block or an empty answer is a format error, not an action', () => {
    expect(parseAction('```python\n\n```').type).toBe('format_error');
    expect(parseAction('```python').type).toBe('format_error');
    expect(parseAction('FINAL ANSWER:   ').type).toBe('format_error');
  });
});

describe('reference parser', () => {
  it('matches the reference design: ```python first, then FINAL ANSWER:, else everything runs', () => {
    expect(parseAction('x\n```python\nprint(1)\n```\nFINAL ANSWER: 1', 'reference')).toEqual({
      type: 'execute_code',
      code: '\nprint(1)\n',
      unterminated: false,
    });
    expect(parseAction('FINAL ANSWER: True  \n', 'reference')).toEqual({
      type: 'finish',
      answer: 'True',
    });
    expect(parseAction('print(55)', 'reference')).toEqual({
      type: 'execute_code',
      code: 'print(55)',
      unterminated: false,
    });
    // a bare fence is not special to it: the whole text runs (and fails in Python)
    expect(parseAction('```\nprint(1)\n```', 'reference')).toMatchObject({
      code: '```\nprint(1)\n```',
    });
  });
});

describe('protocol text', () => {
  it('the system prompt names both actions; observations use the reference prefix', () => {
    expect(SYSTEM_PROMPT).toMatch(/```python/);
    expect(SYSTEM_PROMPT).toMatch(/FINAL ANSWER: <answer>/);
    expect(formatObservation('55')).toBe('Execution result:\n55');
    expect(userTurnAfter({ type: 'execute_code', code: 'x', unterminated: false }, 'TIMEOUT')).toBe(
      'Execution result:\nTIMEOUT',
    );
    expect(userTurnAfter({ type: 'finish', answer: '1' }, null)).toBeNull();
  });

  it('lists its parsers and rejects unknown names with a fix', () => {
    expect([...PARSERS.keys()]).toEqual(['strict', 'reference']);
    expect(() => parseAction('x', 'loose' as 'strict')).toThrow(
      /unknown parser "loose". Fix: use one of strict, reference/,
    );
  });
});
