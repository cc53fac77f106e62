// The page's run without the DOM: one object the panels read and subscribe to, composed of parts
// with one job each. It drives a TrainerApi (the worker through comlink, or a test double); tests
// drive it in Node.
//   RunActivity     state, status line, errors, one worker call at a time (run_activity.ts)
//   RunSetup        backend, model, configuration, load progress, cost estimates (run_setup.ts)
//   RunView         the run's steps, metrics and phase position (run_view.ts)
//   TrainingLoop    train, pause, step, the phase stepper, reset, evaluate (run_training.ts)
//   RunCheckpoints  checkpoints, resume, adapter files (run_checkpoints.ts)
//   RunComparison   the run history and the earlier runs overlaid (run_comparison.ts)
//   LessonRunner    a lesson's runs trained one after another (lesson_runner.ts)
//   Changes         tells subscribers what changed (run_changes.ts)
import type { BackendInfo } from '../../kernels/backend.ts';
import type {
  BackendProbe,
  EvalReport,
  LoadProgress,
  ModelInfo,
  Phase,
  PhaseReport,
  SpeedMeasurement,
} from '../../service/trainer_api.ts';
import type { StepMetrics, Trajectory } from '../../rl/types.ts';
import type { CheckpointSummary } from '../../service/checkpoint_store.ts';
import type { RunConfig } from '../../run/config.ts';
import type { SavedRun, SavedRunSummary } from '../../service/run_history.ts';
import type { CustomTaskInput } from '../../tasks/custom.ts';
import type { UiError } from './errors.ts';
import type { ModelCost } from './model_fit.ts';
import type { ModelContext } from './models.ts';
import { RunActivity } from './run_activity.ts';
import { Changes } from './run_changes.ts';
import { RunCheckpoints } from './run_checkpoints.ts';
import { type Comparison, RunComparison } from './run_comparison.ts';
import { type LessonPlan, type LessonProgress, LessonRunner } from './lesson_runner.ts';
import { RunSetup } from './run_setup.ts';
import { TrainingLoop } from './run_training.ts';
import type { Change, ControllerDeps, Controls, RunState, StepRecord } from './run_types.ts';
import { RunView } from './run_view.ts';

export {
  PHASES,
  type Change,
  type ControllerDeps,
  type Controls,
  type PhaseReportExtras,
  type RunState,
  type StepRecord,
} from './run_types.ts';

/** The run as the page sees it (`window.playground`, docs/page.md). */
export class RunController {
  private readonly changes = new Changes();
  private readonly activity = new RunActivity(this.changes);
  private readonly view: RunView;
  private readonly setup: RunSetup;
  private readonly saved: RunCheckpoints;
  private readonly training: TrainingLoop;
  private readonly compare: RunComparison;
  private readonly lessons: LessonRunner;

