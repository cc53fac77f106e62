// What a sample card says its reward was made of (trajectory_model.ts scoredText): the parts that
// applied with their scores and weights, and what was not scored, so that "passed" beside a
// nonsense FINAL ANSWER explains itself.
import { describe, expect, it } from 'vitest';
import { newTrajectory, type Trajectory } from '../../src/rl/types.ts';
import { scoredText, tamperedText } from '../../src/ui/state/trajectory_model.ts';

const sample = (fields: Partial<Trajectory>): Trajectory => ({
  ...newTrajectory({ id: '1/0/0', taskId: 'caesar', groupIndex: 0, sampleIndex: 0, prompt: 'p' }),
  ...fields,
});
const defaults = { output_match: 1, tests: 1, final_answer: 0, format: 0, tool_use: 0 };

describe('scoredText', () => {
  it('a passed sample with a garbled FINAL ANSWER: the printed line and the tests were scored, the answer was not', () => {
    const t = sample({
      rewardParts: { output_match: 1, tests: 1 },
      reward: 1,
      passed: true,
      finalAnswer: ', ukt!',
    });
    expect(scoredText(t, defaults)).toBe(
      'Scored: output_match 1 (last printed line = expected output) × 1 + tests 1 (hidden tests passed) × 1 → r = 1 ' +
        'Its FINAL ANSWER text is shown but not scored (final_answer has weight 0).',
    );
  });

  it('partial scores and weights as numbers, and the parts left out', () => {
    const t = sample({ rewardParts: { output_match: 0, tests: 2 / 3 }, reward: 1 / 3 });
    expect(scoredText(t, { ...defaults, tests: 2 })).toBe(
      'Scored: output_match 0 (last printed line = expected output) × 1 + tests 0.67 (hidden tests passed) × 2 → r = 0.33 ' +
        'Not scored here: final_answer, format, tool_use.',
    );
  });

  it('a timed-out sample says why every part is 0; a task no part applied to says so', () => {
    const timedOut = sample({ rewardParts: { output_match: 0 }, timedOut: true });
    expect(scoredText(timedOut, defaults)).toMatch(/→ r = 0 \(timed out: every part 0\)/);
    expect(scoredText(sample({}), defaults)).toMatch(/^Scored: no reward part applied/);
  });

  it("a caught hack says so in words, with the judge's reasons", () => {
    const t = sample({ tampered: ['redefines builtin exec', 'patches a builtin'] });
    expect(tamperedText(t)).toBe(
      'Reward hacking caught: the program tried to change how it is judged, so its tests scored 0 (the judge saw: redefines builtin exec; patches a builtin).',
    );
  });
});
