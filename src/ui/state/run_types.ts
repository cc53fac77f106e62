// Types of the page's run logic (run_controller.ts and its parts), shared by the panels.
import type { BackendInfo } from '../../kernels/backend.ts';
import type {
  GroupStats,
  ModelChoice,
  Phase,
  SpeedMeasurement,
  TrainerApi,
} from '../../service/trainer_api.ts';
import type { StepMetrics, Trajectory } from '../../rl/types.ts';
import type { CheckpointStore } from '../../service/checkpoint_store.ts';
import type { RunHistory } from '../../service/run_history.ts';
import type { ProbeStore } from '../../service/backend_choice.ts';
import type { RunConfig } from '../../run/config.ts';
import { PHASES } from '../../training/reports.ts';
import type { ModelCost } from './model_fit.ts';

export { PHASES };

/** What the controller is doing. */
export type RunState = 'starting' | 'idle' | 'training' | 'pausing' | 'busy';

/** A step's records as the viewer and phase panel show them. */
export interface StepRecord {
  step: number;
  /** The last phase that finished for this step. */
  phase: Phase;
  trajectories: Trajectory[];
  groups: GroupStats[] | null;
  /** Per-token texts by trajectory id, when the worker sends them (see PhaseReportExtras). */
  tokenTexts: Record<string, string[]> | null;
  metrics: StepMetrics | null;
}

/** Optional fields a worker may add to PhaseReport; the viewer uses them when present. */
export interface PhaseReportExtras {
  /** Decoded text of every token, by trajectory id: exact action-mask shading. */
  tokenTexts?: Record<string, string[]>;
}

/** What changed, so panels re-render only what they must. */
export type Change =
  | 'state'
  | 'progress'
  | 'backend'
  | 'model'
  | 'phase'
  | 'step'
  | 'reset'
  | 'error'
  | 'config'
  /** The configuration form's unapplied edits (RunController.draft). */
  | 'draft'
  | 'checkpoint'
  /** The run history, the overlaid runs, or a lesson's progress (run_comparison.ts). */
  | 'compare';

/** Everything the controller needs from the page. */
export interface ControllerDeps {
  trainer: TrainerApi;
  /** Wraps a callback so it can cross to the worker (Comlink.proxy); identity in tests. */
  proxy: <T extends object>(callback: T) => T;
  checkpoints: CheckpointStore | null;
  /** Where finished and paused runs are kept for comparing (IndexedDB in the page); absent: none. */
  history?: RunHistory | null;
  /** Refuses a model that will not fit (throws), or returns a warning; called before every load. */
  checkModel?: (
    choice: ModelChoice,
    config: RunConfig,
    backend: BackendInfo | null,
  ) => Promise<string | null>;
  /**
   * What a model would cost under a config on this device (memory, seconds per step at the
   * measured speed), from its config.json alone; null where there is nothing to say (the demo).
   */
  estimateCost?: (
    choice: ModelChoice,
    config: RunConfig,
    backend: BackendInfo | null,
    speed: SpeedMeasurement | null,
  ) => Promise<ModelCost | null>;
  /** Where `auto`'s verdicts are remembered (localStorage in the page); absent: nowhere. */
  settings?: ProbeStore;
  now?: () => number;
  /** Save a checkpoint every N finished steps (0 = only on pause). Default 5. */
  checkpointEvery?: number;
  /** Recent steps kept whole for the viewer. Default 20. */
  keepSteps?: number;
  /**
   * The controls a lesson link hides (`hide=` names): texts that say what to press name only the
   * others (status_text.ts). Default none.
   */
  hidden?: readonly string[];
}

/** Which controls may be used now. */
export interface Controls {
  train: boolean;
  pause: boolean;
  step: boolean;
  phase: boolean;
  reset: boolean;
  configure: boolean;
}

/** The phase after `phase` (update wraps to rollout). */
export const following = (phase: Phase): Phase =>
  PHASES[(PHASES.indexOf(phase) + 1) % PHASES.length]!;
