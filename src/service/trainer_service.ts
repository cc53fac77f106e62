// The trainer worker's API (TrainerApi) over the pure core. What differs by environment — how the
// backend starts, where model files come from, which sandbox runs code — is injected, so Node
// tests drive exactly the object the browser worker exposes.
import * as tf from '@tensorflow/tfjs';
import type { BackendInfo, BackendName } from '../kernels/backend.ts';
import { autoBackend, type AutoBackendDeps, type BackendReport } from './backend_auto.ts';
import { exportPeftAdapter, importPeftAdapter, peftBaseModelName } from '../model/peft.ts';
import type { RngState } from '../model/rng.ts';
import type { ModelSource } from '../model_files/source.ts';
import { defaultConfig, type RunConfig, type SandboxSettings } from '../run/config.ts';
import { decodeLink, encodeLink } from '../run/link.ts';
import { createTrainer, loadPolicy, type LoadedPolicy } from './session.ts';
import { deviceSpeed, type SpeedMeasurement } from './speed_probe.ts';
import type { Trainer } from '../training/trainer.ts';
import { OverlappedTrainer, type AsyncAccounting } from '../training/overlapped_trainer.ts';
import type { KillOptions } from '../training/rollout_runner.ts';
import type { RolloutSource } from '../training/rollout_source.ts';
import type {
  EvalReport,
  LoadProgress,
  ModelChoice,
  ModelInfo,
  PhaseReport,
  ProbeRequest,
  TrainerApi,
  TrainerCheckpoint,
} from './trainer_api.ts';
import type { StepMetrics } from '../rl/types.ts';
import type { CodeExecutor } from '../env/types.ts';
import { checkTestsSyntax, type TestsSyntaxError } from '../tasks/tests_syntax.ts';

/** A sandbox the service owns (the pool), closable when the service is done with it. */
export type ClosableExecutor = CodeExecutor & { close(): Promise<void> };

/** The environment-specific parts. */
export interface ServiceDeps {
  selectBackend(force: BackendName | undefined): Promise<BackendInfo>;
  /** The WebGPU adapter `auto` may probe (the browser's); absent: none (Node). */
  webgpuAdapter?(): Promise<BackendInfo['adapter']>;
  /** WebGPU's probe out of this thread, stopped after `stopAfterMs` (AutoBackendDeps). */
  webgpuProbe?: AutoBackendDeps['webgpuProbe'];
  createExecutor(
    options: { size: number; timeoutMs: number; maxOutputChars: number },
    onProgress: (progress: LoadProgress) => void,
  ): Promise<ClosableExecutor>;
  /** The files of a model choice; `origin` is what the page shows as the source. */
  sourceFor(choice: ModelChoice): { source: ModelSource; origin: ModelInfo['source'] };
  /**
   * A rollout worker for a run with `async` on (src/training/overlapped_trainer.ts); absent: such a run
   * trains synchronously.
   */
  createRolloutSource?(
    config: RunConfig,
    choice: ModelChoice,
    executor: CodeExecutor,
  ): Promise<RolloutSource>;
}

/** Implements TrainerApi; one call at a time (the page serializes calls). */
export class TrainerService implements TrainerApi {
  private config: RunConfig = defaultConfig();
  private executor: ClosableExecutor | null = null;
  private sandboxSize = 2;
  private choice: ModelChoice | null = null;
  private policy: LoadedPolicy | null = null;
  private trainer: Trainer | null = null;
  /** The last speed measurement (one per backend: init() measures). */
  private speed: SpeedMeasurement | null = null;

  constructor(private readonly deps: ServiceDeps) {}

  async init(
    options: {
      backend: BackendName | 'auto';
      sandboxes?: number;
      sandbox?: SandboxSettings;
      probe?: ProbeRequest;
    },
    onProgress: (progress: LoadProgress) => void,
  ): Promise<BackendReport> {
    onProgress({
      stage: 'backend',
      message: options.probe
        ? 'Measuring WebGPU against WASM on this model (2 s)'
        : 'Starting the tensor backend',
    });
    // probed now, before the sandbox's workers start and share the cores; the estimate's speed on
    // WASM is its calibration (speed_probe.ts deviceSpeed), measured only where WebGPU runs
    const probing = options.backend === 'auto' && options.probe;
    const info = probing
      ? await this.chooseBackend(options.probe!)
      : {
          ...(await this.deps.selectBackend(
            options.backend === 'auto' ? undefined : options.backend,
          )),
          probe: null,
        };
    this.speed = await deviceSpeed().catch(() => null);
    this.sandboxSize = options.sandboxes ?? 2;
    if (options.sandbox) this.config = { ...this.config, ...options.sandbox };
    await this.restartSandbox(onProgress);
    return info;
  }

