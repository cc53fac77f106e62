// The training loop as the page drives it: whole steps until the configured count or a pause,
// one step, the phase stepper's one phase at a time, reset, and held-out evaluation on demand;
// with the status line each of them writes and which controls may be used now.
import type { PhaseReport } from '../../service/trainer_api.ts';
import type { StepMetrics } from '../../rl/types.ts';
import { shouldCheckpoint } from '../../service/checkpoint_store.ts';
import type { RunActivity } from './run_activity.ts';
import type { Changes } from './run_changes.ts';
import type { RunCheckpoints } from './run_checkpoints.ts';
import type { RunSetup } from './run_setup.ts';
import type { ControllerDeps, Controls } from './run_types.ts';
import type { RunView } from './run_view.ts';
import { finishedStatus } from './status_text.ts';

/** Train, pause, step, the phase stepper, reset and evaluate. */
export class TrainingLoop {
  private pauseRequested = false;
  /** The phase stepper runs one phase per call; runStep runs the following phases by itself. */
  private singlePhase = false;

  constructor(
    private readonly deps: ControllerDeps,
    private readonly changes: Changes,
    private readonly activity: RunActivity,
    private readonly view: RunView,
    private readonly setup: RunSetup,
    private readonly checkpoints: RunCheckpoints,
    /** Called when Train ends with the run finished or paused (the run history keeps it). */
    private readonly ended: (how: 'finished' | 'paused') => Promise<unknown> = async () => {},
  ) {
    activity.onSettled(() => {
      view.activePhase = null;
      this.pauseRequested = false;
      this.singlePhase = false;
    });
  }

  /** Which controls may be used now. */
  controls(): Controls {
    const idle = this.activity.state === 'idle';
    const ready = idle && this.setup.model !== null && this.setup.fragment !== '';
    const finished = this.view.finishedSteps;
    return {
      train: ready && finished < this.setup.config.steps,
      pause: this.activity.state === 'training',
      step: ready,
      phase: ready,
      reset: ready && (finished > 0 || this.view.current !== null),
      configure: idle,
    };
  }

  private onPhase = (report: PhaseReport): void => {
    const view = this.view;
    view.takePhase(report);
    // Reports cross on a port of their own (comlink's proxy), so one may land after the call ended
    // (a failed step): its data is still shown, but the status keeps what the end said.
    if (this.activity.state !== 'idle') {
      view.activePhase = report.phase === 'update' || this.singlePhase ? null : view.nextPhase;
      this.activity.status = `Step ${report.step}: ${report.phase} done${view.activePhase ? `, ${view.activePhase} running…` : '.'}`;
    }
    this.changes.emit('phase');
  };

  private async finishStep(metrics: StepMetrics): Promise<void> {
    this.view.finishStep(metrics);
    this.activity.status = `Step ${metrics.step} done: mean reward ${metrics.reward_mean.toFixed(2)}, pass rate ${(metrics.pass_rate * 100).toFixed(0)}%.`;
    this.changes.emit('step');
    if (shouldCheckpoint(metrics.step, this.deps.checkpointEvery ?? 5))
      await this.checkpoints.save('auto');
  }

  /** Shows the next phase as running. */
  private beginPhase(): void {
    this.view.activePhase = this.view.nextPhase;
    this.activity.status = `Step ${this.view.finishedSteps + 1}: ${this.view.activePhase} running…`;
    this.changes.emit('phase');
  }

  /** One whole step (or the rest of the current one). */
  private async wholeStep(): Promise<void> {
    this.beginPhase();
    const metrics = await this.deps.trainer
      .runStep(this.deps.proxy(this.onPhase))
      .catch((error: unknown) => this.stepFailed(error));
    await this.finishStep(metrics);
  }

  /**
   * The trainer undoes a failed step (src/training/trainer.ts): the view goes back to its start, and
   * running out of memory offers resuming. Rethrows for the error area.
   */
  private async stepFailed(error: unknown): Promise<never> {
    this.view.dropStep();
    this.changes.emit('phase');
    await this.checkpoints.afterStepFailure(error);
    throw error;
  }

  /** Trains until `config.steps` or a pause; a pause saves a checkpoint. */
  async train(): Promise<boolean> {
    if (!this.controls().train) return false;
    return this.activity.exclusive('training', 'training', async () => {
      while (!this.pauseRequested && this.view.finishedSteps < this.setup.config.steps)
        await this.wholeStep();
      if (this.pauseRequested) {
        this.activity.status = `Paused after step ${this.view.finishedSteps}.`;
        await this.checkpoints.save('pause');
        await this.ended('paused');
      } else {
        this.activity.status = finishedStatus(this.view.finishedSteps, new Set(this.deps.hidden));
        await this.ended('finished');
      }
    });
  }

  /** Asks the training loop to stop after the step in flight. */
  pause(): void {
    if (this.activity.state !== 'training') return;
    this.pauseRequested = true;
    this.activity.set('pausing', `Pausing after step ${this.view.finishedSteps + 1} finishes…`);
  }

  /** Runs one whole step (or finishes the one the phase stepper is in). */
  async step(): Promise<boolean> {
    if (!this.controls().step) return false;
    return this.activity.exclusive('running a step', 'busy', () => this.wholeStep());
  }

  /** Runs the next phase only (the phase stepper). */
  async phase(): Promise<boolean> {
    if (!this.controls().phase) return false;
    return this.activity.exclusive(`running the ${this.view.nextPhase} phase`, 'busy', async () => {
      this.singlePhase = true;
      this.beginPhase();
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
    return this.activity.exclusive('resetting', 'busy', async () => {
      await this.deps.trainer.reset();
      this.view.clear();
      this.activity.status = 'Reset: fresh adapters, step 0.';
    });
  }

  /** Held-out pass@1 now. */
  async evaluate(): Promise<boolean> {
    return this.activity.exclusive('evaluating', 'busy', async () => {
      this.activity.status = 'Evaluating pass@1 on held-out tasks…';
      this.changes.emit('state');
      const report = await this.deps.trainer.evaluate();
      this.view.evals.push(report);
      this.activity.status = `Held-out pass@1: ${(report.passAt1 * 100).toFixed(0)}%.`;
      this.changes.emit('step');
    });
  }
}
