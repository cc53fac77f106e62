// The model card the demo recipe writes: the recipe's minutes carried across resumed runs, and the
// default run's table written into "Under GRPO" by scripts/demo/default_run.ts --card.
import { describe, expect, it } from 'vitest';
import {
  cardRecipeMinutes,
  modelCard,
  underGrpoTable,
  withUnderGrpo,
  type CardFacts,
  type DefaultRunRow,
} from '../../scripts/demo/model_card.ts';
import {
  SEARCH_RUN_COMMAND,
  searchGrpoTable,
  withSearchGrpo,
  type SearchFacts,
  type SearchRunRow,
} from '../../scripts/demo/model_card_search.ts';

const facts = (overrides: Partial<CardFacts>): CardFacts => ({
  parameters: 2_200_000,
  shape: {
    vocabSize: 1536,
    hiddenSize: 192,
    layers: 4,
    heads: 4,
    intermediateSize: 576,
    maxPositions: 1024,
  },
  corpusSize: 100,
  wrongShare: 0.35,
  tokens: 1000,
  steps: 10,
  batchSize: 8,
  trainMinutes: 30,
  totalMinutes: 36.6,
  seed: 1,
  command: 'npm run make-demo-model -- --seed 1',
  longestTurn: 100,
  samples: 4,
  trainPassAt1: 0.2,
  evalPassAt1: 0,
  byTask: {},
  finalLoss: null,
  backend: 'wasm',
  ...overrides,
});

const row = (seed: number, ranCode: number[], greedy = true): DefaultRunRow => ({
  seed,
  before: { train: 0.2, eval: 0, ...(greedy ? { greedyTrain: 0.1 } : {}) },
  after: { train: 0.5, eval: 0.05, ...(greedy ? { greedyTrain: 0.6 } : {}) },
  minutes: 3.25,
  ranCode,
});

