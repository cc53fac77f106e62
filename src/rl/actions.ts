// The action protocol between the model and the environment: the system prompt that explains it,
// the parsers that turn a model turn into an action, and the text of the user turn that follows.
// The demo-model generator writes its transcripts with these same strings, so they live here once.
//
// Grammar of the default ('strict') parser:
//   - a fenced block opened by ```python, ```py, ```python3 or a bare ``` -> execute_code with its
//     body. The FIRST such block counts (as in the reference design); text after it is ignored.
//     A block never closed (generation cut at maxNewTokens, or the model stopped early) runs the
//     rest of the text and is marked `unterminated`.
//   - `FINAL ANSWER: <answer>` (any case) -> finish with the rest of that line.
//   - both present: whichever starts first wins, so a block that prints "FINAL ANSWER: ..." runs
//     as code, and an answer followed by an example block finishes.
//   - neither -> format_error: the episode goes on and the model is told the expected format.
// The 'reference' parser reproduces the reference design: ```python first, then FINAL ANSWER:,
// and anything else runs as code.
import type { Action } from './types.ts';

/** Tells the model its two actions; the rollout renders it as the system message. */
export const SYSTEM_PROMPT = [
  'You solve Python tasks by running code.',
  'To run code, reply with one block:',
  '```python',
  '<code>',
  '```',
  'You will then see its output. When you know the answer, reply with:',
  'FINAL ANSWER: <answer>',
].join('\n');

/** Prefix of the user turn that carries an execution's output back (the reference design's). */
export const OBSERVATION_PREFIX = 'Execution result:\n';

/** The user turn after an executed block: the reference design's `Execution result:\n…`. */
export function formatObservation(observation: string): string {
  return `${OBSERVATION_PREFIX}${observation}`;
}

/** The observation for a turn with neither a code block nor a final answer. */
export const FORMAT_ERROR_OBSERVATION =
  'Format error: reply with Python code in a ```python block to run it, or with FINAL ANSWER: <answer> to finish.';

/** Language tags that mark a block as Python (empty = a bare fence). */
const PYTHON_TAGS = new Set(['', 'python', 'py', 'python3']);
/** An opening fence: ``` + optional tag + end of line (or end of text, when cut off). */
const OPENING_FENCE = /```[ \t]*([A-Za-z0-9_+.-]*)[^\S\n]*(?:\n|$)/g;
const ANSWER_MARKER = /FINAL ANSWER:/i;

interface Block {
  start: number;
  code: string;
  unterminated: boolean;
  tag: string;
}

/** Fenced blocks in order, pairing each opening fence with its closing one. */
function fencedBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  OPENING_FENCE.lastIndex = 0;
  for (let match = OPENING_FENCE.exec(text); match; match = OPENING_FENCE.exec(text)) {
    const bodyStart = match.index + match[0].length;
    const close = text.indexOf('```', bodyStart);
    const unterminated = close < 0;
    blocks.push({
      start: match.index,
      code: text.slice(bodyStart, unterminated ? text.length : close),
      unterminated,
      tag: (match[1] ?? '').toLowerCase(),
    });
    if (unterminated) break;
    OPENING_FENCE.lastIndex = close + 3;
  }
  return blocks;
}

/** The strict parser (default): see the file comment. */
export function parseStrict(text: string): Action {
  const blocks = fencedBlocks(text);
  const block = blocks.find((b) => PYTHON_TAGS.has(b.tag));
  const marker = ANSWER_MARKER.exec(text);
  if (marker && (!block || marker.index < block.start)) {
    const rest = text.slice(marker.index + marker[0].length);
    const answer =
      rest
        .split('\n')
        .map((line) => line.trim())
        .find((line) => line !== '') ?? '';
    if (answer === '')
      return {
        type: 'format_error',
        observation: 'Format error: write the answer after FINAL ANSWER: on the same line.',
      };
    return { type: 'finish', answer };
  }
  if (block) {
    if (block.code.trim() === '')
      return {
        type: 'format_error',
        observation:
          'Format error: the code block is empty. Put Python code between ```python and ```.',
      };
    return { type: 'execute_code', code: block.code, unterminated: block.unterminated };
  }
  if (blocks.length > 0) {
    return {
      type: 'format_error',
      observation: `Format error: only Python runs here, not \`${blocks[0]!.tag}\`. Use a \`\`\`python block, or FINAL ANSWER: <answer> to finish.`,
    };
  }
  return { type: 'format_error', observation: FORMAT_ERROR_OBSERVATION };
}

/**
 * The reference design's parser: ```python block, else FINAL ANSWER:, else the whole text as code.
 */
export function parseReference(text: string): Action {
  if (text.includes('```python')) {
    const after = text.split('```python')[1]!;
    const close = after.indexOf('```');
    return {
      type: 'execute_code',
      code: close < 0 ? after : after.slice(0, close),
      unterminated: close < 0,
    };
  }
  if (text.includes('FINAL ANSWER:'))
    return { type: 'finish', answer: text.split('FINAL ANSWER:')[1]!.trim() };
  return { type: 'execute_code', code: text, unterminated: false };
}

/** A parser: one model turn in, one action out. */
export type Parser = (text: string) => Action;
const parserTable = { strict: parseStrict, reference: parseReference } satisfies Record<
  string,
  Parser
>;
/** A parser's name. */
export type ParserName = keyof typeof parserTable;
/** Parsers by name; the same map gives the config and the UI their allowed values. */
export const PARSERS: ReadonlyMap<ParserName, Parser> = new Map(
  Object.entries(parserTable) as [ParserName, Parser][],
);

/** Parses a model turn with the named parser. */
export function parseAction(text: string, parser: ParserName = 'strict'): Action {
  const parse = PARSERS.get(parser);
  if (!parse)
    throw new Error(
      `unknown parser ${JSON.stringify(parser)}. Fix: use one of ${[...PARSERS.keys()].join(', ')}.`,
    );
  return parse(text);
}

/** The user turn that answers an action, or null after a finish (the episode is over). */
export function userTurnAfter(action: Action, observation: string | null): string | null {
  switch (action.type) {
    case 'finish':
      return null;
    case 'format_error':
      return action.observation;
    case 'execute_code':
      return formatObservation(observation ?? '');
  }
}
