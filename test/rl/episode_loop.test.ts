// The episode loop with a scripted policy and a fake sandbox: turn structure, token layout
// (mask 1 exactly on sampled ids, observations appended as template deltas), episode endings,
// and that a slow execution does not hold back other episodes.
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../src/model/rng.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { FORMAT_ERROR_OBSERVATION, SYSTEM_PROMPT } from '../../src/rl/actions.ts';
import { runEpisodes, type EpisodeLoopOptions, type Sampler } from '../../src/rl/episode_loop.ts';
import { layoutProblems } from '../../src/rl/types.ts';
import type { CodeExecutor, ExecOutcome } from '../../src/env/types.ts';
import type { Task } from '../../src/tasks/task.ts';
import { loadTokenizer, type Tokenizer } from '../../src/tokenizer/index.ts';

const task = (id: string): Task => ({
  id,
  source: 'custom',
  prompt: `Task ${id}: print 55.`,
  expectedOutput: '55',
  tests: null,
  family: 'numbers',
  kind: 'print',
  difficulty: 1,
  split: 'train',
  solution: null,
});

const options: EpisodeLoopOptions = {
  groupSize: 1,
  maxTurns: 3,
  maxNewTokens: 64,
  temperature: 1,
  parser: 'strict',
  timeoutMs: 1000,
  step: 1,
};

/**
 * A policy that replays fixed turn texts per episode (episodes are told apart by their Rng stream).
 */
function scriptedSampler(tokenizer: Tokenizer, scripts: string[][], log: number[][] = []): Sampler {
  const owners = new Map<Rng, number>();
  let nextOwner = 0;
  const turnOf = new Map<number, number>();
  return {
    maxPositions: 4096,
    async sample(contexts, rngs, sampleOptions) {
      const batch: number[] = [];
      const out = {
        ids: [] as number[][],
        logprobs: [] as number[][],
        finishReasons: [] as ('eos' | 'length')[],
      };
      rngs.forEach((rng, i) => {
        if (!owners.has(rng)) owners.set(rng, nextOwner++);
        const episode = owners.get(rng)!;
        batch.push(episode);
        const turn = turnOf.get(episode) ?? 0;
        turnOf.set(episode, turn + 1);
        let ids = tokenizer.encode(scripts[episode]![turn]!, { addSpecialTokens: false });
        let reason: 'eos' | 'length' = 'length';
        if (ids.length < sampleOptions.maxNewTokens) {
          ids = [...ids, sampleOptions.eosIds[0]!];
          reason = 'eos';
        } else ids = ids.slice(0, sampleOptions.maxNewTokens);
        expect(contexts[i]!.length).toBeGreaterThan(0);
        out.ids.push(ids);
        out.logprobs.push(ids.map(() => -0.5));
        out.finishReasons.push(reason);
      });
      log.push(batch);
      return out;
    },
  };
}

/** A sandbox that "prints" whatever `print(...)` holds, after a delay per program. */
function fakeExecutor(delayMs: (code: string) => number = () => 0): CodeExecutor {
  return {
    async execute(code): Promise<ExecOutcome> {
      await new Promise((resolve) => setTimeout(resolve, delayMs(code)));
      if (code.includes('while True'))
        return { ok: false, observation: 'TIMEOUT', timedOut: true, error: null };
      const match = /print\((.*)\)/.exec(code);
      return { ok: true, observation: match ? `${match[1]}\n` : '', timedOut: false, error: null };
    },
  };
}

