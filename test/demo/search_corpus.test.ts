// The demo corpus's search part: templates that pass the checks of the search tasks they mirror,
// search observations that are exactly the real index's results, real execution observations, the
// requested mix of paths (searching first stays rare), no eval-split leak, and a corpus that is the
// same for the same seed.
import { beforeAll, describe, expect, it } from 'vitest';
import { formatSearchResults, searchDocs } from '../../src/env/search/index.ts';
import type { CodeExecutor } from '../../src/env/types.ts';
import { Rng } from '../../src/model/rng.ts';
import { OBSERVATION_PREFIX, parseAction, SYSTEM_PROMPT } from '../../src/rl/actions.ts';
import { lastLine } from '../../src/rl/rewards.ts';
import { runEpisodes, type Sampler } from '../../src/rl/episode_loop.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { loadTokenizer, type Tokenizer } from '../../src/tokenizer/tokenizer.ts';
import { SEARCH_TASKS } from '../../src/tasks/builtin/search.ts';
import {
  checkSearchTemplates,
  generateSearchCorpus,
  searchLeakProblems,
} from '../../scripts/demo/corpus_search.ts';
import { sandboxExecutor } from '../../scripts/demo/sandbox_executor.ts';
import { TEMPLATES } from '../../scripts/demo/templates.ts';
import { SEARCH_TEMPLATES } from '../../scripts/demo/templates_search.ts';
import type { Transcript } from '../../scripts/demo/transcripts.ts';
import {
  buildSearchTranscript,
  documents,
  SEARCH_TOOLS,
  searchSystemPrompt,
  type SearchMix,
} from '../../scripts/demo/transcripts_search.ts';

/** A sampler that replays fixed assistant turns, in order. */
function replay(tokenizer: Tokenizer, turns: string[]): Sampler {
  let turn = 0;
  return {
    maxPositions: 4096,
    async sample(contexts, _rngs, o) {
      const ids = contexts.map(() => [
        ...tokenizer.encode(turns[turn++]!, { addSpecialTokens: false }),
        o.eosIds[0]!,
      ]);
      return {
        ids,
        logprobs: ids.map((seq) => seq.map(() => -1)),
        finishReasons: ids.map(() => 'eos' as const),
      };
    },
  };
}

let executor: CodeExecutor;
let corpus: Transcript[];
const MIX: SearchMix = { searchFirst: 0.2, guessName: 0.45, guessFix: 0.3 };
const options = {
  size: 8 * SEARCH_TEMPLATES.length,
  seed: 21,
  mix: MIX,
  plainShare: 0.15,
  wrongShare: 0.35,
  genericShare: 0.3,
};

beforeAll(async () => {
  executor = await sandboxExecutor();
  corpus = await generateSearchCorpus(SEARCH_TEMPLATES, TEMPLATES, executor, options);
}, 180_000);

const parse = (text: string) => parseAction(text, 'strict', SEARCH_TOOLS);
const searchOnes = () => corpus.filter((t) => t.searchStyle !== undefined);

