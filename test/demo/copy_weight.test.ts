// The copy weight of the demo recipe (`--copy-weight`): learned tokens that repeat a pair of given
// tokens (the task, an observation; not the system prompt) weigh more in the loss; nothing else
// changes.
import { describe, expect, it } from 'vitest';
import { directorySource } from '../../src/model_files/node_source.ts';
import { formatObservation, SYSTEM_PROMPT } from '../../src/rl/actions.ts';
import { loadTokenizer } from '../../src/tokenizer/index.ts';
import { copyShare, encodeTranscript, weighCopies } from '../../scripts/demo/tokenizer_files.ts';
import { codeTurn } from '../../scripts/demo/transcripts.ts';

describe('weighCopies', () => {
  it('weighs a learned token whose pair with the token before it was given earlier (hand-worked)', () => {
    // Given: 5 6 7 9 → pairs (5,6) (6,7) (7,9). Learned: 6 7 8 5 6 2 2 2.
    const ids = [5, 6, 7, 9, 6, 7, 8, 5, 6, 2, 2, 2];
    const mask = [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1];
    const weighed = weighCopies({ ids, mask }, 3);
    // (9,6) no; (6,7) given; (7,8) no; (8,5) no; (5,6) given; (6,2) no; (2,2) only learned before: no.
    expect(weighed.mask).toEqual([0, 0, 0, 0, 1, 3, 1, 1, 3, 1, 1, 1]);
    expect(weighed.ids).toBe(ids);
    expect(mask).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(copyShare([weighed])).toBeCloseTo(2 / 8, 12);
    expect(weighCopies({ ids, mask }, 1).mask).toBe(mask);
  });

  it('a pair that straddles a given and a learned token is not given, nor one outside `given`', () => {
    expect(weighCopies({ ids: [1, 2, 1, 2], mask: [0, 1, 0, 1] }, 4).mask).toEqual([0, 1, 0, 1]);
    const example = { ids: [1, 2, 3, 4, 1, 2, 3, 4], mask: [0, 0, 0, 0, 1, 1, 1, 1] };
    const given = [false, false, true, true, false, false, false, false];
    expect(weighCopies(example, 4, given).mask).toEqual([0, 0, 0, 0, 1, 1, 1, 4]);
  });

  it("in a transcript, weighs the prompt's made-up name and values and the printed answer", async () => {
    const tokenizer = await loadTokenizer(directorySource('public/models/demo'));
    const messages = [
      { role: 'system' as const, content: SYSTEM_PROMPT },
      {
        role: 'user' as const,
        content:
          'Define a function `vozu_ke(xs)` that returns the sum of xs. Then print vozu_ke([7, 31, 4]).',
      },
      {
        role: 'assistant' as const,
        content: codeTurn('def vozu_ke(xs):\n    return sum(xs)\nprint(vozu_ke([7, 31, 4]))\n'),
      },
      { role: 'user' as const, content: formatObservation('8642\n') },
      { role: 'assistant' as const, content: 'FINAL ANSWER: 8642' },
    ];
    const plain = encodeTranscript(tokenizer, messages);
    const weighed = encodeTranscript(tokenizer, messages, 2);
    const text = (pick: (m: number) => boolean) =>
      tokenizer.decode(
        weighed.ids.filter((_, i) => pick(weighed.mask[i]!)),
        { skipSpecialTokens: false },
      );
    const copied = text((m) => m === 2);
    // A copied token is the second of a given pair: "ke" after "vozu_", "31" after "7, ", ...
    for (const piece of ['ke', '31', '42']) expect(copied).toContain(piece);
    // The system prompt shows the format, but copying it is not what the weight is for.
    expect(copied).not.toContain('return');
    expect(weighed.mask.filter((m) => m > 0).length).toBe(plain.mask.filter((m) => m > 0).length);
    expect(copyShare([weighed])).toBeGreaterThan(0.1);
    expect(copyShare([weighed])).toBeLessThan(0.9);
    expect(copied).not.toContain('```');
  });
});