describe('the episode loop', () => {
  let tokenizer: Tokenizer;
  beforeAll(async () => {
    tokenizer = await loadTokenizer(directorySource('test/fixtures/tokenizers/bytes'));
  });

  it('runs code, appends the observation as a user turn, then finishes', async () => {
    const sampler = scriptedSampler(tokenizer, [['```python\nprint(55)\n```', 'FINAL ANSWER: 55']]);
    const { trajectories } = await runEpisodes(
      [task('a')],
      { sampler, tokenizer, executor: fakeExecutor(), rng: new Rng(1) },
      options,
    );
    const [t] = trajectories;
    expect(t!.finishReason).toBe('final_answer');
    expect(t!.finalAnswer).toBe('55');
    expect(t!.turns.map((turn) => turn.action.type)).toEqual(['execute_code', 'finish']);
    expect(t!.turns[0]!.execution!.result.observation).toBe('55\n');
    expect(layoutProblems(t!)).toEqual([]);
    // The token sequence is exactly the rendered conversation: prompt, turn, observation, turn.
    // (The template ends the last turn with <|im_end|>\n; the model stopped at <|im_end|>.)
    expect(tokenizer.applyChatTemplate(t!.messages)).toBe(`${tokenizer.decode(t!.ids)}\n`);
    expect(t!.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(t!.messages[0]!.content).toBe(SYSTEM_PROMPT);
    expect(t!.messages[3]!.content).toBe('Execution result:\n55\n');
    // Mask 1 on exactly the sampled ids (text + eos of both turns), 0 elsewhere.
    const sampled = t!.turns.flatMap((turn) =>
      t!.ids.slice(turn.generated.start, turn.generated.end),
    );
    expect(t!.actionMask.filter((m) => m === 1).length).toBe(sampled.length);
    expect(tokenizer.decode(sampled)).toBe(
      '```python\nprint(55)\n```<|im_end|>FINAL ANSWER: 55<|im_end|>',
    );
    expect(
      t!.oldLogprobs!.filter((_lp, i) => t!.actionMask[i] === 1).every((lp) => lp === -0.5),
    ).toBe(true);
  });

  it('answers a turn with neither code nor answer with the format observation, and stops at maxTurns', async () => {
    const sampler = scriptedSampler(tokenizer, [['hello', 'still nothing', 'nope']]);
    const {
      trajectories: [t],
    } = await runEpisodes(
      [task('b')],
      { sampler, tokenizer, executor: fakeExecutor(), rng: new Rng(2) },
      options,
    );
    expect(t!.finishReason).toBe('max_turns');
    expect(t!.turns).toHaveLength(3);
    expect(t!.messages[3]!.content).toBe(FORMAT_ERROR_OBSERVATION);
    expect(layoutProblems(t!)).toEqual([]);
  });

  it('ends the episode on a sandbox timeout, as the reference design does', async () => {
    const sampler = scriptedSampler(tokenizer, [
      ['```python\nwhile True: pass\n```', 'FINAL ANSWER: 1'],
    ]);
    const {
      trajectories: [t],
    } = await runEpisodes(
      [task('c')],
      { sampler, tokenizer, executor: fakeExecutor(), rng: new Rng(3) },
      options,
    );
    expect(t!.finishReason).toBe('timeout');
    expect(t!.timedOut).toBe(true);
    expect(t!.turns).toHaveLength(1);
  });

  it('closes a turn cut off by maxNewTokens with the end-of-turn markup (mask 0) and flags truncation', async () => {
    const long = `\`\`\`python\nprint(${'1'.repeat(80)})\n\`\`\``;
    const sampler = scriptedSampler(tokenizer, [[long, 'FINAL ANSWER: 55']]);
    const {
      trajectories: [t],
    } = await runEpisodes(
      [task('d')],
      { sampler, tokenizer, executor: fakeExecutor(), rng: new Rng(4) },
      { ...options, maxNewTokens: 20 },
    );
    expect(t!.truncated).toBe(true);
    expect(t!.turns[0]!.stop).toBe('length');
    const observation = t!.turns[0]!.observation!;
    expect(tokenizer.decode(t!.ids.slice(observation.start, observation.start + 1))).toBe(
      '<|im_end|>',
    );
    expect(t!.actionMask[observation.start]).toBe(0);
    expect(layoutProblems(t!)).toEqual([]);
  });

  it('ends an episode whose observation would not fit the context, so no sequence outgrows the model', async () => {
    const sampler = {
      ...scriptedSampler(tokenizer, [['```python\nprint(55)\n```', 'FINAL ANSWER: 55']]),
      maxPositions: 0,
    };
    const prompt = tokenizer.encodeChat(
      [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: task('i').prompt },
      ],
      { addGenerationPrompt: true },
    );
    sampler.maxPositions = prompt.length + 40; // room for the turn, not for "Execution result:" and a reply
    const {
      trajectories: [t],
    } = await runEpisodes(
      [task('i')],
      { sampler, tokenizer, executor: fakeExecutor(), rng: new Rng(9) },
      options,
    );
    expect(t!.finishReason).toBe('context_full');
    expect(t!.turns).toHaveLength(1);
    expect(t!.turns[0]!.execution!.result.observation).toBe('55\n'); // the execution still counts for the reward
    expect(t!.ids.length).toBeLessThan(sampler.maxPositions);
    expect(layoutProblems(t!)).toEqual([]);
  });

  it('refuses a task whose prompt leaves no room to answer, naming it, before sampling anything', async () => {
    const sampler = { ...scriptedSampler(tokenizer, [['FINAL ANSWER: 55']]), maxPositions: 0 };
    const prompt = tokenizer.encodeChat(
      [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: task('j').prompt },
      ],
      { addGenerationPrompt: true },
    );
    sampler.maxPositions = prompt.length + 1; // one short of room for a single token
    let sampled = 0;
    const counting = {
      ...sampler,
      sample: (...args: Parameters<typeof sampler.sample>) => {
        sampled++;
        return sampler.sample(...args);
      },
    };
    await expect(
      runEpisodes(
        [task('j')],
        { sampler: counting, tokenizer, executor: fakeExecutor(), rng: new Rng(9) },
        options,
      ),
    ).rejects.toThrow(
      new RegExp(
        `task ${task('j').id}: its prompt is ${prompt.length} tokens .* context \\(max_position_embeddings\\) is ${prompt.length + 1}.*Fix: shorten`,
      ),
    );
    expect(sampled).toBe(0);
    sampler.maxPositions = prompt.length + 2; // room for one token: it runs
    const {
      trajectories: [t],
    } = await runEpisodes(
      [task('j')],
      { sampler, tokenizer, executor: fakeExecutor(), rng: new Rng(9) },
      options,
    );
    expect(t!.ids.length).toBeLessThanOrEqual(prompt.length + 2);
  });

  it('does not hold other episodes back while one waits on a slow execution', async () => {
    const log: number[][] = [];
    const scripts = [
      ['```python\nprint("slow")\n```', 'FINAL ANSWER: slow'],
      ['```python\nprint(1)\n```', '```python\nprint(2)\n```', 'FINAL ANSWER: 2'],
    ];
    const sampler = scriptedSampler(tokenizer, scripts, log);
    const executor = fakeExecutor((code) => (code.includes('slow') ? 400 : 5));
    const { trajectories } = await runEpisodes(
      [task('e'), task('f')],
      { sampler, tokenizer, executor, rng: new Rng(5) },
      options,
    );
    expect(trajectories.map((t) => t.finishReason)).toEqual(['final_answer', 'final_answer']);
    // Round 1 decodes both; episode 1 then takes turns 2 and 3 alone while episode 0's code runs.
    expect(log[0]).toEqual([0, 1]);
    expect(log.slice(1, 3)).toEqual([[1], [1]]);
    expect(log[3]).toEqual([0]);
  });

  it('times the sandbox as the wall-clock wait, not the sum of programs that ran side by side', async () => {
    const scripts = Array.from({ length: 4 }, () => [
      '```python\nprint(1)\n```',
      'FINAL ANSWER: 1',
    ]);
    const sampler = scriptedSampler(tokenizer, scripts);
    const executor = fakeExecutor(() => 300); // four programs at once, 300 ms each
    const { trajectories, timing } = await runEpisodes(
      [task('t')],
      { sampler, tokenizer, executor, rng: new Rng(9) },
      { ...options, groupSize: 4 },
    );
    const summed =
      trajectories.reduce((sum, t) => sum + t.turns[0]!.execution!.durationMs, 0) / 1000;
    expect(summed).toBeGreaterThan(1.1);
    expect(timing.sandboxSeconds).toBeGreaterThan(0.25);
    expect(timing.sandboxSeconds).toBeLessThan(0.6);
  });

  it('keeps at most maxSequences episodes under way, starting the next as one ends, with the same episodes', async () => {
    // five episodes of 1 to 3 turns; with two at a time, each ended episode's cache is forgotten
    const scripts = [1, 3, 2, 1, 2].map((turns, e) => [
      ...Array.from({ length: turns - 1 }, (_, t) => `\`\`\`python\nprint(${e}${t})\n\`\`\``),
      `FINAL ANSWER: ${e}`,
    ]);
    const run = async (maxSequences?: number) => {
      const log: number[][] = [];
      const forgotten: number[][] = [];
      const sampler = {
        ...scriptedSampler(tokenizer, scripts, log),
        forget: (ids: readonly number[]) => forgotten.push([...ids]),
      };
      const { trajectories } = await runEpisodes(
        [task('w')],
        { sampler, tokenizer, executor: fakeExecutor(() => 5), rng: new Rng(8) },
        { ...options, groupSize: 5, ...(maxSequences ? { maxSequences } : {}) },
      );
      return { log, forgotten, trajectories };
    };
    const all = await run();
    const capped = await run(2);
    expect(all.log[0]).toEqual([0, 1, 2, 3, 4]);
    expect(Math.max(...capped.log.map((batch) => batch.length))).toBe(2);
    expect(capped.log[0]).toEqual([0, 1]);
    // every episode ran whole, the same as with all five at once
    expect(capped.trajectories.map((t) => t.turns.length)).toEqual([1, 3, 2, 1, 2]);
    expect(capped.trajectories.map((t) => t.ids)).toEqual(all.trajectories.map((t) => t.ids));
    expect(capped.trajectories.every((t) => t.finishReason === 'final_answer')).toBe(true);
    // each ended episode's ids, once, in the order they ended
    expect(capped.forgotten).toHaveLength(5);
    expect(new Set(capped.forgotten.map((ids) => ids.join()))).toEqual(
      new Set(capped.trajectories.map((t) => t.ids.join())),
    );
    // episode 2 started only once episode 0 (one turn) had ended
    const firstOf = (e: number) => capped.log.findIndex((batch) => batch.includes(e));
    expect(firstOf(2)).toBeGreaterThan(0);
    expect(firstOf(4)).toBeGreaterThan(firstOf(3));
  });

  it('gives each episode its own sampling stream, independent of batch composition', async () => {
    const seen: number[][] = [];
    const sampler: Sampler = {
      maxPositions: 4096,
      async sample(contexts, rngs) {
        seen.push(rngs.map((rng) => rng.uniform()));
        return {
          ids: contexts.map(() => [tokenizer.eosIds[0]!]),
          logprobs: contexts.map(() => [0]),
          finishReasons: contexts.map(() => 'eos' as const),
        };
      },
    };
    await runEpisodes(
      [task('g'), task('h')],
      { sampler, tokenizer, executor: fakeExecutor(), rng: new Rng(6) },
      { ...options, groupSize: 2 },
    );
    const again: number[][] = [];
    const sampler2: Sampler = {
      ...sampler,
      async sample(contexts, rngs, o) {
        again.push(rngs.map((rng) => rng.uniform()));
        return sampler.sample(contexts, rngs, o);
      },
    };
    await runEpisodes(
      [task('g')],
      { sampler: sampler2, tokenizer, executor: fakeExecutor(), rng: new Rng(6) },
      { ...options, groupSize: 2 },
    );
    // The first two episodes draw the same numbers whether or not two more episodes share the
    // batch.
    expect(again[0]).toEqual(seen[0]!.slice(0, 2));
  });
});