  async chooseBackend(request: ProbeRequest): Promise<BackendReport> {
    const before = tf.engine().backendName; // (tf.getBackend() would start one if none runs)
    const report = await autoBackend(
      {
        selectBackend: (force) => this.deps.selectBackend(force),
        webgpuAdapter: () => this.deps.webgpuAdapter?.() ?? Promise.resolve(null),
        ...(this.deps.webgpuProbe ? { webgpuProbe: this.deps.webgpuProbe } : {}),
      },
      this.deps.sourceFor(request.model).source,
      request.config,
      request.remembered,
    );
    // a loaded run's tensors live on the backend it was loaded on; the page loads the model next
    if (report.name !== before) this.disposeRun();
    return report;
  }

  async checkTests(sources: string[]): Promise<(TestsSyntaxError | null)[]> {
    if (!this.executor) throw new Error('the Python sandbox has not started yet');
    return checkTestsSyntax(this.executor, sources);
  }

  async measureSpeed(): Promise<SpeedMeasurement> {
    if (this.speed?.backend !== tf.getBackend()) this.speed = await deviceSpeed();
    return this.speed;
  }

  async loadModel(
    choice: ModelChoice,
    onProgress: (progress: LoadProgress) => void,
  ): Promise<ModelInfo> {
    const { source, origin } = this.deps.sourceFor(choice);
    const policy = await loadPolicy(source, this.config, origin, onProgress);
    this.disposeRun();
    this.choice = choice;
    this.policy = policy;
    this.trainer = await this.newTrainer(policy, this.requireExecutor());
    return policy.info;
  }

  async configure(configFragment: string, options: { reload?: boolean } = {}): Promise<void> {
    const { config, fallbacks } = await decodeLink(configFragment);
    if (fallbacks.length > 0)
      throw new Error(
        `invalid run configuration: ${fallbacks.map((f) => `${f.field}: ${f.reason}`).join('; ')}`,
      );
    const sandboxChanged =
      config.timeoutMs !== this.config.timeoutMs ||
      config.maxOutputChars !== this.config.maxOutputChars;
    this.config = config;
    if (sandboxChanged && this.executor) await this.restartSandbox(() => {});
    if (this.choice && options.reload !== false) await this.reload();
  }

  async runPhase(): Promise<PhaseReport> {
    return this.withTokenTexts(await this.requireTrainer().runPhase());
  }

  async runStep(onPhase: (report: PhaseReport) => void): Promise<StepMetrics> {
    return this.requireTrainer().runStep((report) => onPhase(this.withTokenTexts(report)));
  }

  async evaluate(): Promise<EvalReport> {
    return this.requireTrainer().evaluate();
  }

  async reset(): Promise<void> {
    await this.reload();
  }

  async checkpoint(): Promise<TrainerCheckpoint> {
    const trainer = this.requireTrainer();
    if (trainer.damaged) throw new Error(trainer.damaged); // never save a step half undone
    const policy = this.policy!;
    const tensors = await Promise.all(
      [...policy.model.trainableVariables()].map(async ([name, variable]) => ({
        name,
        shape: [...variable.shape],
        data: (await variable.data()) as Float32Array,
      })),
    );
    const saved = await trainer.optimizer.saveState();
    const cursor = trainer.saveCursor();
    return {
      version: 1,
      configFragment: await encodeLink(this.config),
      model: policy.info,
      step: trainer.step,
      rngState: cursor.rng,
      taskOrder: cursor.order,
      taskCursor: cursor.cursor,
      taskSignal: cursor.signal,
      tensors,
      optimizer: {
        step: saved.step,
        moments: Object.entries(saved.moments).map(([name, m]) => ({ name, ...m })),
      },
      metrics: [...trainer.history],
      evals: [...trainer.evals],
    };
  }

