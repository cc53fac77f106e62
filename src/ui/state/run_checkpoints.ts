// The run kept and brought back: checkpoints saved every few steps, on pause and after running
// out of memory; the resume offer and resuming (under the saved settings or, after running out of
// memory, the changed ones); and the adapter's files exported and imported.
import { savedModel, type CheckpointSummary } from '../../service/checkpoint_store.ts';
import { decodeLink } from '../../run/link.ts';
import { parseOutOfMemory } from '../../training/out_of_memory.ts';
import { errorMessage } from './errors.ts';
import type { RunActivity } from './run_activity.ts';
import type { Changes } from './run_changes.ts';
import type { RunSetup } from './run_setup.ts';
import type { ControllerDeps } from './run_types.ts';
import type { RunView } from './run_view.ts';

/** What a resumed run must share with the saved one: the adapters' shape and the model. */
const FIXED_FIELDS = ['model', 'finetune', 'loraRank', 'loraTargets'] as const;

/** Checkpoints, resume and adapter files. */
export class RunCheckpoints {
  /**
   * The checkpoint offered for resuming: the newest one at start, or the run's last after it ran
   * out of memory.
   */
  resumable: CheckpointSummary | null = null;
  lastCheckpoint: CheckpointSummary | null = null;
  /** After running out of memory, Resume takes the settings as they are now (the fix applied). */
  resumeWithCurrentSettings = false;

  constructor(
    private readonly deps: ControllerDeps,
    private readonly changes: Changes,
    private readonly activity: RunActivity,
    private readonly view: RunView,
    private readonly setup: RunSetup,
  ) {}

  /** Offers the newest stored checkpoint for resuming; a failure to look is shown, not thrown. */
  async findResumable(): Promise<void> {
    if (!this.deps.checkpoints) return;
    try {
      this.resumable = await this.deps.checkpoints.latest();
      if (this.resumable) this.changes.emit('checkpoint');
    } catch (error) {
      this.activity.showError(error, 'looking for saved checkpoints');
    }
  }

  /** Saves a checkpoint now; failures (a full disk) are shown but never stop training. */
  async save(reason: CheckpointSummary['reason']): Promise<void> {
    const store = this.deps.checkpoints;
    const { model, choice } = this.setup;
    if (!store || !model || !choice || this.view.finishedSteps === 0) return;
    try {
      const checkpoint = await this.deps.trainer.checkpoint();
      this.lastCheckpoint = await store.save(
        {
          runId: this.view.runId,
          savedAt: (this.deps.now ?? Date.now)(),
          reason,
          model: savedModel(choice, model.name),
          modelName: model.name,
        },
        checkpoint,
      );
      this.changes.emit('checkpoint');
    } catch (error) {
      this.activity.showError(error, 'saving a checkpoint');
    }
  }

  /**
   * After a failed step. Out of memory: the trainer undid the step, so (where memory was left
   * intact) the run as after its last step is saved; the resume offer then brings it back under
   * the changed settings. Other failures leave the checkpoints alone.
   */
  async afterStepFailure(error: unknown): Promise<void> {
    const oom = parseOutOfMemory(errorMessage(error));
    if (!oom) return;
    const saved = () =>
      this.lastCheckpoint?.runId === this.view.runId ? this.lastCheckpoint : null;
    if (oom.restored && this.view.finishedSteps > (saved()?.step ?? 0)) await this.save('memory');
    this.resumable = saved() ?? this.resumable;
    this.resumeWithCurrentSettings = this.resumable !== null;
    this.changes.emit('checkpoint');
  }

  /**
   * Resumes a saved run: loads its model and config if they differ, restores weights and charts.
   */
  async resume(summary: CheckpointSummary): Promise<boolean> {
    const store = this.deps.checkpoints;
    if (!store) return false;
    const setup = this.setup;
    return this.activity.exclusive('resuming the saved run', 'busy', async () => {
      const checkpoint = await store.load(summary.key);
      const fragment = this.resumeWithCurrentSettings ? setup.fragment : checkpoint.configFragment;
      const { config } = await decodeLink(fragment);
      if (fragment !== checkpoint.configFragment) {
        const { config: saved } = await decodeLink(checkpoint.configFragment);
        const changed = FIXED_FIELDS.filter(
          (k) => JSON.stringify(saved[k]) !== JSON.stringify(config[k]),
        );
        if (changed.length > 0)
          throw new Error(
            `the saved run trained ${saved.model} with other ${changed.join(', ')}, so it cannot go on under these settings. Fix: set ${changed.join(', ')} back to resume, or Start fresh.`,
          );
      }
      if (summary.model.kind === 'files' && setup.context.picked?.name !== summary.model.name) {
        throw new Error(
          `the saved run used the local folder "${summary.model.name}". Fix: pick that folder under Model, then resume.`,
        );
      }
      if (summary.model.kind === 'hub' && summary.model.baseUrl)
        setup.context = { ...setup.context, hubBaseUrl: summary.model.baseUrl };
      if (config.backend !== setup.config.backend || !setup.backend) {
        await setup.initBackend(config);
        setup.model = null;
      }
      if (config.model !== setup.config.model || !setup.model)
        await setup.loadModel(config, await setup.checkModel(config));
      // restore() configures the worker from the checkpoint's own fragment
      await this.deps.trainer.restore({ ...checkpoint, configFragment: fragment });
      setup.config = config;
      setup.fragment = fragment;
      this.resumeWithCurrentSettings = false;
      this.view.clear();
      this.changes.emit('config');
      this.view.restore(summary.runId, checkpoint.metrics, checkpoint.evals);
      this.resumable = null;
      this.activity.status = `Resumed at step ${checkpoint.step}.`;
      this.changes.emit('step');
      this.changes.emit('checkpoint');
    });
  }

  /** Forgets the resume offer (the checkpoint stays stored). */
  dismissResume(): void {
    this.resumable = null;
    this.resumeWithCurrentSettings = false;
    this.changes.emit('checkpoint');
  }

  /** The adapter files in PEFT format (null when the export failed; its error is shown). */
  async exportAdapter(): Promise<Record<string, Uint8Array> | null> {
    let files: Record<string, Uint8Array> | null = null;
    await this.activity.exclusive('exporting the adapter', 'busy', async () => {
      files = await this.deps.trainer.exportAdapter();
      this.activity.status = 'Adapter exported.';
    });
    return files;
  }

  /** Loads adapter files (PEFT format) into the current model. */
  async importAdapter(files: Record<string, Uint8Array>): Promise<boolean> {
    return this.activity.exclusive('importing the adapter', 'busy', async () => {
      await this.deps.trainer.importAdapter(files);
      this.activity.status =
        'Adapter imported: training continues from it; Step or Train to go on.';
    });
  }
}
