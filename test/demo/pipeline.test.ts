// A smoke run of the whole demo-model recipe (tiny corpus, tiny model, a few steps) so
// scripts/make-demo-model.ts does not rot, plus the pieces with exact answers.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { parseSafetensors } from '../../src/model_files/safetensors.ts';
import { chooseCheckpoint, makeDemoModel } from '../../scripts/demo/pipeline.ts';
import { DEFAULT_SEARCH_MIX } from '../../scripts/demo/transcripts_search.ts';
import { learningRateAt, type SftSchedule } from '../../scripts/demo/sft_loop.ts';

const dir = mkdtempSync(join(tmpdir(), 'demo-smoke-'));
const dir2 = mkdtempSync(join(tmpdir(), 'demo-smoke-resumed-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(dir2, { recursive: true, force: true });
});

describe('demo recipe', () => {
  it('chooses the most-trained checkpoint inside the band, else the nearest', () => {
    const band: [number, number] = [0.15, 0.6];
    expect(
      chooseCheckpoint(
        [
          { step: 1, passAt1: 0.1 },
          { step: 2, passAt1: 0.3 },
          { step: 3, passAt1: 0.5 },
          { step: 4, passAt1: 0.7 },
        ],
        band,
      ).step,
    ).toBe(3);
    expect(
      chooseCheckpoint(
        [
          { step: 1, passAt1: 0.02 },
          { step: 2, passAt1: 0.1 },
        ],
        band,
      ).step,
    ).toBe(2);
    expect(
      chooseCheckpoint(
        [
          { step: 1, passAt1: 0.7 },
          { step: 2, passAt1: 0.9 },
        ],
        band,
      ).step,
    ).toBe(1);
  });

  it('with the band 0,1 (a stage later runs resume from), keeps the newest checkpoint', () => {
    const candidates = [
      { step: 1, passAt1: 0.3 },
      { step: 2, passAt1: 0.7 },
      { step: 3, passAt1: 0.5 },
    ];
    expect(chooseCheckpoint(candidates, [0.15, 0.6]).step).toBe(3);
    expect(chooseCheckpoint([...candidates, { step: 4, passAt1: 0.8 }], [0, 1]).step).toBe(4);
    expect(chooseCheckpoint([...candidates, { step: 4, passAt1: 0.8 }], [0.15, 0.6]).step).toBe(3);
  });

  it('with a search band, chooses among the checkpoints whose search-first share is inside it', () => {
    const band: [number, number] = [0.15, 0.6];
    const candidates = [
      { step: 1, passAt1: 0.2, searchedFirst: 0.05 },
      { step: 2, passAt1: 0.3, searchedFirst: 0.2 },
      { step: 3, passAt1: 0.4, searchedFirst: 0.5 },
    ];
    // without the search band the latest in the pass@1 band wins; with it, the one that searches
    // first in a low share of episodes (GRPO's room to raise it)
    expect(chooseCheckpoint(candidates, band).step).toBe(3);
    expect(chooseCheckpoint(candidates, band, [0.1, 0.3]).step).toBe(2);
    // none inside the search band: the pass@1 rule over all
    expect(chooseCheckpoint(candidates, band, [0.8, 0.9]).step).toBe(3);
  });

  it('warms up linearly, then decays by cosine to the final rate', () => {
    const s: SftSchedule = {
      steps: 110,
      batchSize: 1,
      peakLearningRate: 1e-3,
      finalLearningRate: 1e-4,
      warmupSteps: 10,
      gradClip: 1,
      seed: 0,
    };
    expect(learningRateAt(0, s)).toBeCloseTo(1e-4, 10);
    expect(learningRateAt(9, s)).toBeCloseTo(1e-3, 10);
    expect(learningRateAt(60, s)).toBeCloseTo(5.5e-4, 10); // halfway: mean of peak and final
    expect(learningRateAt(110, s)).toBeCloseTo(1e-4, 10);
  });

  it('runs end to end: corpus, tokenizer, SFT, BF16 export that reloads, scores in the card; then resumes, grown', async () => {
    const result = await makeDemoModel(
      {
        out: dir,
        seed: 3,
        corpusSize: 40,
        wrongShare: 0.35,
        genericShare: 0.3,
        guessShare: 0.2,
        shape: {
          vocabSize: 320,
          hiddenSize: 32,
          layers: 1,
          heads: 2,
          intermediateSize: 64,
          maxPositions: 1024,
        },
        schedule: {
          steps: 6,
          batchSize: 4,
          peakLearningRate: 1e-2,
          finalLearningRate: 1e-3,
          warmupSteps: 1,
          gradClip: 1,
          seed: 3,
        },
        evalEvery: 3,
        evalSamples: 1,
        finalSamples: 1,
        band: [0.15, 0.6],
        sweepTemperatures: [0.5],
        backend: 'wasm',
        command: 'smoke',
        taskLimit: 2,
        evalOverrides: { maxNewTokens: 12, maxTurns: 2 },
        workers: 2, // the data-parallel path, worker thread included
      },
      () => {},
    );
    // it learned something: the loss went down from the first steps to the last
    const { losses } = result;
    expect(losses).toHaveLength(6);
    expect((losses[4]! + losses[5]!) / 2).toBeLessThan((losses[0]! + losses[1]!) / 2);
    // the export reloads through the HF-layout loader, in BF16, close to the float32 weights
    const weights = parseSafetensors(readFileSync(join(dir, 'model.safetensors')));
    expect(new Set([...weights.entries.values()].map((t) => t.dtype))).toEqual(new Set(['BF16']));
    expect(result.facts.logitDiff).toBeLessThan(0.05);
    const model = await CausalLM.load(directorySource(dir));
    expect(model.config.vocabSize).toBe(320);
    model.dispose();
    const card = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(card).toContain('| seed + builtin train split |');
    expect(card).toContain('smoke');
    expect(card).toContain('| seed + builtin train split, temperature 0.5 |');
    expect(result.facts.trainPassAt1).not.toBeNull();

    const lines: string[] = [];
    // the recipe's second run resumes from the first's folder, grown: its weights and tokenizer,
    // its commands and minutes carried into the new card
    const resumed = await makeDemoModel(
      {
        out: dir2,
        seed: 4,
        corpusSize: 20,
        wrongShare: 0.35,
        genericShare: 0.3,
        guessShare: 0.5,
        // grown as it resumes: wider, deeper, a head more (grow.ts; its numerics: grow.test.ts)
        shape: {
          vocabSize: 320,
          hiddenSize: 48,
          layers: 2,
          heads: 3,
          intermediateSize: 80,
          maxPositions: 1024,
        },
        grow: true,
        schedule: {
          steps: 2,
          batchSize: 4,
          peakLearningRate: 1e-3,
          finalLearningRate: 1e-4,
          warmupSteps: 1,
          gradClip: 1,
          seed: 4,
        },
        evalEvery: 0,
        evalSamples: 1,
        finalSamples: 1,
        band: [0.15, 0.6],
        sweepTemperatures: [],
        backend: 'wasm',
        command: 'smoke 2',
        taskLimit: 1,
        evalOverrides: { maxNewTokens: 4, maxTurns: 1 },
        resume: dir,
        // the third run's corpus: the old generator's transcripts, a skill part, a search part
        skillShare: 0.5,
        search: { share: 0.5, mix: DEFAULT_SEARCH_MIX, plainShare: 0.2, band: [0.1, 0.3] },
      },
      (line) => lines.push(line),
    );
    expect(readFileSync(join(dir2, 'tokenizer.json'), 'utf8')).toBe(
      readFileSync(join(dir, 'tokenizer.json'), 'utf8'),
    );
    expect(resumed.facts.command).toBe('smoke\nsmoke 2');
    expect(lines.find((l) => l.startsWith('grown from'))).toContain(
      'hidden 32 -> 48, layers 1 -> 2, heads 2 -> 3, mlp 64 -> 80 (old layers at 0)',
    );
    expect(JSON.parse(readFileSync(join(dir2, 'config.json'), 'utf8'))).toMatchObject({
      hidden_size: 48,
      num_hidden_layers: 2,
    });
    expect(resumed.facts.earlierMinutes).toEqual([Math.round(result.facts.totalMinutes)]);
    const card2 = readFileSync(join(dir2, 'README.md'), 'utf8');
    expect(card2).toContain('```\nsmoke\nsmoke 2\n```');
    expect(card2).toContain(
      "(run in this order, each resuming from the one before's output in the same folder;",
    );
    // its search part: 10 of the 20 transcripts (2 of them ordinary tasks under the search
    // prompt), scored with the search tool on, in the card's Search section
    expect(lines.find((l) => l.startsWith('corpus:'))).toContain('8 search-task transcripts');
    expect(resumed.facts.search?.transcripts).toBe(8);
    // its skill part: half of the 10 under the default prompt, and each checkpoint is also scored
    // on held-out tasks and on fresh skill instances (logged, never used to choose)
    expect(resumed.facts.skills?.transcripts).toBe(5);
    expect(lines.find((l) => l.startsWith('eval step'))).toMatch(
      /held out \d\.\d{3}, ran code \d\.\d{2}; fresh skill instances \d\.\d{3}/,
    );
    expect(resumed.facts.search?.plain).toBe(2);
    expect(resumed.facts.search?.trainPassAt1).not.toBeNull();
    expect(resumed.facts.search?.evalSearchedFirst).not.toBeNull();
    expect(lines.some((l) => /search tasks: pass@1 [\d.]+, searched first/.test(l))).toBe(true);
    expect(card2).toContain('## Search');
    expect(card2).toContain('| search train split |');
    expect(card.includes('## Search')).toBe(false); // the runs before search have none
  }, 240_000);
});
