// The demo corpus: real sandbox observations in the agent loop's format, templates that pass the
// hidden tests of the tasks they mirror, and no held-out material (eval prompts, hidden tests).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStrict, SYSTEM_PROMPT, OBSERVATION_PREFIX } from '../../src/rl/actions.ts';
import type { CodeExecutor } from '../../src/env/types.ts';
import { BUILTIN_TASKS } from '../../src/tasks/builtin/index.ts';
import { tasksFor } from '../../src/tasks/registry.ts';
import { lastLine } from '../../src/rl/rewards.ts';
import { checkTemplates, generateCorpus, leakProblems } from '../../scripts/demo/corpus.ts';
import { sandboxExecutor } from '../../scripts/demo/sandbox_executor.ts';
import { TEMPLATES } from '../../scripts/demo/templates.ts';
import {
  genericMistakes,
  misspell,
  wrongGuess,
  type Transcript,
} from '../../scripts/demo/transcripts.ts';
import { Rng } from '../../src/model/rng.ts';

let executor: CodeExecutor;
let corpus: Transcript[];

beforeAll(async () => {
  executor = await sandboxExecutor();
  corpus = await generateCorpus(TEMPLATES, executor, {
    size: 3 * TEMPLATES.length,
    seed: 11,
    wrongShare: 0.4,
    genericShare: 0.3,
  });
}, 120_000);
afterAll(() => undefined);

describe('demo corpus', () => {
  it('has one template per seed task and builtin train task, and none for the eval split', () => {
    const covered = new Set(TEMPLATES.map((t) => t.taskId));
    expect([...covered].sort()).toEqual(
      tasksFor('seed+builtin')
        .map((t) => t.id)
        .sort(),
    );
    for (const task of BUILTIN_TASKS.filter((t) => t.split === 'eval'))
      expect(covered.has(task.id)).toBe(false);
  });

  it("templates' correct programs pass the hidden tests of the tasks they mirror", async () => {
    expect(await checkTemplates(TEMPLATES, executor, 5)).toEqual([]);
  }, 60_000);

  it('contains no eval-split prompt or function and no hidden test line', () => {
    expect(leakProblems(corpus)).toEqual([]);
    // the check itself can fail: plant an eval prompt and a hidden test line
    const evalTask = BUILTIN_TASKS.find((t) => t.split === 'eval')!;
    const trainTask = BUILTIN_TASKS.find((t) => t.split === 'train')!;
    const planted: Transcript = {
      taskId: 'x',
      firstTryCorrect: true,
      messages: [
        { role: 'user', content: evalTask.prompt },
        { role: 'assistant', content: trainTask.tests![0]! },
      ],
    };
    const problems = leakProblems([...corpus, planted]);
    expect(problems.some((p) => p.includes(`prompt of eval task ${evalTask.id}`))).toBe(true);
    expect(problems.some((p) => p.includes(`hidden test of ${trainTask.id}`))).toBe(true);
  });

  it('is in the agent loop format, with real observations and a true final answer', () => {
    for (const t of corpus) {
      const [system, user, ...rest] = t.messages;
      expect(system).toEqual({ role: 'system', content: SYSTEM_PROMPT });
      expect(user!.role).toBe('user');
      // assistant / observation alternate, code turns parse as code, the last turn answers
      rest.forEach((m, i) => expect(m.role).toBe(i % 2 === 0 ? 'assistant' : 'user'));
      const assistant = rest.filter((m) => m.role === 'assistant');
      const observations = rest.filter((m) => m.role === 'user');
      expect(assistant.length).toBe(t.firstTryCorrect ? 2 : 3);
      for (const m of assistant.slice(0, -1))
        expect(parseStrict(m.content).type).toBe('execute_code');
      for (const m of observations) expect(m.content.startsWith(OBSERVATION_PREFIX)).toBe(true);
      const final = parseStrict(assistant.at(-1)!.content);
      expect(final.type).toBe('finish');
      expect(final.type === 'finish' && final.answer).toBe(
        lastLine(observations.at(-1)!.content.slice(OBSERVATION_PREFIX.length)),
      );
      if (!t.firstTryCorrect)
        expect(lastLine(observations[0]!.content.slice(OBSERVATION_PREFIX.length))).not.toBe(
          final.type === 'finish' && final.answer,
        );
    }
  });

  it('has wrong first attempts at about the requested share, with real tracebacks among them', () => {
    const wrong = corpus.filter((t) => !t.firstTryCorrect);
    expect(wrong.length / corpus.length).toBeGreaterThan(0.2);
    expect(wrong.length / corpus.length).toBeLessThan(0.55);
    const tracebacks = wrong.filter((t) =>
      t.messages[3]!.content.includes('Traceback (most recent call last):\n  File "main.py"'),
    );
    expect(tracebacks.length).toBeGreaterThan(0);
  });

  it('generic mistakes misspell the call or drop the print', () => {
    expect(misspell('sum_to')).toBe('sumto');
    expect(misspell('gcd')).toBe('gdc');
    const [nameError, noPrint] = genericMistakes({
      prompt: '',
      functionName: 'gcd',
      mistakes: [],
      solution: 'def gcd(a, b):\n    return a\n\nprint(gcd(4, 6))\n',
    });
    expect(nameError!.code.endsWith('print(gdc(4, 6))\n')).toBe(true);
    expect(noPrint!.code.endsWith('\ngcd(4, 6)\n')).toBe(true);
  });

  it('answers without code, wrongly, in about the requested share when asked to', async () => {
    const guessing = await generateCorpus(TEMPLATES, executor, {
      size: 2 * TEMPLATES.length,
      seed: 12,
      wrongShare: 0.4,
      genericShare: 0.3,
      guessShare: 0.5,
    });
    const guessed = guessing.filter((t) => t.guessed);
    expect(guessed.length / guessing.length).toBeGreaterThan(0.3);
    expect(guessed.length / guessing.length).toBeLessThan(0.7);
    for (const t of guessed) {
      expect(t.messages.length).toBe(3);
      const action = parseStrict(t.messages[2]!.content);
      expect(action.type).toBe('finish');
    }
    // the rest keep the usual shape: code, a real observation, a final answer
    for (const t of guessing.filter((x) => !x.guessed))
      expect(t.messages.length).toBeGreaterThanOrEqual(5);
  }, 120_000);

  it('a guess is never the true answer, and almost every task has one', async () => {
    const rng = new Rng(4);
    let missing = 0;
    for (const template of TEMPLATES) {
      const instance = template.make(rng);
      const expected = lastLine((await executor.execute(instance.solution)).observation)!;
      const guess = await wrongGuess(instance, expected, executor, rng);
      if (guess === null) missing++;
      else expect(guess, template.taskId).not.toBe(expected);
    }
    expect(missing).toBeLessThanOrEqual(Math.ceil(TEMPLATES.length * 0.1));
  }, 120_000);
});
