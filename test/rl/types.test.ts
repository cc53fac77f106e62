// The trajectory record's layout check: masks, spans and log-prob arrays must agree.
import { describe, expect, it } from 'vitest';
import { layoutProblems, newTrajectory, type Trajectory, type Turn } from '../../src/rl/types.ts';

const turn = (generated: [number, number], observation: [number, number] | null): Turn => ({
  generated: { start: generated[0], end: generated[1] },
  observation: observation && { start: observation[0], end: observation[1] },
  text: '',
  stop: 'eos',
  action: { type: 'finish', answer: '1' },
  execution: null,
});
// prompt 0..3, turn 1 generates 3..5, observation 5..8, turn 2 generates 8..10
const good: Trajectory = {
  ...newTrajectory({ id: 'a', taskId: 't', groupIndex: 0, sampleIndex: 0, prompt: 'p' }),
  ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  actionMask: [0, 0, 0, 1, 1, 0, 0, 0, 1, 1],
  turns: [turn([3, 5], [5, 8]), turn([8, 10], null)],
  oldLogprobs: new Array(10).fill(0),
};

describe('layoutProblems', () => {
  it('accepts a consistent trajectory', () => {
    expect(layoutProblems(good)).toEqual([]);
    expect(
      layoutProblems(
        newTrajectory({ id: 'b', taskId: 't', groupIndex: 0, sampleIndex: 0, prompt: 'p' }),
      ),
    ).toEqual([]);
  });

  it('names each inconsistency', () => {
    expect(layoutProblems({ ...good, actionMask: good.actionMask.slice(1) })).toEqual([
      expect.stringMatching(/actionMask has 9 entries for 10 ids/),
    ]);
    expect(layoutProblems({ ...good, actionMask: [1, ...good.actionMask.slice(1)] })).toEqual([
      expect.stringMatching(/actionMask\[0\] is 1/),
    ]);
    expect(layoutProblems({ ...good, actionMask: [0, 0, 0, 1, 1, 1, 0, 0, 1, 1] })).toEqual([
      expect.stringMatching(/differs from the union/),
    ]);
    expect(layoutProblems({ ...good, refLogprobs: [0] })).toEqual([
      expect.stringMatching(/refLogprobs has 1 entries/),
    ]);
    expect(layoutProblems({ ...good, turns: [turn([3, 5], [5, 9]), turn([8, 10], null)] })).toEqual(
      [expect.stringMatching(/turn 1 generated span \[8, 10\) is out of order/)],
    );
  });
});