describe('demo model card', () => {
  it('says how the skill part made its names up, as the recipe set them', () => {
    const skills = { transcripts: 80, skills: 27, redrawn: 3 };
    const flat = (card: string) => card.replace(/\s+/g, ' ');
    expect(flat(modelCard(facts({ skills })))).toContain(
      'or made up from syllables: 30% of function names, 20% of parameters, which only copying',
    );
    const words = flat(
      modelCard(facts({ skills: { ...skills, names: { function: 0.8, param: 0.5, words: 0.5 } } })),
    );
    expect(words).toContain(
      'made up from syllables or, 50% of them, from English words (`sift_pebble`): 80% of function names, 50% of parameters, which only copying',
    );
    expect(words).toContain('80 of those transcripts');
  });

  it('states the pass@1 band the checkpoint was chosen by', () => {
    const flat = (card: string) => card.replace(/\s+/g, ' ');
    expect(flat(modelCard(facts({})))).toContain('the latest inside the 0.15-0.60 band');
    expect(flat(modelCard(facts({ band: [0, 1] })))).toContain(
      'the latest inside the 0.00-1.00 band',
    );
  });

  it("states one run's minutes, and a resumed run's as the sum of its runs, which the next resume reads back", () => {
    const first = modelCard(facts({}));
    expect(first).toContain(
      '(seed 1; deterministic on the same backend with the same `--workers`; 37 minutes on a shared 2-core machine.)',
    );
    expect(cardRecipeMinutes(first)).toEqual([37]);
    const second = modelCard(
      facts({
        command:
          'npm run make-demo-model -- --seed 1\nnpm run make-demo-model -- --resume x --seed 2',
        earlierMinutes: cardRecipeMinutes(first),
        totalMinutes: 14.2,
      }),
    );
    expect(second).toContain(
      "(run in this order, each resuming from the one before's output in the same folder; deterministic on the same backend with the same `--workers`; 37 + 14 minutes on a shared 2-core machine.)",
    );
    expect(second).toContain('14 minutes for this run (the recipe: 37 + 14 minutes)');
    expect(cardRecipeMinutes(second)).toEqual([37, 14]);
    // a card from before the note: its one run's time is in the Training section
    expect(
      cardRecipeMinutes(
        '11 minutes of training, 37 minutes for the whole recipe on a shared 2-core machine.',
      ),
    ).toEqual([37]);
    // unknown earlier times: only the last run's is stated, never a wrong sum
    expect(modelCard(facts({ command: 'a\nb', earlierMinutes: [] }))).toContain(
      '; 37 minutes for the last run on a shared 2-core machine.)',
    );
  });

  it('writes the default run into "Under GRPO", replacing what was there and keeping the rest', () => {
    const card = modelCard(facts({}));
    expect(card).toContain('Not measured on these files yet');
    const table = underGrpoTable([row(1, [0.5, 0.9, 1, 1]), row(2, [0.75, 1, 1, 1])], 4, true);
    expect(table).toContain(
      '| 1 | 0.20 → 0.50 (+0.30) | 0.10 → 0.60 (+0.50) | 0.00 → 0.05 | 3.3 |',
    );
    expect(table).toContain(
      '0.50–0.75 in the first step; every episode of a step ran code from step 2–3 on',
    );
    // a step after that without every episode running code: said so, with the lowest share
    expect(underGrpoTable([row(1, [0.5, 1, 0.89, 1]), row(2, [0.75, 1, 1, 1])], 4, true)).toContain(
      '0.50–0.75 in the first step; it reached 1.00 by step 2 and stayed at 0.89–1.00 after',
    );
    // rows that scored the unseen skill tasks get their column, and the note on what they are
    const fresh = (r: DefaultRunRow): DefaultRunRow => ({
      ...r,
      before: { ...r.before, fresh: 0.3 },
      after: { ...r.after, fresh: 0.55 },
    });
    const withFresh = underGrpoTable([fresh(row(1, [0.5, 1]))], 4, true);
    expect(withFresh).toContain('| builtin eval split | unseen skill tasks | minutes |');
    expect(withFresh).toContain(
      '| 1 | 0.20 → 0.50 (+0.30) | 0.10 → 0.60 (+0.50) | 0.00 → 0.05 | 0.30 → 0.55 (+0.25) | 3.3 |',
    );
    expect(withFresh).toContain('Unseen skill tasks: 28 fresh instances');
    // a row without them (an older run's) drops the column for all
    expect(underGrpoTable([fresh(row(1, [0.5, 1])), row(2, [1])], 4, true)).not.toContain('unseen');
    const written = withUnderGrpo(card, table);
    expect(written).not.toContain('Not measured on these files yet');
    expect(written).toContain(table);
    // written again (a later measurement), the section holds only the new table
    const again = withUnderGrpo(written, underGrpoTable([row(3, [0.5, 0.5], false)], 4, true));
    expect(again).not.toContain('| 1 | 0.20');
    expect(again).toContain('| 3 | 0.20 → 0.50 (+0.30) | – | 0.00 → 0.05 |'); // rows measured before greedy was
    expect(again).toContain(
      "not every step's episodes ran code by the end (0 of 1 seeds got there)",
    );
    expect(again.slice(again.indexOf('## Reproduce'))).toBe(
      card.slice(card.indexOf('## Reproduce')),
    );
    expect(again.slice(0, again.indexOf('## Under GRPO'))).toBe(
      card.slice(0, card.indexOf('## Under GRPO')),
    );
    expect(() => withUnderGrpo('# no sections', table)).toThrow(/Under GRPO/);
  });

  it('has a Search section when the run had a search part, which default_run --preset search fills', () => {
    const search: SearchFacts = {
      transcripts: 300,
      plain: 50,
      searchFirstShare: 0.2,
      guessNameShare: 0.45,
      trainPassAt1: 0.12,
      evalPassAt1: 0,
      trainSearchedFirst: 0.18,
      evalSearchedFirst: 0.1,
    };
    expect(modelCard(facts({}))).not.toContain('## Search');
    const card = modelCard(facts({ search }));
    expect(card).toContain('## Search');
    expect(card).toContain('| search train split | 0.12 | 0.18 |');
    expect(card).toContain('20% search first');
    expect(card).toContain('35% answer at once');
    expect(card).toContain(SEARCH_RUN_COMMAND);
    const searchRow = (seed: number, after: number): SearchRunRow => ({
      seed,
      before: { train: 0.1, eval: 0, searchedFirst: 0.15, evalSearchedFirst: 0.1 },
      after: { train: 0.4, eval: 0.1, searchedFirst: after, evalSearchedFirst: 0.5 },
      minutes: 2.04,
      searchFraction: [0.2, 0.5, after],
    });
    const table = searchGrpoTable([searchRow(1, 0.8), searchRow(2, 0.9)], 8);
    expect(table).toContain(
      '| 1 | 0.10 → 0.40 (+0.30) | 0.15 → 0.80 (+0.65) | 0.00 → 0.10 | 0.10 → 0.50 | 2.0 |',
    );
    expect(table).toContain('was 0.20 in the first step and 0.80–0.90 in the last');
    const written = withSearchGrpo(card, table);
    expect(written).toContain(table);
    expect(written).not.toContain(`\`${SEARCH_RUN_COMMAND}\` measures it`);
    // written again, only the new table; the rest of the card is untouched
    const again = withSearchGrpo(written, searchGrpoTable([searchRow(3, 0.7)], 8));
    expect(again).not.toContain('| 1 | 0.10');
    expect(again.slice(again.indexOf('## Reproduce'))).toBe(
      card.slice(card.indexOf('## Reproduce')),
    );
    expect(again.slice(0, again.indexOf('| 3 |'))).toBe(
      written.slice(0, written.indexOf('| 1 | 0.10')),
    );
    // the default run's table goes into "Under GRPO" and leaves the Search section alone
    const both = withUnderGrpo(again, underGrpoTable([row(1, [0.5, 1])], 4, true));
    expect(both.slice(both.indexOf('## Search'))).toBe(again.slice(again.indexOf('## Search')));
    expect(both).toContain('| 1 | 0.20 → 0.50 (+0.30) |');
    expect(() => withSearchGrpo(modelCard(facts({})), table)).toThrow(/Search/);
  });
});
