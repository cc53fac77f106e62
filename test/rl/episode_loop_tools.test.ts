// The episode loop dispatching every action through the run's ToolRegistry, with a scripted
// policy, a fake sandbox and fake tools: a tool runs with the parsed input, its observation comes
// back as a user turn with mask 0, each turn records its tool, a tool the run lacks is a format
// error, and a run without search reads SEARCH: as plain text under the two-tool prompt.
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../src/model/rng.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { toolRegistry, type Tool } from '../../src/env/tools.ts';
import { formatSearchResults, searchDocs } from '../../src/env/search/index.ts';
import { FORMAT_ERROR_OBSERVATION, SYSTEM_PROMPT, systemPrompt } from '../../src/rl/actions.ts';
import { runEpisodes, type EpisodeLoopOptions, type Sampler } from '../../src/rl/episode_loop.ts';
import { layoutProblems, type Trajectory } from '../../src/rl/types.ts';
import type { CodeExecutor, ExecOutcome } from '../../src/env/types.ts';
import type { Task } from '../../src/tasks/task.ts';
import { loadTokenizer, type Tokenizer } from '../../src/tokenizer/index.ts';

const task: Task = {
  id: 'search/gcd',
  source: 'custom',
  prompt: 'Print the greatest common divisor of 84 and 36 with a stdlib function.',
  expectedOutput: '12',
  tests: null,
  family: 'search',
  kind: 'math.gcd',
  difficulty: 1,
  split: 'train',
  solution: null,
};

const options: EpisodeLoopOptions = {
  groupSize: 1,
  maxTurns: 3,
  maxNewTokens: 64,
  temperature: 1,
  parser: 'strict',
  timeoutMs: 1000,
  step: 1,
};

const SEARCH_TOOLS = ['execute_code', 'search', 'finish'];
const RESULTS = 'Search results:\n1. math.gcd(*integers)\n   Greatest common divisor.';

/** Replays fixed turn texts, one script per episode (told apart by their Rng stream). */
function scriptedSampler(tokenizer: Tokenizer, scripts: string[][]): Sampler {
  const owners = new Map<Rng, number>();
  const turns = new Map<number, number>();
  return {
    maxPositions: 4096,
    async sample(_contexts, rngs, o) {
      const ids = rngs.map((rng) => {
        if (!owners.has(rng)) owners.set(rng, owners.size);
        const episode = owners.get(rng)!;
        const turn = turns.get(episode) ?? 0;
        turns.set(episode, turn + 1);
        return [
          ...tokenizer.encode(scripts[episode]![turn]!, { addSpecialTokens: false }),
          o.eosIds[0]!,
        ];
      });
      return {
        ids,
        logprobs: ids.map((seq) => seq.map(() => -0.5)),
        finishReasons: ids.map(() => 'eos' as const),
      };
    },
  };
}

/** A sandbox that prints what `print(...)` holds, recording what it ran. */
function fakeExecutor(ran: string[] = []): CodeExecutor {
  return {
    async execute(code): Promise<ExecOutcome> {
      ran.push(code);
      const match = /print\((.*)\)/.exec(code);
      return { ok: true, observation: match ? `${match[1]}\n` : '', timedOut: false, error: null };
    },
  };
}

/** A search stand-in that records its arguments and answers with fixed results. */
function fakeSearch(calls: Record<string, unknown>[], answer: () => Promise<string>): Tool {
  return {
    description: 'A fake search.',
    usage: 'To look up a Python function, reply with one line:\nSEARCH: <what it should do>',
    call: { marker: 'SEARCH', fence: 'search', input: 'what to look up' },
    async run(args) {
      calls.push(args);
      return { observation: await answer(), done: false };
    },
  };
}

/** The decoded text of a token span of a trajectory. */
function spanText(tokenizer: Tokenizer, t: Trajectory, span: { start: number; end: number }) {
  return tokenizer.decode(t.ids.slice(span.start, span.end));
}

