// The page's training steps on top of the run core (run_core.ts): running whole steps, the phase
// stepper's one phase at a time, pausing and resetting, and taking in what the worker reports
// after each phase and step (records, metrics, the JSONL log, automatic checkpoints). Separate
// from the core, which holds the run's state, its errors and how it starts and is configured.
import type { PhaseReport } from '../../service/trainer_api.ts';
import type { StepMetrics } from '../../rl/types.ts';
import { shouldCheckpoint, type CheckpointSummary } from '../../service/checkpoint_store.ts';
import { RunCore } from './run_core.ts';
import { following, type PhaseReportExtras, type StepRecord } from './run_types.ts';

/**
 * The run with its training steps; checkpoints, resume, exports and evaluation are added by
 * RunController (run_controller.ts).
 */
export abstract class RunTraining extends RunCore {
  protected onPhase = (report: PhaseReport): void => {
    const extras = report as PhaseReport & PhaseReportExtras;
    const record: StepRecord = this.current ?? {
      step: report.step,
      phase: report.phase,
      trajectories: [],
      groups: null,
      tokenTexts: null,
      metrics: null,
    };
    record.step = report.step;
    record.phase = report.phase;
    record.trajectories = report.trajectories;
    if (report.groups) record.groups = report.groups;
    if (extras.tokenTexts) record.tokenTexts = { ...record.tokenTexts, ...extras.tokenTexts };
    this.current = record;
    this.lastReport = report;
    this.nextPhase = following(report.phase);
    // Reports cross on a port of their own (comlink's proxy), so one may land after the call ended
    // (a failed step): its data is still shown, but the status keeps what the end said.
    if (this.state !== 'idle') {
      this.activePhase = report.phase === 'update' || this.singlePhase ? null : this.nextPhase;
      this.status = `Step ${report.step}: ${report.phase} done${this.activePhase ? `, ${this.activePhase} running…` : '.'}`;
    }
    this.emit('phase');
  };

  protected async finishStep(metrics: StepMetrics): Promise<void> {
    const record: StepRecord = this.current ?? {
      step: metrics.step,
      phase: 'update',
      trajectories: [],
      groups: null,
      tokenTexts: null,
      metrics: null,
    };
    record.metrics = metrics;
    record.phase = 'update';
    this.steps.push(record);
    const keep = this.deps.keepSteps ?? 20;
    if (this.steps.length > keep) this.steps.splice(0, this.steps.length - keep);
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
    if (this.trajectoryLog.length > 1000) this.trajectoryLog.shift();
    this.current = null;
    this.nextPhase = 'rollout';
    this.status = `Step ${metrics.step} done: mean reward ${metrics.reward_mean.toFixed(2)}, pass rate ${(metrics.pass_rate * 100).toFixed(0)}%.`;
    // The trainer evaluates every `evalEvery` steps itself and reports it in the step's metrics.
    if (metrics.eval_pass_at_1 !== null)
      this.evals.push({ step: metrics.step, passAt1: metrics.eval_pass_at_1, perTask: {} });
    this.emit('step');
    if (shouldCheckpoint(metrics.step, this.deps.checkpointEvery ?? 5))
      await this.saveCheckpoint('auto');
  }

  /** One whole step (or the rest of the current one). */
  protected async wholeStep(): Promise<void> {
    this.activePhase = this.nextPhase;
    this.status = `Step ${this.finishedSteps + 1}: ${this.activePhase} running…`;
    this.emit('phase');
    const metrics = await this.deps.trainer
      .runStep(this.deps.proxy(this.onPhase))
      .catch((error: unknown) => this.stepFailed(error));
    await this.finishStep(metrics);
  }

  /**
   * The trainer undoes a failed step (src/training/trainer.ts): the view goes back to its start, and
   * running out of memory offers resuming (RunController). Rethrows for the error area.
   */
  protected async stepFailed(error: unknown): Promise<never> {
    this.current = null;
    this.nextPhase = 'rollout';
    this.emit('phase');
    await this.afterStepFailure(error);
    throw error;
  }

  /** Trains until `config.steps` or a pause. */
  async train(): Promise<boolean> {
    if (!this.controls().train) return false;
    let paused = false;
    const ok = await this.exclusive('training', 'training', async () => {
      while (!this.pauseRequested && this.finishedSteps < this.config.steps) await this.wholeStep();
      paused = this.pauseRequested;
      if (paused) {
        this.status = `Paused after step ${this.finishedSteps}.`;
        await this.saveCheckpoint('pause');
      } else {
        this.status = `Finished ${this.finishedSteps} steps. Raise Steps to go on, or Reset.`;
      }
    });
    return ok;
  }

  /** Asks the training loop to stop after the step in flight. */
  pause(): void {
    if (this.state !== 'training') return;
    this.pauseRequested = true;
    this.setState('pausing', `Pausing after step ${this.finishedSteps + 1} finishes…`);
  }

  /** Runs one whole step (or finishes the one the phase stepper is in). */
  async step(): Promise<boolean> {
    if (!this.controls().step) return false;
    return this.exclusive('running a step', 'busy', () => this.wholeStep());
  }

  /** Runs the next phase only (the phase stepper). */
  async phase(): Promise<boolean> {
    if (!this.controls().phase) return false;
    return this.exclusive(`running the ${this.nextPhase} phase`, 'busy', async () => {
      this.singlePhase = true;
      this.activePhase = this.nextPhase;
      this.status = `Step ${this.finishedSteps + 1}: ${this.activePhase} running…`;
      this.emit('phase');
      const report = await this.deps.trainer
        .runPhase()
        .catch((error: unknown) => this.stepFailed(error));
      this.onPhase(report);
      if (report.phase === 'update') {
        if (!report.metrics)
          throw new Error('the update phase reported no metrics (a trainer worker bug)');
        await this.finishStep(report.metrics);
      }
    });
  }

  /** Back to step 0 with the same config and model. */
  async reset(): Promise<boolean> {
    if (!this.controls().reset) return false;
    return this.exclusive('resetting', 'busy', async () => {
      await this.deps.trainer.reset();
      this.clearRun();
      this.status = 'Reset: fresh adapters, step 0.';
    });
  }

  /** Saves a checkpoint now (RunController). */
  abstract saveCheckpoint(reason: CheckpointSummary['reason']): Promise<void>;

  /** After a failed step (RunController: out of memory keeps the run and offers resuming). */
  protected abstract afterStepFailure(error: unknown): Promise<void>;
}