  /** `deps.trainer` is also how browser tests reach the worker's test hooks. */
  constructor(readonly deps: ControllerDeps) {
    this.view = new RunView(this.changes, deps.now ?? Date.now, deps.keepSteps);
    this.setup = new RunSetup(deps, this.changes, this.activity, this.view);
    this.saved = new RunCheckpoints(deps, this.changes, this.activity, this.view, this.setup);
    this.compare = new RunComparison(
      deps.history ?? null,
      this.changes,
      this.activity,
      this.view,
      this.setup,
    );
    this.training = new TrainingLoop(
      deps,
      this.changes,
      this.activity,
      this.view,
      this.setup,
      this.saved,
      (how) => this.compare.save(how),
    );
    this.lessons = new LessonRunner(this, this.compare, this.changes);
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  subscribe(listener: (change: Change) => void): () => void {
    return this.changes.subscribe(listener);
  }

  /** Starts the worker, loads the config's model, then offers the newest checkpoint to resume. */
  async start(config: RunConfig): Promise<boolean> {
    const ok = await this.setup.start(config);
    await this.saved.findResumable();
    await this.compare.refresh();
    return ok;
  }

  /** The controls a lesson link hides (`hide=`): texts that say what to press leave them out. */
  get hidden(): ReadonlySet<string> {
    return new Set(this.deps.hidden);
  }

  // What the run is doing, and what went wrong (RunActivity).
  get state(): RunState {
    return this.activity.state;
  }
  get status(): string {
    return this.activity.status;
  }
  get errors(): UiError[] {
    return this.activity.errors;
  }
  /** The newest error, or null. */
  get error(): UiError | null {
    return this.activity.error;
  }
  /** Clears the error area, or the one error given. */
  dismissError(error?: UiError): void {
    this.activity.dismissError(error);
  }
  /** Clears the errors `stale` picks (what they were about has changed). */
  clearErrors(stale: (error: UiError) => boolean): void {
    this.activity.clearErrors(stale);
  }
  showError(error: unknown, during: string, title?: string): void {
    this.activity.showError(error, during, title);
  }

  // What the run runs on (RunSetup).
  get backend(): BackendInfo | null {
    return this.setup.backend;
  }
  get backendProbe(): BackendProbe | null {
    return this.setup.backendProbe;
  }
  get model(): ModelInfo | null {
    return this.setup.model;
  }
  get modelWarning(): string | null {
    return this.setup.modelWarning;
  }
  get speed(): SpeedMeasurement | null {
    return this.setup.speed;
  }
  get progress(): ReadonlyMap<LoadProgress['stage'], LoadProgress> {
    return this.setup.progress;
  }
  /** The Python sandbox's start (since when; seconds once it is up), or null before it. */
  get sandboxStart(): { readonly since: number; readonly seconds: number | null } | null {
    return this.setup.sandboxStart;
  }
  /** The applied config (the page sets the link's before start, for the form). */
  get config(): RunConfig {
    return this.setup.config;
  }
  set config(config: RunConfig) {
    this.setup.config = config;
  }
  get fragment(): string {
    return this.setup.fragment;
  }
  /** Where hub models come from and the picked folder (the model card sets it). */
  get context(): ModelContext {
    return this.setup.context;
  }
  set context(context: ModelContext) {
    this.setup.context = context;
  }
  get draft(): RunConfig | null {
    return this.setup.draft;
  }
  setDraft(config: RunConfig | null): void {
    this.setup.setDraft(config);
  }
  /** Messages for the custom tasks whose tests do not compile (Python's parser, in the sandbox). */
  testsProblems(tasks: readonly CustomTaskInput[]): Promise<string[]> {
    return this.setup.testsProblems(tasks);
  }

  costOf(model: string, config?: RunConfig): Promise<ModelCost | null> {
    return this.setup.costOf(model, config);
  }
  applyConfig(config: RunConfig): Promise<boolean> {
    return this.setup.applyConfig(config);
  }

  // The run's record (RunView).
  get runId(): string {
    return this.view.runId;
  }
  get metrics(): StepMetrics[] {
    return this.view.metrics;
  }
  get evals(): EvalReport[] {
    return this.view.evals;
  }
  get steps(): StepRecord[] {
    return this.view.steps;
  }
  get trajectoryLog(): { step: number; trajectories: Trajectory[] }[] {
    return this.view.trajectoryLog;
  }
  get current(): StepRecord | null {
    return this.view.current;
  }
  get nextPhase(): Phase {
    return this.view.nextPhase;
  }
  get activePhase(): Phase | null {
    return this.view.activePhase;
  }
  get lastReport(): PhaseReport | null {
    return this.view.lastReport;
  }
  get finishedSteps(): number {
    return this.view.finishedSteps;
  }
  get rewardMean(): number | null {
    return this.view.rewardMean;
  }
  viewableSteps(): StepRecord[] {
    return this.view.viewableSteps();
  }

  // Training (TrainingLoop).
  controls(): Controls {
    return this.training.controls();
  }
  train(): Promise<boolean> {
    return this.training.train();
  }
  pause(): void {
    this.training.pause();
  }
  step(): Promise<boolean> {
    return this.training.step();
  }
  phase(): Promise<boolean> {
    return this.training.phase();
  }
  reset(): Promise<boolean> {
    return this.training.reset();
  }
  evaluate(): Promise<boolean> {
    return this.training.evaluate();
  }

  // Kept and brought back (RunCheckpoints).
  get resumable(): CheckpointSummary | null {
    return this.saved.resumable;
  }
  get lastCheckpoint(): CheckpointSummary | null {
    return this.saved.lastCheckpoint;
  }
  get resumeWithCurrentSettings(): boolean {
    return this.saved.resumeWithCurrentSettings;
  }
  saveCheckpoint(reason: CheckpointSummary['reason']): Promise<void> {
    return this.saved.save(reason);
  }
  resume(summary: CheckpointSummary): Promise<boolean> {
    return this.saved.resume(summary);
  }
  dismissResume(): void {
    this.saved.dismissResume();
  }
  exportAdapter(): Promise<Record<string, Uint8Array> | null> {
    return this.saved.exportAdapter();
  }
  importAdapter(files: Record<string, Uint8Array>): Promise<boolean> {
    return this.saved.importAdapter(files);
  }

  // Compared runs and lessons (RunComparison, LessonRunner).
  /** Saved runs, newest first (no trajectories). */
  get history(): SavedRunSummary[] {
    return this.compare.history;
  }
  /** Earlier runs overlaid on the charts. */
  get overlays(): SavedRun[] {
    return this.compare.overlays;
  }
  /** The runs drawn together, each with its config and metrics lines (docs/page.md). */
  get comparison(): Comparison {
    return this.compare.comparison();
  }
  /** The lesson opened or training, or null. */
  get lesson(): LessonProgress | null {
    return this.lessons.progress;
  }
  overlayRun(id: string): Promise<boolean> {
    return this.compare.overlay(id);
  }
  hideOverlay(id: string): void {
    this.compare.hide(id);
  }
  deleteRun(id: string): Promise<void> {
    return this.compare.remove(id);
  }
  clearHistory(): Promise<void> {
    return this.compare.clear();
  }
  /** Shows a lesson ready to run (a `#lesson=` link that does not autostart). */
  openLesson(plan: LessonPlan): void {
    this.lessons.open(plan);
  }
  /** Trains a lesson's (or a shared comparison's) runs one after another and overlays them. */
  runLesson(plan: LessonPlan): Promise<boolean> {
    return this.lessons.run(plan);
  }
}
