// A lesson on the page: its runs (src/run/lessons.ts), or a shared comparison's
// (src/run/compare_link.ts), trained one after another, each kept in the run history under its
// label and overlaid on the charts while the next one trains, so when the last run finishes the
// charts draw them all. Then a lesson's compared figures, from this page's runs (lesson_summary.ts:
// the same numbers `cli lesson` prints for one seed).
import type { RunConfig } from '../../run/config.ts';
import {
  type LessonRunRecord,
  type LessonSummary,
  summarizeLesson,
} from '../../run/lesson_summary.ts';
import { type Lesson, lessonRunConfig } from '../../run/lessons.ts';
import type { Preset } from '../../run/presets.ts';
import type { Changes } from './run_changes.ts';
import type { RunComparison } from './run_comparison.ts';

/** The runs a lesson (or a shared comparison) trains, in order. */
export interface LessonPlan {
  /** The lesson's id, or `comparison` for a shared comparison. */
  id: string;
  /** The lesson, or null for a shared comparison. */
  lesson: Lesson | null;
  seed: number;
  /** Fields set on every run beyond the lesson's own (a lesson link's, such as fewer steps). */
  overrides: Preset;
  runs: { label: string; config: RunConfig }[];
}

/**
 * A lesson's plan at `seed`, with `overrides` on every run (a lesson link's own fields, such as
 * fewer steps).
 */
export function lessonPlan(lesson: Lesson, seed: number, overrides: Preset = {}): LessonPlan {
  return {
    id: lesson.id,
    lesson,
    seed,
    overrides,
    runs: lesson.runs.map((run, index) => ({
      label: run.label,
      config: lessonRunConfig(lesson, index, seed, overrides),
    })),
  };
}

/** Where a lesson stands on the page (`window.playground.lesson`). */
export interface LessonProgress {
  plan: LessonPlan;
  /** The run training now, or the last one trained (index into `plan.runs`). */
  run: number;
  /** ready: opened from a link, not started; stopped: paused or failed before its last run ended. */
  state: 'ready' | 'running' | 'done' | 'stopped';
  /** The compared figures of the runs trained here, once a lesson is done (null otherwise). */
  summary: LessonSummary | null;
}

/** What the runner drives: the page's run (RunController). */
export interface LessonHost {
  readonly config: RunConfig;
  readonly finishedSteps: number;
  applyConfig(config: RunConfig): Promise<boolean>;
  reset(): Promise<boolean>;
  train(): Promise<boolean>;
}

/** Trains a lesson's runs one after another. */
export class LessonRunner {
  progress: LessonProgress | null = null;

  constructor(
    private readonly host: LessonHost,
    private readonly comparison: RunComparison,
    private readonly changes: Changes,
  ) {}

  /** Shows a lesson as ready to run (a `#lesson=` link without autostart). */
  open(plan: LessonPlan): void {
    this.progress = { plan, run: 0, state: 'ready', summary: null };
    this.changes.emit('compare');
  }

  /** Whether a lesson is training now. */
  get running(): boolean {
    return this.progress?.state === 'running';
  }

  /**
   * Trains every run of `plan`: applies the run's config (or resets, when it is the config already
   * loaded), trains it to its last step, keeps it and overlays it. Resolves true when every run
   * finished; false when a run was paused or failed (the lesson stops there).
   */
  async run(plan: LessonPlan): Promise<boolean> {
    if (this.running) return false;
    const progress: LessonProgress = { plan, run: 0, state: 'running', summary: null };
    this.progress = progress;
    this.comparison.hideAll();
    this.changes.emit('compare');
    const records: LessonRunRecord[] = [];
    const stop = () => {
      progress.state = 'stopped';
      this.changes.emit('compare');
      return false;
    };
    try {
      for (const [index, { label, config }] of plan.runs.entries()) {
        progress.run = index;
        this.changes.emit('compare');
        const same = JSON.stringify(config) === JSON.stringify(this.host.config);
        if (!same && !(await this.host.applyConfig(config))) return stop();
        if (same && this.host.finishedSteps > 0 && !(await this.host.reset())) return stop();
        // after the fresh run's reset, which clears the current run's name
        this.comparison.label = label;
        this.comparison.lessonRun = { id: plan.id, run: index, seed: plan.seed };
        this.changes.emit('compare');
        // Train keeps the run when it ends (RunComparison.save), under the label above
        const trained = await this.host.train();
        if (!trained || this.host.finishedSteps < config.steps) return stop();
        const kept = this.comparison.latest;
        if (!kept || kept.lesson?.run !== index || kept.lesson.id !== plan.id) return stop();
        records.push({ index, seed: plan.seed, config: kept.config, metrics: kept.metrics });
        if (index < plan.runs.length - 1) await this.comparison.overlay(kept);
      }
    } catch (error) {
      stop();
      throw error;
    }
    progress.state = 'done';
    progress.summary = plan.lesson ? summarizeLesson(plan.lesson, records) : null;
    this.changes.emit('compare');
    return true;
  }
}