  async restore(checkpoint: TrainerCheckpoint): Promise<void> {
    if (checkpoint.version !== 1)
      throw new Error(
        `checkpoint version ${String(checkpoint.version)} is not supported by this page`,
      );
    await this.configure(checkpoint.configFragment);
    const trainer = this.requireTrainer();
    const variables = this.policy!.model.trainableVariables();
    for (const saved of checkpoint.tensors) {
      const variable = variables.get(saved.name);
      if (!variable || variable.shape.join() !== saved.shape.join()) {
        throw new Error(
          `the checkpoint's ${saved.name} does not fit the loaded model (was it saved with another model or LoRA rank?)`,
        );
      }
      const value = tf.tensor(saved.data, saved.shape);
      variable.assign(value);
      value.dispose();
    }
    trainer.optimizer.loadState({
      step: checkpoint.optimizer.step,
      moments: Object.fromEntries(
        checkpoint.optimizer.moments.map(({ name, shape, m, v }) => [name, { shape, m, v }]),
      ),
    });
    trainer.loadCursor({
      rng: checkpoint.rngState as RngState,
      order: checkpoint.taskOrder,
      cursor: checkpoint.taskCursor,
      ...(checkpoint.taskSignal ? { signal: checkpoint.taskSignal } : {}),
    });
    trainer.step = checkpoint.step;
    trainer.history.splice(0, trainer.history.length, ...checkpoint.metrics);
    trainer.evals.splice(0, trainer.evals.length, ...checkpoint.evals);
  }

  async exportAdapter(): Promise<Record<string, Uint8Array>> {
    const policy = this.requirePolicy();
    return exportPeftAdapter(policy.model, peftBaseModelName(policy.info.name, policy.info.source));
  }

  async importAdapter(files: Record<string, Uint8Array>): Promise<void> {
    importPeftAdapter(this.requirePolicy().model, files);
  }

  /** Adds each token's text after the rollout (the only phase that changes the tokens). */
  private withTokenTexts(report: PhaseReport): PhaseReport {
    if (report.phase !== 'rollout' || !this.policy) return report;
    const { tokenizer } = this.policy;
    const tokenTexts = Object.fromEntries(
      report.trajectories.map((t) => [t.id, t.ids.map((id) => tokenizer.decode([id]))]),
    );
    return { ...report, tokenTexts };
  }

  /** An overlapped run's accounting (workers started, episodes sampled, trained, dropped); null otherwise. */
  async rolloutAccounting(): Promise<AsyncAccounting | null> {
    return this.trainer instanceof OverlappedTrainer ? this.trainer.accounting() : null;
  }

  /** Ends an overlapped run's rollout worker as a crash would (tests: the run restarts it). */
  async killRolloutWorker(options?: KillOptions): Promise<void> {
    const source = this.trainer instanceof OverlappedTrainer ? this.trainer.source : null;
    if (!source?.killWorker) throw new Error('this run has no rollout worker to kill');
    await source.killWorker(options);
  }

  /** Frees the model, optimizer and sandbox. */
  async close(): Promise<void> {
    this.disposeRun();
    await this.executor?.close();
    this.executor = null;
  }

  private async restartSandbox(onProgress: (progress: LoadProgress) => void): Promise<void> {
    await this.executor?.close();
    this.executor = null;
    // no bytes to count: the page's progress row counts its seconds (a first visit takes ~7 s)
    onProgress({ stage: 'sandbox', message: 'Starting Python (the code sandbox)…' });
    this.executor = await this.deps.createExecutor(
      {
        size: this.sandboxSize,
        timeoutMs: this.config.timeoutMs,
        maxOutputChars: this.config.maxOutputChars,
      },
      onProgress,
    );
    if (this.policy) {
      this.disposeTrainer();
      this.trainer = await this.newTrainer(this.policy, this.executor);
    }
  }

  /** Reloads the model for the current config (fresh adapters, fresh optimizer, step 0). */
  private async reload(): Promise<void> {
    if (!this.choice) throw new Error('no model is loaded yet');
    await this.loadModel(this.choice, () => {});
  }

  /** The run's trainer: overlapped, with its own rollout worker, when `async` is on and possible. */
  private async newTrainer(policy: LoadedPolicy, executor: ClosableExecutor): Promise<Trainer> {
    const rollouts =
      this.config.async && this.deps.createRolloutSource && this.choice
        ? await this.deps.createRolloutSource(this.config, this.choice, executor)
        : undefined;
    return createTrainer(policy, executor, this.config, rollouts);
  }

  /** Frees the trainer's optimizer and stops its rollout worker, if it has one. */
  private disposeTrainer(): void {
    if (this.trainer instanceof OverlappedTrainer) void this.trainer.close();
    else this.trainer?.dispose();
    this.trainer = null;
  }

  private disposeRun(): void {
    this.disposeTrainer();
    this.policy?.dispose();
    this.trainer = null;
    this.policy = null;
  }

  private requireExecutor(): ClosableExecutor {
    if (!this.executor) throw new Error('the sandbox is not started: call init() first');
    return this.executor;
  }

  private requirePolicy(): LoadedPolicy {
    if (!this.policy) throw new Error('no model is loaded: load one first');
    return this.policy;
  }

  private requireTrainer(): Trainer {
    if (!this.trainer) throw new Error('no model is loaded: load one first');
    return this.trainer;
  }
}
