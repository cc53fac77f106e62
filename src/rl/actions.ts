// The action protocol between the model and the environment: the system prompt that explains it,
// the parsers that turn a model turn into an action, and the text of the user turn that follows.
// The demo-model generator writes its transcripts with these same strings, so they live here once.
// A run's tools (src/env/tools.ts) shape both: the prompt joins their usages, and the parser reads
// the call format of each tool that has one (search: `SEARCH: <query>` or a ```search block).
//
// Grammar of the default ('strict') parser:
//   - a fenced block opened by ```python, ```py, ```python3 or a bare ``` -> execute_code with its
//     body. The FIRST such block counts (as in the reference design); text after it is ignored.
//     A block never closed (generation cut at maxNewTokens, or the model stopped early) runs the
//     rest of the text and is marked `unterminated`.
//   - `FINAL ANSWER: <answer>` (any case) -> finish with the rest of that line.
//   - with a tool that has a call format in the run (search): a line starting `SEARCH: <query>`
//     (any case) or a ```search block -> tool_call with the query; an empty query is a format error
//     that says where the query goes.
//   - several present: whichever starts first wins, so a block that prints "FINAL ANSWER: ..." runs
//     as code, and an answer followed by an example block finishes.
//   - none -> format_error: the episode goes on and the model is told the expected format.
// Without such tools (the default run) a `SEARCH:` line is plain text and a ```search block gets
// the "only Python runs here" hint: prompt, parses and token ids are exactly those of before tools.
// The 'reference' parser reproduces the reference design: ```python first, then FINAL ANSWER:,
// and anything else runs as code. With search on it also takes a search call that starts before
// any ```python and any FINAL ANSWER: (otherwise `SEARCH: gcd` would run as Python, and the tool
// could never be called under that parser).
import {
  DEFAULT_TOOL_NAMES,
  toolRegistry,
  ToolRegistry,
  type ToolCallFormat,
} from '../env/tools.ts';
import type { Action } from './types.ts';

/** A run's tools: their names (config `tools`) or the registry itself. */
export type ToolSet = readonly string[] | ToolRegistry;

function registryOf(tools: ToolSet): ToolRegistry {
  return tools instanceof ToolRegistry ? tools : toolRegistry(tools);
}

/** The system prompt's first line; each tool's usage follows. */
const PROMPT_HEADER = 'You solve Python tasks by running code.';

/** Tells the model its actions: the header, then each tool's usage (the rollout's system message). */
export function systemPrompt(tools: ToolSet = DEFAULT_TOOL_NAMES): string {
  const usages = registryOf(tools)
    .entries()
    .map(([, tool]) => tool.usage)
    .filter((usage) => usage !== '');
  return `${PROMPT_HEADER}\n${usages.join(' ')}`;
}

/** The default run's system prompt (execute_code and finish), the reference design's. */
export const SYSTEM_PROMPT = systemPrompt(DEFAULT_TOOL_NAMES);

/** The line marker of a search call (searchTool's call format). */
export const SEARCH_MARKER = 'SEARCH:';

/** A search call as the parser reads it (the demo transcripts write them with this). */
export function formatSearchCall(query: string): string {
  return `${SEARCH_MARKER} ${query}`;
}

/** Prefix of the user turn that carries an execution's output back (the reference design's). */
export const OBSERVATION_PREFIX = 'Execution result:\n';

/** The user turn after an executed block: the reference design's `Execution result:\n…`. */
export function formatObservation(observation: string): string {
  return `${OBSERVATION_PREFIX}${observation}`;
}

/** A call format the parser looks for, with its tool and its line pattern. */
interface CallSyntax extends ToolCallFormat {
  tool: string;
  /** The marker at a line's start; group 1 is the marker with its colon. */
  line: RegExp;
}

function callSyntaxes(tools: ToolSet | undefined): CallSyntax[] {
  if (!tools) return [];
  return registryOf(tools)
    .entries()
    .flatMap(([tool, { call }]) => {
      if (!call) return [];
      const marker = call.marker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return [{ ...call, tool, line: new RegExp(`^[ \\t]*(${marker}:)`, 'im') }];
    });
}

/** "SEARCH: <...> to look up a function, " for each call format: the choices a hint lists. */
function callChoices(calls: readonly CallSyntax[]): string {
  return calls
    .map((c) => `${c.hint ?? `${c.marker}: <${c.input ?? 'input'}> to call ${c.tool}`}, `)
    .join('');
}

