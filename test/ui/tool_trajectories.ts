// Test builders for trajectories of a tools run (search, code, answer, format errors), packed the
// way the rollout packs them: a search's results come back as the user turn itself (no
// "Execution result:" prefix), and each turn records the tool it called. Consistent with
// layoutProblems(), with per-token texts (chunks of up to 4 characters, as test/helpers/records.ts).
import { layoutProblems, type Trajectory, type Turn } from '../../src/rl/types.ts';
import { chunkTokens } from '../helpers/records.ts';

/** One turn to build. */
export type ToolTurnSpec =
  | { kind: 'search'; query: string; results: string }
  | { kind: 'code'; code: string; output: string; ok?: boolean }
  | { kind: 'answer'; answer: string }
  | { kind: 'format'; text: string; hint: string };

/** Canned search results in the search tool's format (src/env/search/index.ts). */
export function searchResults(entries: readonly (readonly [string, string])[]): string {
  if (entries.length === 0) return 'Search results: nothing matched. Try other words.';
  return `Search results:\n${entries.map(([signature, summary], i) => `${i + 1}. ${signature}\n   ${summary}`).join('\n')}`;
}

function generatedText(spec: ToolTurnSpec): string {
  switch (spec.kind) {
    case 'search':
      return `SEARCH: ${spec.query}`;
    case 'code':
      return `\`\`\`python\n${spec.code.trimEnd()}\n\`\`\``;
    case 'answer':
      return `FINAL ANSWER: ${spec.answer}`;
    case 'format':
      return spec.text;
  }
}

function userTurn(spec: ToolTurnSpec): string | null {
  switch (spec.kind) {
    case 'search':
      return spec.results;
    case 'code':
      return `Execution result:\n${spec.output}`;
    case 'answer':
      return null;
    case 'format':
      return spec.hint;
  }
}

function turnRecord(spec: ToolTurnSpec, text: string): Omit<Turn, 'generated' | 'observation'> {
  switch (spec.kind) {
    case 'search':
      return {
        text,
        stop: 'eos',
        action: { type: 'tool_call', tool: 'search', input: spec.query },
        execution: null,
        tool: 'search',
        call: { tool: 'search', input: spec.query, observation: spec.results, durationMs: 1 },
      };
    case 'code': {
      const ok = spec.ok ?? true;
      return {
        text,
        stop: 'eos',
        action: { type: 'execute_code', code: spec.code, unterminated: false },
        execution: {
          code: spec.code,
          durationMs: 12,
          result: {
            ok,
            observation: spec.output,
            timedOut: false,
            error: ok ? null : { type: 'NameError', message: spec.output.split('\n').at(-1)! },
          },
        },
        tool: 'execute_code',
        call: null,
      };
    }
    case 'answer':
      return {
        text,
        stop: 'eos',
        action: { type: 'finish', answer: spec.answer },
        execution: null,
        tool: 'finish',
        call: null,
      };
    case 'format':
      return {
        text,
        stop: 'eos',
        action: { type: 'format_error', observation: spec.hint },
        execution: null,
        tool: null,
        call: null,
      };
  }
}

/** A trajectory of a tools run with consistent ids, action mask and spans, plus token texts. */
export function buildToolTrajectory(fields: {
  step: number;
  taskId: string;
  prompt: string;
  groupIndex: number;
  sampleIndex: number;
  turns: ToolTurnSpec[];
  reward: number;
  passed: boolean;
}): { trajectory: Trajectory; tokenTexts: string[] } {
  const tokenTexts: string[] = [];
  const actionMask: number[] = [];
  const push = (text: string, mask: 0 | 1) => {
    for (const chunk of chunkTokens(text)) {
      tokenTexts.push(chunk);
      actionMask.push(mask);
    }
  };
  const system = 'You solve Python tasks by running code.';
  push(`<system>${system}</system><user>${fields.prompt}</user><assistant>`, 0);
  const messages: Trajectory['messages'] = [
    { role: 'system', content: system },
    { role: 'user', content: fields.prompt },
  ];
  const turns: Turn[] = fields.turns.map((spec, i) => {
    const text = generatedText(spec);
    const start = tokenTexts.length;
    push(text, 1);
    const generated = { start, end: tokenTexts.length };
    messages.push({ role: 'assistant', content: text });
    const user = i < fields.turns.length - 1 ? userTurn(spec) : null;
    let observation = null;
    if (user !== null) {
      const obsStart = tokenTexts.length;
      push(`</assistant><user>${user}</user><assistant>`, 0);
      observation = { start: obsStart, end: tokenTexts.length };
      messages.push({ role: 'user', content: user });
    }
    return { generated, observation, ...turnRecord(spec, text) };
  });
  const last = fields.turns.at(-1);
  const finalAnswer = last?.kind === 'answer' ? last.answer : null;
  const ids = tokenTexts.map((_, t) => 300 + t);
  const trajectory: Trajectory = {
    id: `${fields.step}/${fields.groupIndex}/${fields.sampleIndex}`,
    taskId: fields.taskId,
    groupIndex: fields.groupIndex,
    sampleIndex: fields.sampleIndex,
    prompt: fields.prompt,
    messages,
    ids,
    actionMask,
    turns,
    oldLogprobs: ids.map((_, t) => (actionMask[t] ? -1.5 : 0)),
    refLogprobs: null,
    reward: fields.reward,
    rewardParts: { output_match: fields.reward },
    rewardErrors: [],
    tampered: [],
    passed: fields.passed,
    advantage: 0,
    truncated: false,
    timedOut: false,
    prefixBroken: false,
    finishReason: finalAnswer !== null ? 'final_answer' : 'max_turns',
    finalAnswer,
  };
  const problems = layoutProblems(trajectory);
  if (problems.length > 0)
    throw new Error(`test builder made a bad trajectory: ${problems.join('; ')}`);
  return { trajectory, tokenTexts };
}
