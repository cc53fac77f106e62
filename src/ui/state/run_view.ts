// The run's record as the panels read it: its id, the finished steps' metrics, evaluations and
// records, the JSONL log, and where the phase stepper stands. Plain data with the updates a
// report or a finished step makes; the part that makes an update announces it along with the
// status line, except a fresh run, which announces itself ('reset').
import type { EvalReport, Phase, PhaseReport } from '../../service/trainer_api.ts';
import type { StepMetrics, Trajectory } from '../../rl/types.ts';
import type { Changes } from './run_changes.ts';
import { following, type PhaseReportExtras, type StepRecord } from './run_types.ts';

/** Finished steps whose trajectories the JSONL export keeps. */
const LOGGED_STEPS = 1000;

/** The steps, metrics and phase position of the current run. */
export class RunView {
  /** Names the run in its checkpoints; a fresh run gets a new one. */
  runId: string;
  metrics: StepMetrics[] = [];
  evals: EvalReport[] = [];
  /** Finished steps, newest last (the last `keepSteps` only). */
  steps: StepRecord[] = [];
  /** Every finished step's trajectories, without token arrays, for the JSONL export. */
  trajectoryLog: { step: number; trajectories: Trajectory[] }[] = [];
  /** The step the phase stepper is in the middle of, or null. */
  current: StepRecord | null = null;
  nextPhase: Phase = 'rollout';
  /** The phase running now, or null. */
  activePhase: Phase | null = null;
  lastReport: PhaseReport | null = null;

  constructor(
    private readonly changes: Changes,
    private readonly now: () => number,
    private readonly keepSteps = 20,
  ) {
    this.runId = this.newRunId();
  }

  /** Steps finished in this run. */
  get finishedSteps(): number {
    return this.metrics.at(-1)?.step ?? 0;
  }

  /** The latest step's mean reward, or null before the first step. */
  get rewardMean(): number | null {
    return this.metrics.at(-1)?.reward_mean ?? null;
  }

  /** The steps the viewer can show: finished ones, then the one in progress. */
  viewableSteps(): StepRecord[] {
    return this.current ? [...this.steps, this.current] : [...this.steps];
  }

  /** Takes in a phase's report: the step in progress gets its data, the stepper moves on. */
  takePhase(report: PhaseReport): void {
    const extras = report as PhaseReport & PhaseReportExtras;
    const record = this.current ?? emptyRecord(report.step, report.phase);
    record.step = report.step;
    record.phase = report.phase;
    record.trajectories = report.trajectories;
    if (report.groups) record.groups = report.groups;
    if (extras.tokenTexts) record.tokenTexts = { ...record.tokenTexts, ...extras.tokenTexts };
    this.current = record;
    this.lastReport = report;
    this.nextPhase = following(report.phase);
  }

  /** Files the step in progress as finished with `metrics`; the stepper goes back to rollout. */
  finishStep(metrics: StepMetrics): void {
    const record = this.current ?? emptyRecord(metrics.step, 'update');
    record.metrics = metrics;
    record.phase = 'update';
    this.steps.push(record);
    if (this.steps.length > this.keepSteps)
      this.steps.splice(0, this.steps.length - this.keepSteps);
    this.metrics.push(metrics);
    this.trajectoryLog.push({
      step: metrics.step,
      trajectories: record.trajectories.map((t) => ({
        ...t,
        ids: [],
        actionMask: [],
        oldLogprobs: null,
        refLogprobs: null,
      })),
    });
    if (this.trajectoryLog.length > LOGGED_STEPS) this.trajectoryLog.shift();
    this.current = null;
    this.nextPhase = 'rollout';
    // The trainer evaluates every `evalEvery` steps itself and reports it in the step's metrics.
    if (metrics.eval_pass_at_1 !== null)
      this.evals.push({ step: metrics.step, passAt1: metrics.eval_pass_at_1, perTask: {} });
  }

  /** A failed step is undone by the trainer (src/training/trainer.ts): back to the step's start. */
  dropStep(): void {
    this.current = null;
    this.nextPhase = 'rollout';
  }

  /** A fresh run at step 0 under a new id; tells the panels to drop what they show. */
  clear(): void {
    this.metrics = [];
    this.evals = [];
    this.steps = [];
    this.trajectoryLog = [];
    this.current = null;
    this.lastReport = null;
    this.nextPhase = 'rollout';
    this.runId = this.newRunId();
    this.changes.emit('reset');
  }

  /** Takes over a saved run's id and charts (resuming). */
  restore(runId: string, metrics: StepMetrics[], evals: EvalReport[]): void {
    this.metrics = [...metrics];
    this.evals = [...evals];
    this.runId = runId;
  }

  private newRunId(): string {
    return `run-${this.now().toString(36)}-${Math.floor(Math.random() * 1e6).toString(36)}`;
  }
}

function emptyRecord(step: number, phase: Phase): StepRecord {
  return { step, phase, trajectories: [], groups: null, tokenTexts: null, metrics: null };
}
