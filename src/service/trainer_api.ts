// The contract between the page (main thread) and the trainer worker (workers/trainer.worker.ts).
// Types only: the main thread imports them with `import type` and talks through
// `Comlink.wrap<TrainerApi>()`; progress callbacks travel as `Comlink.proxy(callback)`.
// Everything that crosses the boundary is structured-clonable (no tensors, no class instances).
import type { BackendName } from '../kernels/backend.ts';
import type { ModelConfig } from '../model_files/hf_config.ts';
import type { GroupStats } from '../rl/advantage.ts';
import type { AsyncAccounting } from '../training/overlapped_trainer.ts';
import type { KillOptions } from '../training/rollout_runner.ts';
import type { EvalReport, Phase, PhaseReport } from '../training/reports.ts';
import type { StepMetrics } from '../rl/types.ts';
import type { RunConfig, SandboxSettings } from '../run/config.ts';
import type { BackendReport } from './backend_auto.ts';
import type { BackendProbe, BackendTiming } from './backend_choice.ts';
import type { SpeedMeasurement } from './speed_probe.ts';
import type { TestsSyntaxError } from '../tasks/tests_syntax.ts';

/** Which model to load. `files` are what the user picked or dropped (File objects clone fine). */
export type ModelChoice =
  | { kind: 'demo' }
  | { kind: 'hub'; repo: string; revision?: string; baseUrl?: string }
  | { kind: 'files'; files: File[] };

/** What the page shows about the loaded model. */
export interface ModelInfo {
  name: string;
  source: 'demo' | 'hub' | 'files' | 'path';
  architecture: ModelConfig['family'];
  /** The model's own weights, as config.json counts them (LoRA's factors not included). */
  parameters: number;
  trainableParameters: number;
  /** The model card (README.md) when the model has one. */
  card: string | null;
  /** Tokenizer or template caveats worth showing (e.g. a ChatML fallback). */
  warnings: string[];
}

/** Loading progress: a stage, a message, and bytes when the stage downloads. */
export interface LoadProgress {
  stage: 'backend' | 'model' | 'tokenizer' | 'sandbox';
  message: string;
  loadedBytes?: number;
  totalBytes?: number | null;
}

export type {
  BackendProbe,
  BackendReport,
  BackendTiming,
  EvalReport,
  GroupStats,
  Phase,
  PhaseReport,
  SpeedMeasurement,
};

/**
 * What `auto` chooses the backend with: the model the run loads, the run (its batch and training
 * mode set the probe's shapes) and the verdicts this page remembers, by key (backend_choice.ts).
 */
export interface ProbeRequest {
  model: ModelChoice;
  config: RunConfig;
  remembered: Record<string, BackendProbe>;
}

/**
 * Everything needed to resume a run (docs/architecture.md §6). Weights are the trainable tensors
 * only (adapters, or all weights in full mode), with AdamW moments, as raw float32 buffers.
 */
export interface TrainerCheckpoint {
  version: 1;
  /** The run link fragment of the config (src/run/link.ts), so a checkpoint restores its run. */
  configFragment: string;
  model: ModelInfo;
  step: number;
  /** The trainer's RNG state and its place in the shuffled task order. */
  rngState: number[];
  taskOrder: number[];
  taskCursor: number;
  /**
   * Each visited task's reward spread, which the 'learnable' task sampling draws by (absent in
   * older checkpoints).
   */
  taskSignal?: Record<string, number>;
  tensors: { name: string; shape: number[]; data: Float32Array }[];
  optimizer: {
    step: number;
    moments: { name: string; shape: number[]; m: Float32Array; v: Float32Array }[];
  };
  metrics: StepMetrics[];
  evals: EvalReport[];
}

/** The trainer worker's API. Calls are serialized by the caller: one at a time. */
export interface TrainerApi {
  /**
   * Picks the backend (forced or auto) and starts the sandbox pool, with the run's sandbox settings
   * when given (`sandbox`), so a configure() right after with the same settings need not start the
   * pool again (on a 2-core machine each start costs seconds of Pyodide). `auto` with `probe`
   * measures WebGPU and WASM on the run's model first and keeps the faster (chooseBackend);
   * without it, it picks by presence (src/kernels/backend.ts).
   */
  init(
    options: {
      backend: BackendName | 'auto';
      sandboxes?: number;
      sandbox?: SandboxSettings;
      probe?: ProbeRequest;
    },
    onProgress: (progress: LoadProgress) => void,
  ): Promise<BackendReport>;
  /**
   * `auto` for another model without restarting the sandbox: probes (at most ~2 s) or reuses the
   * verdict remembered for this model and device, and leaves the faster backend active; a loaded
   * model on the other backend is freed (load the model next).
   */
  chooseBackend(request: ProbeRequest): Promise<BackendReport>;
  /**
   * This device's product speed and memory bandwidth on the backend init() picked (speed_probe.ts),
   * for the page's seconds-per-step estimate: measured by init() before the sandbox starts (under
   * a second), so this returns at once.
   */
  measureSpeed(): Promise<SpeedMeasurement>;
  /**
   * Whether each custom task's tests compile, by Python's parser in the run's sandbox (after
   * init()); null where they do. Nothing of them runs.
   */
  checkTests(sources: string[]): Promise<(TestsSyntaxError | null)[]>;
  /** Loads a model and its tokenizer; replaces any loaded one and resets the run. */
  loadModel(choice: ModelChoice, onProgress: (progress: LoadProgress) => void): Promise<ModelInfo>;
  /**
   * Sets the run's configuration from a run-link fragment (validated there); resets the run by
   * reloading the loaded model, unless `reload: false` (a loadModel call follows anyway).
   */
  configure(configFragment: string, options?: { reload?: boolean }): Promise<void>;
  /** Runs the next phase of the current step (rollout first). */
  runPhase(): Promise<PhaseReport>;
  /** Runs the rest of the current step (or a whole step); reports each phase as it ends. */
  runStep(onPhase: (report: PhaseReport) => void): Promise<StepMetrics>;
  /** Pass@1 on the eval split of the configured task set. */
  evaluate(): Promise<EvalReport>;
  /** Back to step 0: fresh adapters (or original weights), fresh optimizer, same config. */
  reset(): Promise<void>;
  checkpoint(): Promise<TrainerCheckpoint>;
  restore(checkpoint: TrainerCheckpoint): Promise<void>;
  /** The LoRA adapter in PEFT format: `adapter_config.json` and `adapter_model.safetensors`. */
  exportAdapter(): Promise<Record<string, Uint8Array>>;
  importAdapter(files: Record<string, Uint8Array>): Promise<void>;
  /** An overlapped run's accounting (workers started, episodes sampled, trained, dropped); null otherwise. */
  rolloutAccounting(): Promise<AsyncAccounting | null>;
  /**
   * Ends an overlapped run's rollout worker as a crash would (tests: the next step restarts it);
   * with `whileSampling: n`, while it samples step n (resolves once the kill has landed).
   */
  killRolloutWorker(options?: KillOptions): Promise<void>;
}