describe('demo corpus, search part', () => {
  it('has one template per search train task and none for the eval split', () => {
    const train = SEARCH_TASKS.filter((t) => t.split === 'train');
    expect(SEARCH_TEMPLATES.map((t) => t.taskId).sort()).toEqual(train.map((t) => t.id).sort());
    for (const template of SEARCH_TEMPLATES)
      expect(template.kind).toBe(train.find((t) => t.id === template.taskId)!.kind);
  });

  it("templates pass their tasks' checks: hidden tests, queries that find the function, guesses that raise", async () => {
    expect(await checkSearchTemplates(SEARCH_TEMPLATES, executor, 5)).toEqual([]);
    expect(await checkSearchTemplates(SEARCH_TEMPLATES, executor, 6)).toEqual([]);
  }, 120_000);

  it('the template check can fail: a template that mirrors an eval task or calls another function', async () => {
    const evalTask = SEARCH_TASKS.find((t) => t.split === 'eval' && t.kind === 'math.hypot')!;
    const base = SEARCH_TEMPLATES[0]!;
    const problems = await checkSearchTemplates(
      [
        { ...base, taskId: evalTask.id, kind: evalTask.kind },
        { ...base, make: (rng) => ({ ...base.make(rng), functionName: 'math.perm' }) },
      ],
      executor,
    );
    expect(problems.some((p) => p.includes('mirrors an eval-split task'))).toBe(true);
    expect(problems.some((p) => p.includes('the program calls math.perm'))).toBe(true);
  }, 60_000);

  it('uses the search system prompt, the one the spec fixes', () => {
    expect(searchSystemPrompt()).toBe(
      'You solve Python tasks by running code.\nTo run code, reply with one block:\n```python\n<code>\n```\nYou will then see its output. To look up a Python function, reply with one line:\nSEARCH: <what it should do>\nYou will then see the top 3 matches from the docs. When you know the answer, reply with:\nFINAL ANSWER: <answer>',
    );
    for (const t of corpus)
      expect(t.messages[0]).toEqual({ role: 'system', content: searchSystemPrompt() });
  });

  it('is in the agent loop format: every search observation is the real index result, every execution real', async () => {
    let searches = 0;
    for (const t of corpus) {
      const [, user, ...rest] = t.messages;
      expect(user!.role).toBe('user');
      rest.forEach((m, i) => expect(m.role).toBe(i % 2 === 0 ? 'assistant' : 'user'));
      for (let i = 0; i < rest.length; i += 2) {
        const action = parse(rest[i]!.content);
        const reply = rest[i + 1];
        if (action.type === 'tool_call') {
          expect(action.tool).toBe('search');
          expect(reply!.content).toBe(formatSearchResults(action.input, searchDocs(action.input)));
          searches++;
        } else if (action.type === 'execute_code') {
          const run = await executor.execute(action.code);
          expect(reply!.content).toBe(`${OBSERVATION_PREFIX}${run.observation}`);
        } else {
          expect(action.type).toBe('finish');
          expect(i).toBe(rest.length - 1); // the answer ends the episode
        }
      }
    }
    expect(searches).toBeGreaterThan(10);
  }, 120_000);

  it('replays through the real rollout with the search tool into exactly the same conversation', async () => {
    const tokenizer = await loadTokenizer(directorySource('public/models/demo'));
    const styles = ['search_first', 'guess_then_search', 'guess_then_wrong', 'answer_only'];
    for (const style of styles) {
      const t = searchOnes().find((x) => x.searchStyle === style)!;
      const turns = t.messages.filter((m) => m.role === 'assistant').map((m) => m.content);
      const task = SEARCH_TASKS.find((x) => x.id === t.taskId)!;
      const { trajectories } = await runEpisodes(
        [{ ...task, prompt: t.messages[1]!.content }],
        { sampler: replay(tokenizer, turns), tokenizer, executor, rng: new Rng(1) },
        {
          groupSize: 1,
          maxTurns: turns.length,
          maxNewTokens: 256,
          temperature: 1,
          parser: 'strict',
          timeoutMs: 5000,
          step: 0,
          tools: SEARCH_TOOLS,
        },
      );
      const [trajectory] = trajectories;
      expect(trajectory!.messages, style).toEqual(t.messages);
      expect(trajectory!.finishReason).toBe('final_answer');
    }
  }, 60_000);

  it('solved transcripts found the function in the results and print the answer they give', () => {
    const solved = searchOnes().filter(
      (t) => t.searchStyle === 'search_first' || t.searchStyle === 'guess_then_search',
    );
    expect(solved.length).toBeGreaterThan(0);
    for (const t of solved) {
      const kind = SEARCH_TASKS.find((task) => task.id === t.taskId)!.kind;
      const results = t.messages.filter((m) => m.content.startsWith('Search results:'));
      expect(results).toHaveLength(1);
      const query = parse(t.messages[t.messages.indexOf(results[0]!) - 1]!.content);
      expect(
        query.type === 'tool_call' && searchDocs(query.input).some((h) => documents(h.name, kind)),
      ).toBe(true);
      // the final code calls the task's function and its output's last line is the answer
      const code = parse(t.messages.at(-3)!.content);
      expect(code.type).toBe('execute_code');
      // every part of its name is in the code: `collections.Counter('ab').most_common(1)`, and a
      // method called on a value, `'7'.zfill(3)`
      for (const part of kind.split('.').filter((p, i) => !(i === 0 && p === 'str')))
        expect(code.type === 'execute_code' && code.code, t.taskId).toMatch(
          new RegExp(`\\b${part}\\b`),
        );
      const answer = parse(t.messages.at(-1)!.content);
      expect(answer.type === 'finish' && answer.answer).toBe(
        lastLine(t.messages.at(-2)!.content.slice(OBSERVATION_PREFIX.length)),
      );
    }
  });

  it('guessed names fail with the real error; answers without the function are wrong', async () => {
    for (const t of searchOnes().filter((x) => x.searchStyle?.startsWith('guess'))) {
      expect(t.messages[3]!.content).toMatch(/(AttributeError|NameError)/);
      expect(t.firstTryCorrect).toBe(false);
    }
    // a wrong path's answer is never the true one: the same instance's solution prints another
    const rng = new Rng(3);
    for (const template of SEARCH_TEMPLATES) {
      const instance = template.make(rng);
      const expected = lastLine((await executor.execute(instance.solution)).observation);
      const t = await buildSearchTranscript(template.taskId, instance, executor, rng, {
        searchFirst: 0,
        guessName: 0,
        guessFix: 0,
      });
      expect(t.searchStyle).toBe('answer_only');
      const answer = parse(t.messages.at(-1)!.content);
      expect(answer.type === 'finish' && answer.answer).not.toBe(expected);
    }
  }, 120_000);

  it('has the requested mix: searching first is rare, guesses and answers without code common', () => {
    const mine = searchOnes();
    const share = (style: string) =>
      mine.filter((t) => t.searchStyle === style).length / mine.length;
    expect(mine.length).toBe(options.size - Math.round(options.size * options.plainShare));
    expect(share('search_first')).toBeGreaterThan(0.1);
    expect(share('search_first')).toBeLessThan(0.3);
    expect(share('answer_only')).toBeGreaterThan(0.2);
    const guesses = mine.filter((t) => t.searchStyle?.startsWith('guess')).length / mine.length;
    expect(guesses).toBeGreaterThan(0.3);
    expect(guesses).toBeLessThan(0.6);
    expect(share('guess_then_search')).toBeGreaterThan(0.05);
  });

  it('renders ordinary tasks under the search prompt, solved by running code, never searching', () => {
    const plain = corpus.filter((t) => t.searchStyle === undefined);
    expect(plain.length).toBe(Math.round(options.size * options.plainShare));
    for (const t of plain) {
      expect(t.messages[0]!.content).not.toBe(SYSTEM_PROMPT);
      const actions = t.messages.filter((m) => m.role === 'assistant').map((m) => parse(m.content));
      expect(actions.some((a) => a.type === 'tool_call')).toBe(false);
      expect(actions[0]!.type).toBe('execute_code');
    }
  });

  it('contains no eval-split prompt, held-out function or hidden test, and the check can fail', () => {
    expect(searchLeakProblems(corpus)).toEqual([]);
    const hypot = SEARCH_TASKS.find((t) => t.kind === 'math.hypot')!;
    const lcm = SEARCH_TASKS.find((t) => t.kind === 'math.lcm')!;
    const planted: Transcript = {
      taskId: 'search/choose',
      firstTryCorrect: true,
      messages: [
        { role: 'user', content: hypot.prompt },
        { role: 'assistant', content: '```python\nimport math\nprint(math.hypot(3, 4))\n```' },
        { role: 'user', content: lcm.tests![0]! },
      ],
    };
    const problems = searchLeakProblems([planted]);
    expect(problems.some((p) => p.includes(`prompt of eval task ${hypot.id}`))).toBe(true);
    expect(problems.some((p) => p.includes(`function of eval task ${hypot.id}`))).toBe(true);
    expect(problems.some((p) => p.includes(`hidden test of ${lcm.id}`))).toBe(true);
    // a trained function held out only by wording (math.comb) is no leak in a train transcript
    const comb: Transcript = {
      ...planted,
      messages: [{ role: 'assistant', content: 'SEARCH: choose\n```python\nmath.comb(5, 2)\n```' }],
    };
    expect(searchLeakProblems([comb])).toEqual([]);
  });

  it('is the same corpus for the same seed, another for another', async () => {
    const small = { ...options, size: 30 };
    const a = await generateSearchCorpus(SEARCH_TEMPLATES, TEMPLATES, executor, small);
    const b = await generateSearchCorpus(SEARCH_TEMPLATES, TEMPLATES, executor, small);
    const c = await generateSearchCorpus(SEARCH_TEMPLATES, TEMPLATES, executor, {
      ...small,
      seed: 22,
    });
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  }, 120_000);
});
