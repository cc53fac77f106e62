// The lessons' pure parts: every lesson's runs are valid configs that differ from each other in
// what the lesson says, config differences read as words, the compared figures on hand-made
// metrics, the summary's effect count, `--seeds`, `#lesson=` and `#compare=` links.
import { describe, expect, it } from 'vitest';
import { parseSeeds } from '../../src/cli/lesson_command.ts';
import { decodeComparison, encodeComparison } from '../../src/run/compare_link.ts';
import { comparisonCaveats, configChanges, describeChanges } from '../../src/run/config_words.ts';
import { figureValue, formatFigure } from '../../src/run/lesson_figures.ts';
import { summarizeLesson } from '../../src/run/lesson_summary.ts';
import { LESSONS, lessonById, lessonConfigs, lessonRunConfig } from '../../src/run/lessons.ts';
import { compressText, decodeLink } from '../../src/run/link.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { buildMetrics } from '../helpers/records.ts';

describe('lessons', () => {
  it('has the six lessons, each with runs that differ and fit the 6-minute budget in steps', () => {
    expect([...LESSONS.keys()]).toEqual([
      'basics',
      'group-size',
      'kl',
      'hacking',
      'tools',
      'async',
    ]);
    for (const lesson of LESSONS.values()) {
      const configs = lessonConfigs(lesson, 1);
      expect(configs.length).toBeGreaterThanOrEqual(2);
      // each run differs from the others in the fields it changes
      expect(new Set(configs.map((c) => JSON.stringify(c))).size).toBe(configs.length);
      for (const config of configs) expect(config.steps).toBeLessThanOrEqual(12);
      expect(lesson.effect.larger).not.toBe(lesson.effect.smaller);
      expect(lesson.figures[0]).toBe(lesson.effect.figure);
    }
  });

  it('names each run by what it changes from the default run', () => {
    const words = (id: string, index: number) =>
      describeChanges(lessonRunConfig(lessonById(id), index, 1), undefined, { omit: ['seed'] });
    expect(words('basics', 1)).toBe('steps 12, learning rate 0, no held-out eval');
    expect(words('group-size', 0)).toBe('steps 12, G 2, prompts per step 12, no held-out eval');
    expect(words('kl', 1)).toBe('steps 12, β 1, no held-out eval');
    expect(words('tools', 0)).toBe(
      'tasks search, steps 12, tools: run code, search, give the answer, no held-out eval',
    );
    expect(words('async', 1)).toBe('steps 12, no held-out eval, async rollout on');
    expect(words('hacking', 1)).toContain('reward: format ×3 + tests ×1');
    expect(describeChanges(presetConfig('default'))).toBe('the default run');
    expect(configChanges(presetConfig('default', { seed: 2 }), presetConfig('default'))).toEqual([
      { field: 'seed', words: 'seed 2' },
    ]);
  });

  it('says when compared runs train another model or another task set', () => {
    const base = presetConfig('default');
    expect(comparisonCaveats([base, { ...base, lr: 0 }])).toEqual([]);
    const caveats = comparisonCaveats([base, presetConfig('search')]);
    expect(caveats).toHaveLength(1);
    expect(caveats[0]).toMatch(/different task sets \(seed\+builtin, search\)/);
    expect(comparisonCaveats([base, { ...base, model: 'Qwen/Qwen3-0.6B' }])[0]).toMatch(
      /different models/,
    );
  });

  it('refuses an unknown lesson with the ids', () => {
    expect(() => lessonById('rlhf')).toThrow(
      /unknown lesson "rlhf". Fix: one of basics, group-size/,
    );
  });
});

