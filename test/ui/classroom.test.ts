// What a class reads on the page tells the truth (issue 64, "the classroom"), the pure parts:
// Revert while only refused inputs differ, each custom-task message once, the Update card's
// sentence when every advantage is 0, a card's FINAL ANSWER that was not scored, status texts
// that name only the controls a lesson shows, and errors that go once what caused them is fixed.
// The page itself: test/e2e/classroom.test.ts.
import { describe, expect, it } from 'vitest';
import { defaultConfig, type RunConfig } from '../../src/run/config.ts';
import { checkField, validateConfig } from '../../src/run/config_validation.ts';
import { fieldMessages, formButtons } from '../../src/ui/state/config_fields.ts';
import { RunActivity } from '../../src/ui/state/run_activity.ts';
import { Changes } from '../../src/ui/state/run_changes.ts';
import { RunController } from '../../src/ui/state/run_controller.ts';
import { finishedStatus, firstPhaseHint, readyStatus } from '../../src/ui/state/status_text.ts';
import { answerLine } from '../../src/ui/state/trajectory_model.ts';
import { updateSummary } from '../../src/ui/state/update_summary.ts';
import { buildTrajectory } from '../helpers/records.ts';
import { FakeTrainer } from './fake_trainer.ts';

describe('the configuration form', () => {
  const standing = {
    edited: false,
    refused: 0,
    problems: 0,
    checking: false,
    canConfigure: true,
  };

  it('offers Revert while the only edit is an input the schema refuses ("abc"), and no Apply', () => {
    const buttons = formButtons({ ...standing, refused: 1 });
    expect(buttons).toEqual({
      apply: false,
      revert: true,
      hint: 'Fix the highlighted fields first.',
    });
  });

  it('offers Apply and Revert for a valid edit, neither for an untouched form', () => {
    expect(formButtons({ ...standing, edited: true })).toMatchObject({ apply: true, revert: true });
    expect(formButtons(standing)).toMatchObject({ apply: false, revert: false });
    // a valid edit beside a refused one: Revert, no Apply
    expect(formButtons({ ...standing, edited: true, refused: 1 })).toMatchObject({
      apply: false,
      revert: true,
    });
    // while training the form cannot apply, but it can still go back
    expect(formButtons({ ...standing, edited: true, canConfigure: false })).toMatchObject({
      apply: false,
      revert: true,
    });
  });

  it("shows a custom task's message once, though the schema refuses it and the draft has it", () => {
    const tasks = [{ prompt: 'Write add(a, b).', tests: 'assert 1 == 1' }];
    const refused = checkField('customTasks', tasks);
    expect('error' in refused).toBe(true);
    const config: RunConfig = { ...defaultConfig(), tasks: 'custom', customTasks: tasks };
    const problems = validateConfig(config)
      .errors.filter((e) => e.field === 'customTasks')
      .map((e) => e.message);
    expect(problems.length).toBeGreaterThan(0); // both say it: that was the double message
    const shown = fieldMessages((refused as { error: string }).error, problems);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatch(/custom task 1: a test names nothing the program defines/);
  });

  it('keeps different messages, each line once, in order', () => {
    expect(fieldMessages('a\nb', ['b', 'c\na', ''])).toEqual(['a', 'b', 'c']);
    expect(fieldMessages(undefined, [])).toEqual([]);
  });
});

