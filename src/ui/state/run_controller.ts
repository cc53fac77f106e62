// The page's run controller: the run core and its training steps (run_core.ts, run_training.ts)
// plus what touches stored state: checkpoints and resume, adapter export and import, and held-out
// evaluation on demand.
import { savedModel, type CheckpointSummary } from '../../service/checkpoint_store.ts';
import { decodeLink } from '../../run/link.ts';
import { parseOutOfMemory } from '../../training/out_of_memory.ts';
import { errorMessage } from './errors.ts';
import { RunTraining } from './run_training.ts';
import type { StepRecord } from './run_types.ts';

export {
  PHASES,
  type Change,
  type ControllerDeps,
  type Controls,
  type PhaseReportExtras,
  type RunState,
  type StepRecord,
} from './run_types.ts';

/** The run as the page sees it. */
export class RunController extends RunTraining {
  /** After running out of memory, Resume takes the settings as they are now (the fix applied). */
  resumeWithCurrentSettings = false;

  /**
   * Out of memory: the trainer undid the step, so (where memory was left intact) the run as after
   * its last step is saved; the resume offer then brings it back under the changed settings.
   */
  protected async afterStepFailure(error: unknown): Promise<void> {
    const oom = parseOutOfMemory(errorMessage(error));
    if (!oom) return;
    const saved = () => (this.lastCheckpoint?.runId === this.runId ? this.lastCheckpoint : null);
    if (oom.restored && this.finishedSteps > (saved()?.step ?? 0))
      await this.saveCheckpoint('memory');
    this.resumable = saved() ?? this.resumable;
    this.resumeWithCurrentSettings = this.resumable !== null;
    this.emit('checkpoint');
  }

  /** Saves a checkpoint now; failures (a full disk) are shown but never stop training. */
  async saveCheckpoint(reason: CheckpointSummary['reason']): Promise<void> {
    const store = this.deps.checkpoints;
    if (!store || !this.model || !this.choice || this.finishedSteps === 0) return;
    try {
      const checkpoint = await this.deps.trainer.checkpoint();
      this.lastCheckpoint = await store.save(
        {
          runId: this.runId,
          savedAt: this.now(),
          reason,
          model: savedModel(this.choice, this.model.name),
          modelName: this.model.name,
        },
        checkpoint,
      );
      this.emit('checkpoint');
    } catch (error) {
      this.showError(error, 'saving a checkpoint');
    }
  }

  /**
   * Resumes a saved run: loads its model and config if they differ, restores weights and charts.
   */
  async resume(summary: CheckpointSummary): Promise<boolean> {
    const store = this.deps.checkpoints;
    if (!store) return false;
    const ok = await this.exclusive('resuming the saved run', 'busy', async () => {
      const checkpoint = await store.load(summary.key);
      const fragment = this.resumeWithCurrentSettings ? this.fragment : checkpoint.configFragment;
      const { config } = await decodeLink(fragment);
      if (fragment !== checkpoint.configFragment) {
        const { config: saved } = await decodeLink(checkpoint.configFragment);
        const fixed = ['model', 'finetune', 'loraRank', 'loraTargets'] as const;
        const changed = fixed.filter((k) => JSON.stringify(saved[k]) !== JSON.stringify(config[k]));
        if (changed.length > 0)
          throw new Error(
            `the saved run trained ${saved.model} with other ${changed.join(', ')}, so it cannot go on under these settings. Fix: set ${changed.join(', ')} back to resume, or Start fresh.`,
          );
      }
      if (summary.model.kind === 'files' && this.context.picked?.name !== summary.model.name) {
        throw new Error(
          `the saved run used the local folder "${summary.model.name}". Fix: pick that folder under Model, then resume.`,
        );
      }
      if (summary.model.kind === 'hub' && summary.model.baseUrl)
        this.context = { ...this.context, hubBaseUrl: summary.model.baseUrl };
      if (config.backend !== this.config.backend || !this.backend) {
        await this.initBackend(config);
        this.model = null;
      }
      if (config.model !== this.config.model || !this.model)
        await this.loadModelInner(config, await this.checkModelInner(config));
      // restore() configures the worker from the checkpoint's own fragment
      await this.deps.trainer.restore({ ...checkpoint, configFragment: fragment });
      this.config = config;
      this.fragment = fragment;
      this.resumeWithCurrentSettings = false;
      this.clearRun();
      this.emit('config');
      this.metrics = [...checkpoint.metrics];
      this.evals = [...checkpoint.evals];
      this.runId = summary.runId;
      this.resumable = null;
      this.status = `Resumed at step ${checkpoint.step}.`;
      this.emit('step');
      this.emit('checkpoint');
    });
    return ok;
  }

  /** Forgets the resume offer (the checkpoint stays stored). */
  dismissResume(): void {
    this.resumable = null;
    this.resumeWithCurrentSettings = false;
    this.emit('checkpoint');
  }

  /** The adapter files in PEFT format. */
  async exportAdapter(): Promise<Record<string, Uint8Array> | null> {
    let files: Record<string, Uint8Array> | null = null;
    await this.exclusive('exporting the adapter', 'busy', async () => {
      files = await this.deps.trainer.exportAdapter();
      this.status = 'Adapter exported.';
    });
    return files;
  }

  /** Loads adapter files (PEFT format) into the current model. */
  async importAdapter(files: Record<string, Uint8Array>): Promise<boolean> {
    return this.exclusive('importing the adapter', 'busy', async () => {
      await this.deps.trainer.importAdapter(files);
      this.status = 'Adapter imported: training continues from it; Step or Train to go on.';
    });
  }

  /** Held-out pass@1 now. */
  async evaluate(): Promise<boolean> {
    return this.exclusive('evaluating', 'busy', async () => {
      this.status = 'Evaluating pass@1 on held-out tasks…';
      this.emit('state');
      const report = await this.deps.trainer.evaluate();
      this.evals.push(report);
      this.status = `Held-out pass@1: ${(report.passAt1 * 100).toFixed(0)}%.`;
      this.emit('step');
    });
  }

  /** The steps the viewer can show: finished ones, then the one in progress. */
  viewableSteps(): StepRecord[] {
    return this.current ? [...this.steps, this.current] : [...this.steps];
  }
}