describe('lesson figures', () => {
  const config = presetConfig('default');
  // rewards 0.1 ... 1.0 over 10 steps: first 5 mean 0.3, last 5 mean 0.8
  const metrics = Array.from({ length: 10 }, (_, i) =>
    buildMetrics(i + 1, {
      reward_mean: (i + 1) / 10,
      kl: i < 5 ? 0 : 0.2,
      zero_std_fraction: i % 2,
      reward_parts: i < 5 ? { tests: 0 } : { tests: 1 },
    }),
  );

  it('computes first and last 5 steps, shares and per-episode gains by hand', () => {
    expect(figureValue('reward_gain', metrics, config)).toBeCloseTo(0.5, 12);
    expect(figureValue('reward_last', metrics, config)).toBeCloseTo(0.8, 12);
    expect(figureValue('kl_last', metrics, config)).toBeCloseTo(0.2, 12);
    expect(figureValue('zero_signal', metrics, config)).toBeCloseTo(0.5, 12);
    expect(figureValue('tests_first', metrics, config)).toBe(0);
    expect(figureValue('tests_last', metrics, config)).toBe(1);
    // 10 steps x 3 prompts x 6 samples = 180 episodes: 0.5 / 180 * 100
    expect(figureValue('gain_per_100_episodes', metrics, config)).toBeCloseTo(50 / 180, 12);
    expect(figureValue('reward_gain', [], config)).toBeNull();
    expect(formatFigure('tests_last', 0.456)).toBe('46%');
    expect(formatFigure('reward_gain', -0.1234)).toBe('-0.12');
    expect(formatFigure('seconds_total', 83.4)).toBe('83 s');
    expect(formatFigure('kl_last', null)).toBe('–');
  });

  it("counts the seeds where a lesson's effect held", () => {
    const lesson = lessonById('kl');
    const run = (kl: number) => Array.from({ length: 6 }, (_, i) => buildMetrics(i + 1, { kl }));
    const records = [
      { index: 0, seed: 1, config, metrics: run(0.3) },
      { index: 1, seed: 1, config, metrics: run(0.01) },
      { index: 0, seed: 2, config, metrics: run(0.01) },
      { index: 1, seed: 2, config, metrics: run(0.02) },
    ];
    const summary = summarizeLesson(lesson, records);
    expect(summary.seeds).toEqual([1, 2]);
    expect(summary.effect).toMatchObject({ figure: 'kl_last', held: 1, of: 2 });
    expect(summary.effect.claim).toBe('KL to the reference, last 5 steps: β 0.001 above β 1');
    expect(summary.figures.kl_last!.values).toEqual({
      'β 0.001': [0.3, 0.01],
      'β 1': [0.01, 0.02],
    });
    expect(summary.figures.kl_last!.mean['β 0.001']).toBeCloseTo(0.155, 12);
  });
});

describe('lesson options and links', () => {
  it('reads --seeds, refusing anything but whole numbers', () => {
    expect(parseSeeds(undefined)).toEqual([1]);
    expect(parseSeeds('1, 2,3,2')).toEqual([1, 2, 3]);
    expect(() => parseSeeds('1,x')).toThrow(
      /--seeds must be whole numbers .* Fix: e.g. --seeds 1,2,3/,
    );
    expect(() => parseSeeds('')).toThrow(/--seeds/);
  });

  it('opens #lesson=ID with its seed and fields, and names an unknown lesson', async () => {
    const link = await decodeLink('#lesson=kl&seed=3&s=4&autostart=1');
    expect(link).toMatchObject({ lesson: 'kl', autostart: true, fallbacks: [], optionErrors: [] });
    expect(link.config.seed).toBe(3);
    expect(link.config.steps).toBe(4);
    const bad = await decodeLink('#lesson=rlhf');
    expect(bad.lesson).toBeNull();
    expect(bad.optionErrors).toEqual([
      {
        field: 'lesson',
        reason: expect.stringMatching(/unknown lesson "rlhf". Fix: lesson= takes one of basics/),
      },
    ]);
  });

  it('round-trips a comparison link, and says what a damaged one lacks', async () => {
    const runs = [
      { label: 'learning', config: presetConfig('default', { steps: 4 }) },
      { label: 'search', config: presetConfig('search', { seed: 5 }) },
    ];
    const fragment = await encodeComparison(runs, { autostart: true });
    expect(fragment).toMatch(/^#compare=[A-Za-z0-9_-]+&autostart=1$/);
    const link = await decodeLink(fragment);
    expect(link.autostart).toBe(true);
    expect(await decodeComparison(link.compare!)).toEqual({ runs, errors: [] });
    expect((await decodeComparison('!!')).errors[0]).toMatch(/compare: the value is damaged/);
    const one = await compressText(JSON.stringify([{ label: 'a', link: 'v=2' }]));
    expect((await decodeComparison(one)).errors).toEqual([
      'compare: expected a list of 2 to 4 runs',
    ]);
    const damaged = await compressText(
      JSON.stringify([
        { label: 'a', link: 'v=2&g=1' },
        { label: 'b', link: 'v=2' },
        { label: 'c', link: 'v=2&seed=2' },
      ]),
    );
    const read = await decodeComparison(damaged);
    expect(read.runs.map((r) => r.label)).toEqual(['b', 'c']);
    expect(read.errors[0]).toMatch(/^compare: run 1 \(a\): groupSize/);
    await expect(encodeComparison(runs.slice(0, 1))).rejects.toThrow(/2 to 4 runs, got 1/);
  });
});