describe("the Update card's sentence", () => {
  const trajectories = (advantages: number[][]) =>
    advantages.flatMap((group, groupIndex) =>
      group.map((advantage) => ({ advantage, groupIndex })),
    );
  const group = (rewards: number[], included = true) => ({
    zeroStd: rewards.every((r) => r === rewards[0]),
    included,
  });

  it('says plainly that a step whose every group was uniform changed nothing (seed 1, step 1)', () => {
    const summary = updateSummary(
      trajectories([
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
      ]),
      [group([0, 0, 0]), group([0, 0, 0]), group([1, 1, 1])],
      { grad_norm: 0, update_skipped: null },
    );
    expect(summary.signal).toBe(false);
    expect(summary.text).toBe(
      'No group had different rewards (in each of the 3 groups every sample scored the same), so every advantage is 0 and this update changed nothing: GRPO learns only from groups whose samples differ.',
    );
    expect(summary.text).not.toMatch(/Green|positive/);
  });

  it('says the KL penalty alone moved the weights when the gradient was not 0', () => {
    const summary = updateSummary(trajectories([[0, 0]]), [group([1, 1])], {
      grad_norm: 0.003,
      update_skipped: null,
    });
    expect(summary.text).toMatch(
      /^No group had different rewards \(its samples all scored the same\)/,
    );
    expect(summary.text).toMatch(/only the KL penalty.*moved the weights/);
  });

  it('counts a step whose groups with signal were all left out (skipZeroStdGroups) as no signal', () => {
    const summary = updateSummary(trajectories([[0, 0]]), [group([0, 0], false)], {
      grad_norm: null,
      update_skipped: 'every group was skipped or prefix-broken',
    });
    expect(summary.signal).toBe(false);
    expect(summary.text).toMatch(/this update changed nothing/);
  });

  it('keeps green and red when some group had signal, and names the uniform groups', () => {
    const summary = updateSummary(
      trajectories([
        [0.7, -0.7],
        [0, 0],
      ]),
      [group([1, 0]), group([0, 0])],
      { grad_norm: 0.4, update_skipped: null },
    );
    expect(summary.signal).toBe(true);
    expect(summary.text).toMatch(/^Green samples had a positive advantage/);
    expect(summary.text).toMatch(/1 of 2 groups had equal rewards/);
  });
});

describe("a card's FINAL ANSWER", () => {
  const sample = (finalAnswer: string | null, parts: Record<string, number>) => {
    const { trajectory } = buildTrajectory({
      step: 1,
      taskId: 'custom/1',
      prompt: 'Write double(x).',
      groupIndex: 0,
      sampleIndex: 0,
      turns: [
        {
          text: '```python\ndef double(x): return 2 * x\n```',
          code: 'def double(x): return 2 * x',
        },
        { text: `FINAL ANSWER: ${finalAnswer}`, code: null },
      ],
      reward: 1,
      passed: true,
      finalAnswer,
    });
    trajectory.rewardParts = parts;
    return trajectory;
  };
  const weights = defaultConfig().rewards; // final_answer: 0

  it('is labelled not scored, never the result, when the tests decided the pass', () => {
    const line = answerLine(sample('42', { tests: 1 }), {
      weights,
      task: { expectedOutput: null, tests: ['assert double(2) == 4'] },
    });
    expect(line).toEqual({ text: 'final answer (not scored): 42', tone: 'unscored' });
  });

  it('is said wrong when the expected output shows it is, though not scored', () => {
    const line = answerLine(sample('42', { output_match: 1 }), {
      weights,
      task: { expectedOutput: '55', tests: null },
    });
    expect(line).toEqual({
      text: 'final answer (not scored): 42 (wrong: expected "55")',
      tone: 'unscored',
    });
  });

  it('is the result, right or wrong, when final_answer has a weight', () => {
    const scored = { ...weights, final_answer: 1 };
    const task = { expectedOutput: '55', tests: null };
    expect(answerLine(sample('55', { final_answer: 1 }), { weights: scored, task })).toEqual({
      text: 'FINAL ANSWER: 55 ✓',
      tone: 'scored-right',
    });
    expect(answerLine(sample('42', { final_answer: 0 }), { weights: scored, task })).toEqual({
      text: 'FINAL ANSWER: 42 ✗ (expected "55")',
      tone: 'scored-wrong',
    });
  });

  it('says when there was none, quietly when it would not have counted', () => {
    const none = sample(null, { tests: 1 });
    none.finalAnswer = null;
    none.finishReason = 'max_turns';
    expect(answerLine(none, weights)).toEqual({
      text: 'no final answer (max turns; not scored)',
      tone: 'none',
    });
  });
});

