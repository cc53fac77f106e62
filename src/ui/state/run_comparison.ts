// Runs compared with the current one: the run history (finished and paused runs kept in IndexedDB,
// service/run_history.ts), the earlier runs overlaid on the charts, and what makes them differ in
// words. The current run is saved when it finishes or pauses; a lesson's runs are saved under
// their lesson labels (lesson_runner.ts). Without a history store (IndexedDB unavailable) the
// overlays still work for the tab's life.
import type { EvalReport } from '../../service/trainer_api.ts';
import type { StepMetrics } from '../../rl/types.ts';
import type { RunConfig } from '../../run/config.ts';
import { comparisonCaveats, configChanges, describeChanges } from '../../run/config_words.ts';
import type { RunHistory, SavedRun, SavedRunSummary } from '../../service/run_history.ts';
import type { RunActivity } from './run_activity.ts';
import type { Changes } from './run_changes.ts';
import type { RunSetup } from './run_setup.ts';
import type { RunView } from './run_view.ts';

/** Most earlier runs overlaid at once (the charts stay readable). */
export const MAX_OVERLAYS = 3;

/** One run of a comparison (`window.playground.comparison.runs`). */
export interface ComparedRun {
  id: string;
  /** Its name on the legend. */
  label: string;
  /** The run the page is training now (the others are earlier runs, overlaid). */
  current: boolean;
  config: RunConfig;
  /** The CLI's metrics lines. */
  metrics: StepMetrics[];
  evals: EvalReport[];
  /** How it differs from the current run, in words (empty for the current run). */
  differs: string;
}

/** The runs drawn together: earlier runs first (a lesson's order), the current run last. */
export interface Comparison {
  /** The lesson these runs were trained for, or null. */
  lesson: string | null;
  runs: ComparedRun[];
  /** Why the runs may not compare like with like (another model or task set), in sentences. */
  caveats: string[];
}

/** The run history and the overlays. */
export class RunComparison {
  /** Saved runs, newest first (summaries: no trajectories). */
  history: SavedRunSummary[] = [];
  /** Earlier runs overlaid on the charts, in the order they were added. */
  overlays: SavedRun[] = [];
  /** The current run's name and lesson while a lesson trains it (lesson_runner.ts sets them). */
  label: string | null = null;
  lessonRun: SavedRunSummary['lesson'] = null;
  /** The run saved last (with its trajectories), or null. */
  latest: SavedRun | null = null;

  constructor(
    private readonly store: RunHistory | null,
    private readonly changes: Changes,
    private readonly activity: RunActivity,
    private readonly view: RunView,
    private readonly setup: RunSetup,
  ) {
    // a fresh run is no longer the lesson's run it was
    changes.subscribe((change) => {
      if (change === 'reset') {
        this.label = null;
        this.lessonRun = null;
      }
    });
  }

  /** Reads the history's list (after start, and after every change to it). */
  async refresh(): Promise<void> {
    if (!this.store) return;
    this.history = await this.store.list().catch(() => []);
    this.changes.emit('compare');
  }

  /** The current run's name: its lesson label, or what differs from the default run. */
  currentLabel(): string {
    return this.label ?? describeChanges(this.setup.config, undefined, { omit: ['seed'] });
  }

  /**
   * Keeps the current run (finished or paused) for comparing, replacing an earlier save of it;
   * returns it, or null when it has no finished step. A storage failure is shown, not thrown:
   * the run itself is fine.
   */
  async save(reason: SavedRunSummary['reason']): Promise<SavedRun | null> {
    if (this.view.metrics.length === 0) return null;
    const run: SavedRun = {
      id: this.view.runId,
      savedAt: Date.now(),
      reason: this.lessonRun ? 'lesson' : reason,
      label: this.currentLabel(),
      lesson: this.lessonRun,
      config: structuredClone(this.setup.config),
      modelName: this.setup.model?.name ?? this.setup.config.model,
      metrics: [...this.view.metrics],
      evals: [...this.view.evals],
      steps: this.view.trajectoryLog.map((s) => ({ step: s.step, trajectories: s.trajectories })),
    };
    this.latest = run;
    try {
      await this.store?.save(run);
    } catch (error) {
      this.activity.showError(error, 'keeping the run for comparing');
    }
    await this.refresh();
    return run;
  }

  /** Overlays a run: a saved one by id, or one just saved. The oldest overlay makes room. */
  async overlay(run: string | SavedRun): Promise<boolean> {
    const found = typeof run === 'string' ? await this.store?.load(run) : run;
    if (!found) return false;
    this.overlays = [...this.overlays.filter((o) => o.id !== found.id), found].slice(-MAX_OVERLAYS);
    this.changes.emit('compare');
    return true;
  }

  /** Takes a run off the charts (it stays in the history). */
  hide(id: string): void {
    this.overlays = this.overlays.filter((o) => o.id !== id);
    this.changes.emit('compare');
  }

  /** Takes every overlay off the charts. */
  hideAll(): void {
    if (this.overlays.length === 0) return;
    this.overlays = [];
    this.changes.emit('compare');
  }

  /** Deletes a saved run (and takes it off the charts). */
  async remove(id: string): Promise<void> {
    this.overlays = this.overlays.filter((o) => o.id !== id);
    await this.store?.remove(id);
    await this.refresh();
  }

  /** Deletes every saved run. */
  async clear(): Promise<void> {
    this.overlays = [];
    await this.store?.clear();
    await this.refresh();
  }

  /** The runs drawn together, each with its config and metrics lines. */
  comparison(): Comparison {
    const current = this.setup.config;
    const earlier = this.overlays.filter((o) => o.id !== this.view.runId);
    const runs: ComparedRun[] = [
      ...earlier.map((o) => ({
        id: o.id,
        label: o.label,
        current: false,
        config: o.config,
        metrics: o.metrics,
        evals: o.evals,
        differs: differsFrom(o.config, current),
      })),
      {
        id: this.view.runId,
        label: this.currentLabel(),
        current: true,
        config: current,
        metrics: this.view.metrics,
        evals: this.view.evals,
        differs: '',
      },
    ];
    return {
      lesson: this.lessonRun?.id ?? this.overlays.find((o) => o.lesson)?.lesson?.id ?? null,
      runs,
      caveats: earlier.length > 0 ? comparisonCaveats(runs.map((r) => r.config)) : [],
    };
  }
}

/** What an earlier run set differently from the current one, in words ("learning rate 0"). */
export function differsFrom(config: RunConfig, current: RunConfig): string {
  const words = configChanges(config, current).map((c) => c.words);
  return words.length === 0 ? 'the same settings' : words.join(', ');
}
