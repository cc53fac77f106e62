// The page's run logic without the DOM (the core; run_training.ts adds the training steps and
// run_controller.ts storage): it drives a TrainerApi (the worker through comlink, or a test
// double), keeps what the panels show (progress, metrics, recent steps, the phase stepper's
// position), serializes calls (the worker takes one at a time), and turns failures into errors a
// person can act on. Panels subscribe and re-render; tests drive it in Node.
import type { BackendInfo } from '../../kernels/backend.ts';
import type {
  BackendProbe,
  BackendReport,
  EvalReport,
  LoadProgress,
  ModelChoice,
  ModelInfo,
  Phase,
  PhaseReport,
  ProbeRequest,
  SpeedMeasurement,
} from '../../service/trainer_api.ts';
import type { StepMetrics, Trajectory } from '../../rl/types.ts';
import type { CheckpointSummary } from '../../service/checkpoint_store.ts';
import { rememberedProbes, rememberProbe } from '../../service/backend_choice.ts';
import { defaultConfig, sandboxSettings, type RunConfig } from '../../run/config.ts';
import { encodeLink } from '../../run/link.ts';
import { explainError, type UiError } from './errors.ts';
import type { ModelCost } from './model_fit.ts';
import { modelChoice, modelLabel, type ModelContext } from './models.ts';
import type { Change, ControllerDeps, Controls, RunState, StepRecord } from './run_types.ts';

/**
 * The run as the page sees it: state, errors, starting and configuring. Training steps are added
 * by RunTraining (run_training.ts); checkpoints, resume, exports and evaluation by RunController
 * (run_controller.ts).
 */
export abstract class RunCore {
  state: RunState = 'starting';
  status = 'Starting…';
  backend: BackendInfo | null = null;
  /** Why `auto` runs this backend: both backends' figures, or null (chosen by hand, or no GPU). */
  backendProbe: BackendProbe | null = null;
  model: ModelInfo | null = null;
  /** A memory warning for the loaded model (it may run out of memory while training). */
  modelWarning: string | null = null;
  /** This device's speed on the backend, measured by the worker at init (null until then). */
  speed: SpeedMeasurement | null = null;
  /** The configuration form's valid, unapplied edits, or null (the estimates follow them). */
  draft: RunConfig | null = null;
  readonly progress = new Map<LoadProgress['stage'], LoadProgress>();
  config: RunConfig = defaultConfig();
  fragment = '';
  metrics: StepMetrics[] = [];
  evals: EvalReport[] = [];
  /** Finished steps, newest last (the last `keepSteps` only). */
  steps: StepRecord[] = [];
  /**
   * Every finished step's trajectories, without token arrays, for the JSONL export (the last 1000
   * steps).
   */
  trajectoryLog: { step: number; trajectories: Trajectory[] }[] = [];
  /** The step the phase stepper is in the middle of, or null. */
  current: StepRecord | null = null;
  nextPhase: Phase = 'rollout';
  /** The phase running now, or null. */
  activePhase: Phase | null = null;
  lastReport: PhaseReport | null = null;
  /** Errors to show, oldest first (a bad link and a failed start can both matter); at most 3. */
  errors: UiError[] = [];
  /** The newest checkpoint found at start, offered for resuming. */
  resumable: CheckpointSummary | null = null;
  lastCheckpoint: CheckpointSummary | null = null;
  runId: string;
  context: ModelContext = { hubBaseUrl: 'https://huggingface.co', picked: null };

  protected choice: ModelChoice | null = null;
  protected pauseRequested = false;
  /** The phase stepper runs one phase per call; runStep runs the following phases by itself. */
  protected singlePhase = false;
  protected readonly listeners = new Set<(change: Change) => void>();
  protected readonly now: () => number;

