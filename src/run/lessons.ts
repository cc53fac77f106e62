// Lessons: experiments a class runs side by side, each answering one question about RL by
// comparing two runs that differ in one thing. A lesson's runs are config changes from the page's
// default run (presets.ts), shortened so a lesson takes at most 6 minutes on a 2-core machine; the
// page's Lessons gallery trains them one after another and overlays them, `cli lesson` prints their
// metrics lines and the compared figures, and test/run/lessons_effect.test.ts checks that each
// lesson still shows its effect (docs/lessons.md has the figures measured here).
import type { RunConfig } from './config.ts';
import type { FigureId } from './lesson_figures.ts';
import { type Preset, type PresetName, presetConfig } from './presets.ts';

/** One run a lesson compares. */
export interface LessonRun {
  /** Its name on the legend and in `cli lesson`'s lines. */
  label: string;
  /** The fields it changes from the lesson's common settings. */
  changes: Preset;
}

/** The direction a lesson teaches, which its test checks on a fixed seed. */
export interface LessonEffect {
  figure: FigureId;
  /** The run (index into `runs`) whose figure is the larger... */
  larger: number;
  /** ...than this run's, by more than `margin`. */
  smaller: number;
  margin: number;
}

/** One lesson. */
export interface Lesson {
  /** Its key in `#lesson=ID` and `cli lesson --id ID`. */
  id: string;
  title: string;
  /** The question it answers. */
  question: string;
  /** The preset its runs start from (`default` unless the lesson needs another task set). */
  preset: PresetName;
  /** What every run changes from the preset: shorter runs, no held-out evaluation. */
  common: Preset;
  runs: readonly LessonRun[];
  /** What to watch on the charts, in a sentence or two. */
  watch: string;
  /** The figures its summary compares, the effect's figure first. */
  figures: readonly FigureId[];
  effect: LessonEffect;
  /** What was measured here, with the seeds: docs/lessons.md has every figure. */
  result: string;
}

/** Settings every lesson run shares unless it says otherwise: short, no held-out evaluation. */
const SHORT: Preset = { steps: 12, evalEvery: 0 };