describe('texts that say what to press', () => {
  const none = new Set<string>();

  it('names Train and Step only where the page shows them (#hide=train,pause,step)', () => {
    expect(readyStatus(none)).toBe(
      'Ready. Press Train to run every step, Step for one step or Next phase for one phase at a time.',
    );
    const lesson = new Set(['train', 'pause', 'step']);
    expect(readyStatus(lesson)).toBe('Ready. Press Next phase for one phase at a time.');
    expect(readyStatus(lesson)).not.toMatch(/Train|Step\b/);
    expect(readyStatus(new Set(['train', 'step', 'phase']))).toBe('Ready.');
    expect(firstPhaseHint(lesson)).not.toMatch(/Train|Step\b/);
    expect(firstPhaseHint(new Set(['train', 'step', 'phase']))).not.toMatch(/Press/);
  });

  it('says how to go on after the last step with the controls shown', () => {
    expect(finishedStatus(2, none)).toBe(
      'Finished 2 steps. Raise Steps to go on or press Reset to start over.',
    );
    expect(finishedStatus(2, new Set(['reset']))).toBe('Finished 2 steps. Raise Steps to go on.');
    expect(finishedStatus(2, new Set(['reset', 'config']))).toBe('Finished 2 steps.');
  });

  it("the controller's status line follows the lesson's hidden controls", async () => {
    const controller = new RunController({
      trainer: new FakeTrainer(),
      proxy: (f) => f,
      checkpoints: null,
      hidden: ['train', 'pause', 'step'],
    });
    expect(await controller.start({ ...defaultConfig(), steps: 1 })).toBe(true);
    expect(controller.status).toBe('Ready. Press Next phase for one phase at a time.');
  });
});

describe('errors a teacher sees', () => {
  const activity = () => new RunActivity(new Changes());
  const fail = (message: string) => async () => {
    throw new Error(message);
  };

  it('a failed call replaces its earlier failures: three tries, one block', async () => {
    const a = activity();
    await a.exclusive('starting', 'starting', async () => {});
    a.showError(new Error('a bad task file'), 'reading a file');
    for (const message of [
      'not found on the hub: x/a',
      'gated or private: x/b',
      'x/c too large for this',
    ])
      await a.exclusive('applying the configuration', 'busy', fail(message));
    expect(a.errors.map((e) => e.message)).toEqual(['a bad task file', 'x/c too large for this']);
  });

  it('a call that succeeds clears what its failures said; other errors stay', async () => {
    const a = activity();
    await a.exclusive('starting', 'starting', async () => {});
    a.showError(new Error('a bad task file'), 'reading a file');
    await a.exclusive('training', 'training', fail('out of memory'));
    expect(a.errors).toHaveLength(2);
    await a.exclusive('training', 'training', async () => {});
    expect(a.errors.map((e) => e.during)).toEqual(['reading a file']);
  });

  it('dismisses one error alone', () => {
    const a = activity();
    a.showError(new Error('one'), 'reading a file');
    a.showError(new Error('two'), 'importing an adapter');
    a.dismissError(a.errors[0]);
    expect(a.errors.map((e) => e.message)).toEqual(['two']);
  });

  it('a model that loads clears the refusals and failures of the loads before it', async () => {
    const controller = new RunController({
      trainer: new FakeTrainer(),
      proxy: (f) => f,
      checkpoints: null,
      // the memory check refuses the big ones before they are sent (model_fit.ts's words)
      checkModel: async (choice) => {
        if (choice.kind === 'hub' && choice.repo.startsWith('big/'))
          throw new Error(
            `${choice.repo} cannot even load here: 30 GB. Fix: choose a smaller model.`,
          );
        return null;
      },
    });
    const config = defaultConfig();
    expect(await controller.start(config)).toBe(true);
    controller.showError(new Error('a bad task file'), 'reading a file');
    expect(await controller.applyConfig({ ...config, model: 'big/qwen-7b' })).toBe(false);
    expect(await controller.applyConfig({ ...config, model: 'big/qwen-14b' })).toBe(false);
    expect(controller.errors.map((e) => e.message)).toEqual([
      'a bad task file',
      'big/qwen-14b cannot even load here: 30 GB.',
    ]);
    expect(
      await controller.applyConfig({ ...config, model: 'HuggingFaceTB/SmolLM2-135M-Instruct' }),
    ).toBe(true);
    expect(controller.errors.map((e) => e.during)).toEqual(['reading a file']);
  });
});