  constructor(protected readonly deps: ControllerDeps) {
    this.now = deps.now ?? Date.now;
    this.runId = this.newRunId();
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  subscribe(listener: (change: Change) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected emit(change: Change): void {
    for (const listener of this.listeners) listener(change);
  }

  protected newRunId(): string {
    return `run-${this.now().toString(36)}-${Math.floor(Math.random() * 1e6).toString(36)}`;
  }

  /** Steps finished in this run. */
  get finishedSteps(): number {
    return this.metrics.at(-1)?.step ?? 0;
  }

  /** The latest step's mean reward, or null before the first step. */
  get rewardMean(): number | null {
    return this.metrics.at(-1)?.reward_mean ?? null;
  }

  /** Which controls may be used now. */
  controls(): Controls {
    const idle = this.state === 'idle';
    const ready = idle && this.model !== null && this.fragment !== '';
    return {
      train: ready && this.finishedSteps < this.config.steps,
      pause: this.state === 'training',
      step: ready,
      phase: ready,
      reset: ready && (this.finishedSteps > 0 || this.current !== null),
      configure: idle,
    };
  }

  protected setState(state: RunState, status?: string): void {
    this.state = state;
    if (status !== undefined) this.status = status;
    this.emit('state');
  }

  /** The newest error, or null. */
  get error(): UiError | null {
    return this.errors.at(-1) ?? null;
  }

  /** Clears the error area. */
  dismissError(): void {
    this.errors = [];
    this.emit('error');
  }

  protected addError(error: UiError): void {
    this.errors = [...this.errors.filter((e) => e.message !== error.message), error].slice(-3);
    this.emit('error');
  }

  /**
   * Shows an error that happened outside the controller (e.g. a bad custom task file); `title`
   * overrides the kind's.
   */
  showError(error: unknown, during: string, title?: string): void {
    const explained = explainError(error, during);
    if (title) explained.title = title;
    this.addError(explained);
  }

  /**
   * Runs `body` as the one call in flight: refuses when another is running, shows its error, and
   * returns whether it succeeded.
   */
  protected async exclusive(
    during: string,
    state: RunState,
    body: () => Promise<void>,
  ): Promise<boolean> {
    if (this.state !== 'idle' && !(this.state === 'starting' && state === 'starting')) return false;
    this.setState(state);
    try {
      await body();
      return true;
    } catch (error) {
      const explained = explainError(error, during);
      this.status = `Stopped while ${during}: ${explained.title.toLowerCase()}.`;
      this.addError(explained);
      return false;
    } finally {
      this.activePhase = null;
      this.pauseRequested = false;
      this.singlePhase = false;
      this.setState('idle');
    }
  }

  protected onProgress = (progress: LoadProgress): void => {
    this.progress.set(progress.stage, progress);
    // Progress messages cross from the worker asynchronously and may land after the call ended.
    if (this.state !== 'idle') this.status = progress.message;
    this.emit('progress');
  };

  /** Starts the worker (backend, sandbox), loads the config's model and configures the run. */
  async start(config: RunConfig): Promise<boolean> {
    this.config = config;
    this.emit('config');
    const ok = await this.exclusive('starting the trainer', 'starting', async () => {
      this.setState('starting', 'Starting the backend and the Python sandbox…');
      await this.initBackend(config);
      const choice = await this.checkModelInner(config);
      // configure before loading: the worker builds the model's adapters from the config
      await this.configureInner(config, false);
      await this.loadModelInner(config, choice);
      this.status = 'Ready. Press Train, or Step through one phase at a time.';
    });
    if (this.deps.checkpoints) {
      try {
        this.resumable = await this.deps.checkpoints.latest();
        if (this.resumable) this.emit('checkpoint');
      } catch (error) {
        this.showError(error, 'looking for saved checkpoints');
      }
    }
    return ok;
  }

  /**
   * Starts the config's backend and the sandbox. `auto` has the worker measure WebGPU against WASM
   * on the config's model (or reuse the verdict remembered for this model and device) first.
   */
  protected async initBackend(config: RunConfig): Promise<void> {
    const request = config.backend === 'auto' ? this.probeRequest(config) : null;
    const probe = request ? { probe: request } : {};
    const report = await this.deps.trainer.init(
      { backend: config.backend, sandbox: sandboxSettings(config), ...probe },
      this.deps.proxy(this.onProgress),
    );
    await this.setBackend(report);
  }

  /** `auto` for another model: chooses again without restarting the sandbox. */
  protected async chooseBackendInner(config: RunConfig): Promise<void> {
    this.status = `Measuring WebGPU against WASM on ${modelLabel(config.model)}…`;
    this.emit('state');
    const request = this.probeRequest(config);
    if (!request) return;
    const before = this.backend?.name;
    await this.setBackend(await this.deps.trainer.chooseBackend(request));
    if (this.backend?.name !== before) this.model = null; // the worker freed it with its backend
  }

  /** What the probe needs; null for a model that cannot be resolved (its load says why). */
  private probeRequest(config: RunConfig): ProbeRequest | null {
    try {
      const model = modelChoice(config.model, this.context);
      return { model, config, remembered: rememberedProbes(this.deps.settings) };
    } catch {
      return null;
    }
  }

  private async setBackend(report: BackendReport): Promise<void> {
    const { probe, ...info } = report;
    this.backend = info;
    this.backendProbe = probe ?? null;
    if (probe) rememberProbe(this.deps.settings, probe);
    await this.measureSpeedInner();
    this.emit('backend');
  }

  /** Reads the speed the worker measured at init; a failure leaves the estimate without seconds. */
  protected async measureSpeedInner(): Promise<void> {
    this.speed = await this.deps.trainer.measureSpeed().catch(() => null);
  }

  /** Keeps the form's unapplied edits (null: none, or invalid), telling panels when they change. */
  setDraft(config: RunConfig | null): void {
    if (JSON.stringify(config) === JSON.stringify(this.draft)) return;
    this.draft = config;
    this.emit('draft');
  }

  /**
   * What `model` (a config's model text) would cost under `config` (default: the form's edits, else
   * the applied config) on this device; null when there is nothing to estimate or no estimator.
   * Reads config.json only: no worker call, so it may run while the worker is busy.
   */
  async costOf(model: string, config?: RunConfig): Promise<ModelCost | null> {
    if (!this.deps.estimateCost) return null;
    const run = { ...(config ?? this.draft ?? this.config), model };
    return this.deps.estimateCost(modelChoice(model, this.context), run, this.backend, this.speed);
  }

  /**
   * Resolves and checks the config's model before anything changes (a refusal leaves the run as it
   * was).
   */
  protected async checkModelInner(config: RunConfig): Promise<ModelChoice> {
    const choice = modelChoice(config.model, this.context);
    this.status = `Checking ${modelLabel(config.model)}…`;
    this.emit('state');
    this.modelWarning = this.deps.checkModel
      ? await this.deps.checkModel(choice, config, this.backend)
      : null;
    return choice;
  }

  protected async loadModelInner(config: RunConfig, choice: ModelChoice): Promise<void> {
    this.model = null;
    this.emit('model');
    this.status = `Loading ${modelLabel(config.model)}…`;
    this.emit('state');
    this.model = await this.deps.trainer.loadModel(choice, this.deps.proxy(this.onProgress));
    this.choice = choice;
    this.emit('model');
  }

  protected async configureInner(config: RunConfig, reload = true): Promise<void> {
    const fragment = await encodeLink(config);
    await this.deps.trainer.configure(fragment, { reload });
    this.config = config;
    this.fragment = fragment;
    this.clearRun();
    this.emit('config');
  }

  protected clearRun(): void {
    this.metrics = [];
    this.evals = [];
    this.steps = [];
    this.trajectoryLog = [];
    this.current = null;
    this.lastReport = null;
    this.nextPhase = 'rollout';
    this.runId = this.newRunId();
    this.emit('reset');
  }

  /**
   * Applies an edited config: re-inits for another backend, reloads for another model, then
   * configures (which resets the run).
   */
  async applyConfig(config: RunConfig): Promise<boolean> {
    return this.exclusive('applying the configuration', 'busy', async () => {
      const newModel =
        config.model !== this.config.model || !this.model || this.choice?.kind === 'files';
      if (config.backend !== this.config.backend || !this.backend) await this.initBackend(config);
      else if (config.backend === 'auto' && newModel) await this.chooseBackendInner(config);
      const choice = newModel ? await this.checkModelInner(config) : null;
      // A new model is loaded right after, so the worker need not reload the old one first.
      await this.configureInner(config, !choice);
      if (choice) await this.loadModelInner(config, choice);
      this.status = 'Configuration applied; the run starts from step 0.';
    });
  }
}