describe('the episode loop through the tool registry', () => {
  let tokenizer: Tokenizer;
  beforeAll(async () => {
    tokenizer = await loadTokenizer(directorySource('test/fixtures/tokenizers/bytes'));
  });

  it('runs a tool call with the parsed input and returns its observation as a mask-0 user turn', async () => {
    const calls: Record<string, unknown>[] = [];
    const ran: string[] = [];
    const tools = toolRegistry(SEARCH_TOOLS, {
      tools: { search: fakeSearch(calls, async () => RESULTS) },
    });
    const sampler = scriptedSampler(tokenizer, [
      [
        'SEARCH: greatest common divisor',
        '```python\nimport math\nprint(12)\n```',
        'FINAL ANSWER: 12',
      ],
    ]);
    const {
      trajectories: [t],
    } = await runEpisodes(
      [task],
      { sampler, tokenizer, executor: fakeExecutor(ran), rng: new Rng(1), tools },
      options,
    );

    expect(calls).toEqual([{ input: 'greatest common divisor' }]);
    expect(ran).toEqual(['import math\nprint(12)\n']);
    expect(t!.finishReason).toBe('final_answer');
    expect(t!.finalAnswer).toBe('12');
    expect(t!.turns.map((turn) => turn.tool)).toEqual(['search', 'execute_code', 'finish']);
    expect(t!.turns[0]!.action).toEqual({
      type: 'tool_call',
      tool: 'search',
      input: 'greatest common divisor',
    });
    expect(t!.turns[0]!.call).toMatchObject({
      tool: 'search',
      input: 'greatest common divisor',
      observation: RESULTS,
    });
    expect(t!.turns[0]!.call!.durationMs).toBeGreaterThanOrEqual(0);
    expect(t!.turns[0]!.execution).toBeNull();
    expect(t!.turns[1]!.call).toBeNull();
    expect(t!.turns[1]!.execution!.result.observation).toBe('12\n');

    // the system prompt is the registry's; the search results are the next user message as the
    // tool worded them (no "Execution result:" prefix), the code's output the one after
    expect(t!.messages[0]!.content).toBe(systemPrompt(tools));
    expect(t!.messages[0]!.content).toMatch(/SEARCH: <what it should do>/);
    expect(t!.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(t!.messages[3]!.content).toBe(RESULTS);
    expect(t!.messages[5]!.content).toBe('Execution result:\n12\n');

    // the observation's ids: template markup and the results, none of them trained on
    const observation = t!.turns[0]!.observation!;
    expect(spanText(tokenizer, t!, observation)).toContain(RESULTS);
    expect(t!.actionMask.slice(observation.start, observation.end).every((m) => m === 0)).toBe(
      true,
    );
    expect(t!.oldLogprobs!.slice(observation.start, observation.end).every((lp) => lp === 0)).toBe(
      true,
    );
    expect(spanText(tokenizer, t!, t!.turns[0]!.generated)).toBe(
      'SEARCH: greatest common divisor<|im_end|>',
    );
    expect(layoutProblems(t!)).toEqual([]);
    expect(tokenizer.applyChatTemplate(t!.messages)).toBe(`${tokenizer.decode(t!.ids)}\n`);
  });

  it("dispatches a registered tool's own call format to it", async () => {
    const seen: unknown[] = [];
    const lookup: Tool = {
      description: '',
      usage: 'To look a word up, reply with:\nLOOKUP: <word>',
      call: { marker: 'LOOKUP', fence: 'lookup' },
      async run(args) {
        seen.push(args.input);
        return { observation: `found ${String(args.input)}`, done: false };
      },
    };
    const tools = toolRegistry(['execute_code', 'lookup', 'finish'], { tools: { lookup } });
    const sampler = scriptedSampler(tokenizer, [['```lookup\nzfill\n```', 'FINAL ANSWER: 1']]);
    const {
      trajectories: [t],
    } = await runEpisodes(
      [task],
      { sampler, tokenizer, executor: fakeExecutor(), rng: new Rng(2), tools },
      options,
    );
    expect(seen).toEqual(['zfill']);
    expect(t!.turns.map((turn) => turn.tool)).toEqual(['lookup', 'finish']);
    expect(t!.messages[3]!.content).toBe('found zfill');
  });

  it('treats SEARCH: as plain text in a run without search, under the two-tool prompt', async () => {
    const script = [['SEARCH: gcd', '```python\nprint(12)\n```', 'FINAL ANSWER: 12']];
    const run = (deps: object, extra: Partial<EpisodeLoopOptions> = {}) =>
      runEpisodes(
        [task],
        {
          sampler: scriptedSampler(tokenizer, script),
          tokenizer,
          executor: fakeExecutor(),
          rng: new Rng(3),
          ...deps,
        },
        { ...options, ...extra },
      );
    const {
      trajectories: [plain],
    } = await run({});
    expect(plain!.messages[0]!.content).toBe(SYSTEM_PROMPT);
    expect(plain!.turns[0]!.action).toEqual({
      type: 'format_error',
      observation: FORMAT_ERROR_OBSERVATION,
    });
    expect(plain!.turns.map((turn) => turn.tool)).toEqual([null, 'execute_code', 'finish']);
    expect(plain!.turns.every((turn) => turn.call === null)).toBe(true);
    expect(plain!.messages[3]!.content).toBe(FORMAT_ERROR_OBSERVATION);
    // the same episode, the default tools named explicitly (either way in): the same ids and masks
    for (const variant of [
      await run({ tools: toolRegistry(['finish', 'execute_code']) }),
      await run({}, { tools: ['execute_code', 'finish'] }),
    ]) {
      const [t] = variant.trajectories;
      expect(t!.ids).toEqual(plain!.ids);
      expect(t!.actionMask).toEqual(plain!.actionMask);
      expect(t!.messages).toEqual(plain!.messages);
    }
  });

  it('builds the registry from options.tools when deps give none (the trainer and eval path)', async () => {
    const sampler = scriptedSampler(tokenizer, [
      ['SEARCH: greatest common divisor', 'FINAL ANSWER: 12'],
    ]);
    const {
      trajectories: [t],
    } = await runEpisodes(
      [task],
      { sampler, tokenizer, executor: fakeExecutor(), rng: new Rng(4) },
      { ...options, tools: SEARCH_TOOLS },
    );
    expect(t!.messages[0]!.content).toBe(systemPrompt(SEARCH_TOOLS));
    // the real search tool: its observation is the index's formatted top 3
    const expected = formatSearchResults(
      'greatest common divisor',
      searchDocs('greatest common divisor', 3),
    );
    expect(t!.turns[0]!.call!.observation).toBe(expected);
    expect(t!.messages[3]!.content).toBe(expected);
  });

  it('answers an action whose tool the run lacks with a format error listing the actions there are', async () => {
    const tools = toolRegistry(['search', 'finish'], {
      tools: { search: fakeSearch([], async () => RESULTS) },
    });
    const ran: string[] = [];
    const sampler = scriptedSampler(tokenizer, [['```python\nprint(1)\n```', 'FINAL ANSWER: 1']]);
    const {
      trajectories: [t],
    } = await runEpisodes(
      [task],
      { sampler, tokenizer, executor: fakeExecutor(ran), rng: new Rng(5), tools },
      options,
    );
    const observation =
      'Format error: execute_code is not available here. Available actions: search, finish.';
    expect(ran).toEqual([]);
    expect(t!.turns[0]!.action).toEqual({ type: 'format_error', observation });
    expect(t!.turns[0]!.tool).toBeNull();
    expect(t!.messages[3]!.content).toBe(observation);
    expect(t!.finishReason).toBe('final_answer');
  });

  it('ends the episode on the last turn after a tool call, keeping the call for the reward', async () => {
    const tools = toolRegistry(SEARCH_TOOLS, {
      tools: { search: fakeSearch([], async () => RESULTS) },
    });
    const sampler = scriptedSampler(tokenizer, [['SEARCH: gcd']]);
    const {
      trajectories: [t],
    } = await runEpisodes(
      [task],
      { sampler, tokenizer, executor: fakeExecutor(), rng: new Rng(6), tools },
      { ...options, maxTurns: 1 },
    );
    expect(t!.finishReason).toBe('max_turns');
    expect(t!.turns[0]!.call!.observation).toBe(RESULTS);
    expect(t!.turns[0]!.observation).toBeNull();
    expect(layoutProblems(t!)).toEqual([]);
  });

  it('ends only the episode whose tool threw, naming the tool', async () => {
    const tools = toolRegistry(SEARCH_TOOLS, {
      tools: {
        search: fakeSearch([], async () => {
          throw new Error('index failed to load');
        }),
      },
    });
    const sampler = scriptedSampler(tokenizer, [
      ['SEARCH: gcd'],
      ['```python\nprint(12)\n```', 'FINAL ANSWER: 12'],
    ]);
    const { trajectories } = await runEpisodes(
      [task],
      { sampler, tokenizer, executor: fakeExecutor(), rng: new Rng(7), tools },
      { ...options, groupSize: 2 },
    );
    expect(trajectories.map((t) => t.finishReason)).toEqual(['error', 'final_answer']);
    expect(trajectories[0]!.rewardErrors).toEqual([
      { part: 'search', message: 'index failed to load' },
    ]);
  });
});