/**
 * The observation for a turn with no action in it, listing the run's ways to act. Without extra
 * tools it is the text runs have always had, word for word: the default run's token ids, and so its
 * samples for a seed, depend on it.
 */
export function formatErrorObservation(tools?: ToolSet): string {
  return `Format error: reply with Python code in a \`\`\`python block to run it, ${callChoices(callSyntaxes(tools))}or with FINAL ANSWER: <answer> to finish.`;
}

/** The observation for a turn with neither a code block nor a final answer (the default run). */
export const FORMAT_ERROR_OBSERVATION = formatErrorObservation();

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

/** Where a tool call starts in a turn, and the action it is (a format error when empty). */
interface FoundCall {
  start: number;
  action: Action;
}

/** The earliest call of any call format in `text` (line or fenced form), or null. */
function firstCall(
  text: string,
  blocks: readonly Block[],
  calls: readonly CallSyntax[],
): FoundCall | null {
  const found: FoundCall[] = [];
  for (const c of calls) {
    const what = c.input ?? 'the input';
    const line = c.line.exec(text);
    if (line) {
      const start = line.index + line[0].length - line[1]!.length;
      const lineEnd = text.indexOf('\n', start);
      const input = text.slice(start + line[1]!.length, lineEnd < 0 ? text.length : lineEnd).trim();
      found.push({
        start,
        action:
          input === ''
            ? {
                type: 'format_error',
                observation: `Format error: write ${what} after ${c.marker}: on the same line.`,
              }
            : { type: 'tool_call', tool: c.tool, input },
      });
    }
    const block = blocks.find((b) => b.tag === c.fence.toLowerCase());
    if (block) {
      // a query is one line of words; a block may wrap it
      const input = block.code.trim().replace(/\s+/g, ' ');
      found.push({
        start: block.start,
        action:
          input === ''
            ? {
                type: 'format_error',
                observation: `Format error: the ${c.fence} block is empty. Put ${what} between \`\`\`${c.fence} and \`\`\`.`,
              }
            : { type: 'tool_call', tool: c.tool, input },
      });
    }
  }
  return found.reduce<FoundCall | null>((a, b) => (a && a.start <= b.start ? a : b), null);
}

/** The strict parser (default): see the file comment. `tools` absent: execute_code and finish. */
export function parseStrict(text: string, tools?: ToolSet): Action {
  const calls = callSyntaxes(tools);
  const blocks = fencedBlocks(text);
  const block = blocks.find((b) => PYTHON_TAGS.has(b.tag));
  const marker = ANSWER_MARKER.exec(text);
  const call = firstCall(text, blocks, calls);
  if (call && (!block || call.start < block.start) && (!marker || call.start < marker.index))
    return call.action;
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
      observation: `Format error: only Python runs here, not \`${blocks[0]!.tag}\`. Use a \`\`\`python block, ${callChoices(calls)}or FINAL ANSWER: <answer> to finish.`,
    };
  }
  return { type: 'format_error', observation: formatErrorObservation(tools) };
}

/**
 * The reference design's parser: ```python block, else FINAL ANSWER:, else the whole text as code.
 * With a call-format tool on (search), a call before any ```python and FINAL ANSWER: comes first.
 */
export function parseReference(text: string, tools?: ToolSet): Action {
  const calls = callSyntaxes(tools);
  const call = calls.length > 0 ? firstCall(text, fencedBlocks(text), calls) : null;
  if (call) {
    const python = text.indexOf('```python');
    const answer = text.indexOf('FINAL ANSWER:');
    if ((python < 0 || call.start < python) && (answer < 0 || call.start < answer))
      return call.action;
  }
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

/** A parser: one model turn and the run's tools in, one action out. */
export type Parser = (text: string, tools?: ToolSet) => Action;
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

/**
 * Parses a model turn with the named parser. `tools` (names or the run's registry) adds the call
 * formats of its tools; absent, only code and FINAL ANSWER are actions.
 */
export function parseAction(text: string, parser: ParserName = 'strict', tools?: ToolSet): Action {
  const parse = PARSERS.get(parser);
  if (!parse)
    throw new Error(
      `unknown parser ${JSON.stringify(parser)}. Fix: use one of ${[...PARSERS.keys()].join(', ')}.`,
    );
  return parse(text, tools);
}

/** The registered tool an action calls (null for a format error). */
export function actionTool(action: Action): string | null {
  if (action.type === 'tool_call') return action.tool;
  return action.type === 'format_error' ? null : action.type;
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
    case 'tool_call':
      // the tool words its own observation (search: "Search results:\n1. ...")
      return observation ?? '';
  }
}
