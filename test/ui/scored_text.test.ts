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
  const caesar = { expectedOutput: 'Khoor, Zruog!', tests: null };
  const ran = (...printed: string[]): Trajectory['turns'] =>
    printed.map(
      (observation) =>
        ({
          execution: { code: 'print(x)', result: { observation }, durationMs: 1 },
        }) as unknown as Trajectory['turns'][number],
    );

  it('a passed sample with a garbled FINAL ANSWER: the printed line and the tests were scored, the answer was not', () => {
    const t = sample({
      rewardParts: { output_match: 1, tests: 1 },
      reward: 1,
      passed: true,
      finalAnswer: ', ukt!',
    });
    expect(scoredText(t, defaults)).toBe(
      'Scored: r = 1, the weighted mean of\n· output_match 1 × weight 1: last printed line = expected output\n· tests 1 × weight 1: hidden tests passed\n' +
        'Its FINAL ANSWER text is shown but not scored (final_answer has weight 0).',
    );
  });

  it('with its task: the line it printed against the expected one, and the FINAL ANSWER beside it', () => {
    const t = sample({
      turns: ['Hello\nKhoor, Zruog!\n', 'oops\n'].flatMap((o) => ran(o)),
      rewardParts: { output_match: 1 },
      reward: 1,
      passed: true,
      finalAnswer: ', ukt!',
    });
    expect(scoredText(t, { weights: defaults, task: caesar })).toBe(
      'Scored: r = 1, from\n· output_match 1 × weight 1: printed "Khoor, Zruog!", expected "Khoor, Zruog!"\n' +
        'Its FINAL ANSWER text is shown but not scored (final_answer has weight 0).',
    );
    const wrong = sample({
      turns: ran('Lmttt, Eq!'),
      rewardParts: { output_match: 0, final_answer: 0 },
      finalAnswer: 'Lmttt',
    });
    expect(scoredText(wrong, { weights: { ...defaults, final_answer: 1 }, task: caesar })).toBe(
      'Scored: r = 0, the weighted mean of\n· output_match 0 × weight 1: printed "Lmttt, Eq!", expected "Khoor, Zruog!"\n' +
        '· final_answer 0 × weight 1: answered "Lmttt", expected "Khoor, Zruog!"\nNot scored here: format, tool_use.',
    );
    expect(
      scoredText(sample({ rewardParts: { output_match: 0 } }), { weights: defaults, task: caesar }),
    ).toMatch(/^· output_match 0 × weight 1: no code ran; expected "Khoor, Zruog!"$/m);
  });

  it('tests passed n of m: all, partial credit, all-or-nothing, tampering', () => {
    const task = {
      expectedOutput: null,
      tests: ['x = 1', 'assert f(1) == 2', 'assert f(2) == 4', 'assert f(3) == 6'],
    };
    const scored = (score: number, fields: Partial<Trajectory> = {}, partialCredit = false) =>
      scoredText(
        sample({ turns: ran(''), rewardParts: { tests: score }, reward: score, ...fields }),
        {
          weights: defaults,
          partialCredit,
          task,
        },
      );
    expect(scored(1)).toMatch(/^· tests 1 × weight 1: 3 of 3 hidden tests passed$/m);
    expect(scored(2 / 3, {}, true)).toMatch(
      /^· tests 0\.67 × weight 1: 2 of 3 hidden tests passed$/m,
    );
    expect(scored(0)).toMatch(
      /^· tests 0 × weight 1: not all 3 hidden tests passed \(all must pass\)$/m,
    );
    expect(scored(0, { tampered: ['reads main.py'] })).toMatch(/: 0 of 3 counted \(tampering\)$/m);
    expect(scored(0, { turns: [] })).toMatch(/: no code to test against 3 hidden tests$/m);
  });

  it('partial scores and weights as numbers, and the parts left out', () => {
    const t = sample({ rewardParts: { output_match: 0, tests: 2 / 3 }, reward: 1 / 3 });
    expect(scoredText(t, { ...defaults, tests: 2 })).toBe(
      'Scored: r = 0.33, the weighted mean of\n· output_match 0 × weight 1: last printed line = expected output\n· tests 0.67 × weight 2: hidden tests passed\n' +
        'Not scored here: final_answer, format, tool_use.',
    );
  });

  it('a timed-out sample says why every part is 0; a task no part applied to says so', () => {
    const timedOut = sample({ rewardParts: { output_match: 0 }, timedOut: true });
    expect(scoredText(timedOut, defaults)).toMatch(
      /^Scored: r = 0 \(timed out: every part 0\), from\n· output_match 0 × weight 1: timed out$/m,
    );
    expect(scoredText(sample({}), defaults)).toMatch(/^Scored: no reward part applied/);
  });

  it("a caught hack says so in words, with the judge's reasons", () => {
    const t = sample({ tampered: ['redefines builtin exec', 'patches a builtin'] });
    expect(tamperedText(t)).toBe(
      'Reward hacking caught: the program tried to change how it is judged, so its tests scored 0 (the judge saw: redefines builtin exec; patches a builtin).',
    );
  });
});
