// A lesson's compared figures over the runs trained for it (one seed on the page, several in
// `cli lesson`): each figure per run and seed, the mean per run, and whether the lesson's effect
// held in each seed. Pure, over metrics lines.
import type { StepMetrics } from '../rl/types.ts';
import type { RunConfig } from './config.ts';
import { FIGURES, type FigureId, figureValue, formatFigure } from './lesson_figures.ts';
import type { Lesson } from './lessons.ts';

/** One trained run of a lesson. */
export interface LessonRunRecord {
  /** Which of the lesson's runs (index into `lesson.runs`). */
  index: number;
  seed: number;
  config: RunConfig;
  metrics: readonly StepMetrics[];
}

/** One figure across the lesson's runs. */
export interface FigureSummary {
  label: string;
  /** Per run label: the value at each seed (in the seeds' order). */
  values: Record<string, (number | null)[]>;
  /** Per run label: the mean over the seeds that have a value. */
  mean: Record<string, number | null>;
}

/** What `cli lesson` prints as its summary (and the page shows after a lesson). */
export interface LessonSummary {
  lesson: string;
  seeds: number[];
  figures: Record<string, FigureSummary>;
  effect: {
    figure: FigureId;
    /** In words: "reward gain: learning above learning rate 0 by more than 0.1". */
    claim: string;
    /** Seeds where it held, of those with both runs. */
    held: number;
    of: number;
  };
}

/** Whether the lesson's effect holds between two values of its figure. */
export function effectHolds(
  lesson: Lesson,
  larger: number | null,
  smaller: number | null,
): boolean {
  return larger !== null && smaller !== null && larger - smaller > lesson.effect.margin;
}

/** The lesson's figures over `records`, and how often its effect held. */
export function summarizeLesson(
  lesson: Lesson,
  records: readonly LessonRunRecord[],
): LessonSummary {
  const seeds = [...new Set(records.map((r) => r.seed))];
  const labels = lesson.runs.map((run) => run.label);
  const find = (index: number, seed: number) =>
    records.find((r) => r.index === index && r.seed === seed);
  const figures: Record<string, FigureSummary> = {};
  for (const id of lesson.figures) {
    const values: Record<string, (number | null)[]> = {};
    const means: Record<string, number | null> = {};
    labels.forEach((label, index) => {
      values[label] = seeds.map((seed) => {
        const record = find(index, seed);
        return record ? figureValue(id, record.metrics, record.config) : null;
      });
      const present = values[label]!.filter((v): v is number => v !== null);
      means[label] =
        present.length === 0 ? null : present.reduce((s, v) => s + v, 0) / present.length;
    });
    figures[id] = { label: FIGURES.get(id)!.label, values, mean: means };
  }
  const { figure, larger, smaller, margin } = lesson.effect;
  let held = 0;
  let of = 0;
  for (const seed of seeds) {
    const a = find(larger, seed);
    const b = find(smaller, seed);
    if (!a || !b) continue;
    of++;
    if (
      effectHolds(
        lesson,
        figureValue(figure, a.metrics, a.config),
        figureValue(figure, b.metrics, b.config),
      )
    )
      held++;
  }
  const claim = `${FIGURES.get(figure)!.label}: ${labels[larger]} above ${labels[smaller]}${margin > 0 ? ` by more than ${formatFigure(figure, margin)}` : ''}`;
  return { lesson: lesson.id, seeds, figures, effect: { figure, claim, held, of } };
}