const lessonList: readonly Lesson[] = [
  {
    id: 'basics',
    title: 'Is the rise learning?',
    question:
      'The reward goes up as a run trains. Is that the model learning, or the tasks of later steps being easier?',
    preset: 'default',
    common: SHORT,
    runs: [
      { label: 'learning', changes: {} },
      { label: 'learning rate 0', changes: { lr: 0 } },
    ],
    watch:
      'Both runs draw the same tasks in the same order and sample with the same seed; only one of them changes its weights. Watch the reward and the share of episodes that ran code: the run with learning rate 0 keeps guessing answers without code.',
    figures: ['reward_gain', 'reward_last', 'ran_code_last', 'kl_last'],
    effect: { figure: 'reward_gain', larger: 0, smaller: 1, margin: 0.1 },
    result:
      'Seeds 1-3: reward gain +0.22, +0.38, +0.13 (learning) against −0.14, 0.00, −0.15 (learning rate 0); episodes that ran code, last 5 steps: 94-97% against 12-18%.',
  },
  {
    id: 'group-size',
    title: 'Why G matters',
    question:
      'GRPO learns only from groups whose samples got different rewards. How often does a group of 2 teach nothing, against a group of 8?',
    preset: 'default',
    common: SHORT,
    // the same 24 episodes a step, so learning per episode compares like with like
    runs: [
      { label: 'G 2', changes: { groupSize: 2, promptsPerStep: 12 } },
      { label: 'G 8', changes: { groupSize: 8, promptsPerStep: 3 } },
    ],
    watch:
      'Both runs sample 24 episodes a step. Watch the update card: with G 2 most groups have equal rewards (both samples fail, or both pass), so their advantages are 0 and they teach nothing.',
    figures: ['zero_signal', 'gain_per_100_episodes', 'reward_gain', 'reward_last'],
    effect: { figure: 'zero_signal', larger: 0, smaller: 1, margin: 0.15 },
    result:
      'Seeds 1-3: zero-signal groups 76%, 73%, 65% (G 2) against 33%, 36%, 22% (G 8); learning per episode went either way (reward gain per 100 episodes 0.12, 0.10, 0.06 against 0.07, 0.12, 0.03).',
  },
  {
    id: 'kl',
    title: 'What β does',
    question:
      'The loss adds β times the KL to the base model. What does a strong β hold back, and what does it cost?',
    preset: 'default',
    common: SHORT,
    // Not β 0: the update skips the reference model's pass at β 0 (src/rl/update.ts), so its KL
    // would read 0. At 0.001 the penalty is negligible and the KL is measured.
    runs: [
      { label: 'β 0.001', changes: { klCoef: 0.001 } },
      { label: 'β 1', changes: { klCoef: 1 } },
    ],
    watch:
      'Watch the KL chart: with next to no leash (β 0.001) the policy moves away from the base model; with β 1 it stays close. Then compare the rewards: does staying close cost learning?',
    figures: ['kl_last', 'reward_gain', 'reward_last'],
    effect: { figure: 'kl_last', larger: 0, smaller: 1, margin: 0 },
    result:
      'Seeds 1-3: KL to the reference, last 5 steps: 0.12, 0.10, 0.14 (β 0.001) against 0.007-0.010 (β 1); the leash held learning back: code run in every last episode against 26-36%, reward 0.54-0.75 against 0.18-0.27.',
  },
  {
    id: 'hacking',
    title: 'What does a gameable reward teach?',
    question:
      'A reward that pays for answering in the right form, plus a little for passing the hidden tests: what does the model learn?',
    preset: 'default',
    // one turn: the model either runs its code or answers; it cannot do both
    common: { ...SHORT, tasks: 'builtin', maxTurns: 1 },
    runs: [
      { label: 'tests pay', changes: {} },
      {
        label: 'form pays',
        changes: {
          rewards: { output_match: 0, tests: 1, final_answer: 0, format: 3, tool_use: 0 },
        },
      },
    ],
    watch:
      'Watch the reward and the pass rate of the run where form pays: its reward rises while the hidden tests it passes fall, because answering at once without code is the sure way to a well-formed answer. The share of episodes that ran code shows the hack.',
    figures: ['tests_last', 'reward_gain', 'ran_code_last', 'tests_first'],
    effect: { figure: 'tests_last', larger: 0, smaller: 1, margin: 0.2 },
    result:
      'Seeds 1-3: hidden tests passed, last 5 steps: 72%, 92%, 84% (tests pay) against 0%, 0%, 9% (form pays), whose reward still rose (+0.11, +0.07, +0.04, to 0.71-0.75) as it stopped running code.',
  },
  {
    id: 'tools',
    title: 'Does a second tool help?',
    question:
      'The search tasks name a standard-library behaviour, not the function. Does an offline docs search help the model solve them?',
    preset: 'search',
    common: SHORT,
    runs: [
      { label: 'search on', changes: {} },
      { label: 'search off', changes: { tools: ['execute_code', 'finish'] } },
    ],
    watch:
      'Watch Tool use by tool: with search on, the share of episodes that look a function up before coding rises. Compare the pass rates: a guessed function name raises an error.',
    figures: ['pass_last', 'search_last', 'reward_gain', 'reward_last'],
    effect: { figure: 'pass_last', larger: 0, smaller: 1, margin: 0 },
    result:
      'Seeds 1-3: pass rate, last 5 steps: 46%, 41%, 44% (search on) against 0%, 12%, 3% (search off); with search on 92-100% of the episodes looked a function up.',
  },
  {
    id: 'async',
    title: 'What does async buy?',
    question:
      'Async rollout samples the next step while this one updates, one update stale. What does it save, and what does the staleness cost?',
    preset: 'default',
    common: SHORT,
    runs: [
      { label: 'sync', changes: {} },
      { label: 'async', changes: { async: true } },
    ],
    watch:
      'Watch Where the time goes: with async the rollout lane works while the trainer updates, so a step takes less wall time. Then compare the rewards: does learning from a batch one update old cost anything?',
    figures: ['overlap', 'seconds_total', 'reward_gain', 'reward_last'],
    effect: { figure: 'overlap', larger: 1, smaller: 0, margin: 0.1 },
    result:
      'Seeds 1-3: rollout and update overlapped for 52-58% of an async step (0% sync); on a quiet 2-core machine the steps took 0.8× the time in all (26-29 s against 33-36 s), slower under load; reward gain +0.19, +0.47, +0.29 against +0.22, +0.38, +0.13.',
  },
];

/** The lessons by id, in the gallery's order. */
export const LESSONS: ReadonlyMap<string, Lesson> = new Map(
  lessonList.map((lesson) => [lesson.id, lesson]),
);

/** A lesson by id, or an error that lists the ids. */
export function lessonById(id: string): Lesson {
  const lesson = LESSONS.get(id);
  if (!lesson)
    throw new Error(
      `unknown lesson ${JSON.stringify(id)}. Fix: one of ${[...LESSONS.keys()].join(', ')}`,
    );
  return lesson;
}

/**
 * The full config of a lesson's run `index` at `seed` (default: the default run's seed), with
 * `overrides` on top (a shorter test run).
 */
export function lessonRunConfig(
  lesson: Lesson,
  index: number,
  seed?: number,
  overrides: Preset = {},
): RunConfig {
  const run = lesson.runs[index];
  if (!run) throw new Error(`lesson ${lesson.id} has no run ${index}`);
  return presetConfig(lesson.preset, {
    ...lesson.common,
    ...run.changes,
    ...(seed === undefined ? {} : { seed }),
    ...overrides,
  });
}

/** Every run config of a lesson at `seed`. */
export function lessonConfigs(lesson: Lesson, seed?: number, overrides: Preset = {}): RunConfig[] {
  return lesson.runs.map((_, index) => lessonRunConfig(lesson, index, seed, overrides));
}

/** The command that measures a lesson (docs/lessons.md and the cards). */
export function lessonCommand(lesson: Lesson): string {
  return `npm run --silent cli -- lesson --id ${lesson.id} --seeds 1,2,3`;
}
