// How the run starts and what it runs on: the worker's backend (with `auto`'s probe), the speed
// it measured, the model (checked before it loads), the configuration (applied to the worker as a
// run link), the loading progress, and the form's unapplied edits with what they would cost.
import type { BackendInfo } from '../../kernels/backend.ts';
import type {
  BackendProbe,
  BackendReport,
  LoadProgress,
  ModelChoice,
  ModelInfo,
  ProbeRequest,
  SpeedMeasurement,
} from '../../service/trainer_api.ts';
import { rememberedProbes, rememberProbe } from '../../service/backend_choice.ts';
import { defaultConfig, sandboxSettings, type RunConfig } from '../../run/config.ts';
import { encodeLink } from '../../run/link.ts';
import type { CustomTaskInput } from '../../tasks/custom.ts';
import { testsSyntaxMessage } from '../../tasks/tests_syntax.ts';
import type { ModelCost } from './model_fit.ts';
import { modelChoice, modelLabel, type ModelContext } from './models.ts';
import type { RunActivity } from './run_activity.ts';
import type { Changes } from './run_changes.ts';
import type { ControllerDeps } from './run_types.ts';
import type { RunView } from './run_view.ts';
import { readyStatus } from './status_text.ts';

/** The run's backend, model and configuration, and the calls that set them. */
export class RunSetup {
  backend: BackendInfo | null = null;
  /** Why `auto` runs this backend: both backends' figures, or null (chosen by hand, or no GPU). */
  backendProbe: BackendProbe | null = null;
  model: ModelInfo | null = null;
  /** The loaded model as it was chosen (hub id or picked folder), for checkpoints. */
  choice: ModelChoice | null = null;
  /** A memory warning for the loaded model (it may run out of memory while training). */
  modelWarning: string | null = null;
  /** This device's speed on the backend, measured by the worker at init (null until then). */
  speed: SpeedMeasurement | null = null;
  /** The configuration form's valid, unapplied edits, or null (the estimates follow them). */
  draft: RunConfig | null = null;
  readonly progress = new Map<LoadProgress['stage'], LoadProgress>();
  /**
   * The Python sandbox's start, which reports no bytes (seconds of Pyodide on a first visit): when
   * it began (Date.now()), and how long it took once the worker's start returned; null before.
   */
  sandboxStart: { since: number; seconds: number | null } | null = null;
  config: RunConfig = defaultConfig();
  /** The applied config as the worker got it (a run link). */
  fragment = '';
  context: ModelContext = { hubBaseUrl: 'https://huggingface.co', picked: null };

  constructor(
    private readonly deps: ControllerDeps,
    private readonly changes: Changes,
    private readonly activity: RunActivity,
    private readonly view: RunView,
  ) {}

  private onProgress = (progress: LoadProgress): void => {
    this.progress.set(progress.stage, progress);
    if (progress.stage === 'sandbox' && progress.loadedBytes === undefined)
      this.sandboxStart = { since: Date.now(), seconds: null };
    // Progress messages cross from the worker asynchronously and may land after the call ended.
    if (this.activity.state !== 'idle') this.activity.status = progress.message;
    this.changes.emit('progress');
  };

  /** Starts the worker (backend, sandbox), loads the config's model and configures the run. */
  async start(config: RunConfig): Promise<boolean> {
    this.config = config;
    this.changes.emit('config');
    return this.activity.exclusive('starting the trainer', 'starting', async () => {
      this.activity.set('starting', 'Starting the backend and the Python sandbox…');
      await this.initBackend(config);
      const choice = await this.checkModel(config);
      // configure before loading: the worker builds the model's adapters from the config
      await this.configure(config, false);
      await this.loadModel(config, choice);
      // a link may carry a custom task whose tests cannot compile: every sample would score 0
      const broken = await this.testsProblems(config.customTasks).catch(() => []);
      if (broken.length > 0)
        this.activity.showError(
          new Error(broken.join('\n')),
          'opening the run',
          "A custom task's tests do not compile",
        );
      this.activity.status = readyStatus(new Set(this.deps.hidden));
    });
  }

  /**
   * Starts the config's backend and the sandbox. `auto` has the worker measure WebGPU against WASM
   * on the config's model (or reuse the verdict remembered for this model and device) first.
   */
  async initBackend(config: RunConfig): Promise<void> {
    const request = config.backend === 'auto' ? this.probeRequest(config) : null;
    const probe = request ? { probe: request } : {};
    const report = await this.deps.trainer
      .init(
        { backend: config.backend, sandbox: sandboxSettings(config), ...probe },
        this.deps.proxy(this.onProgress),
      )
      .finally(() => {
        // the worker's start returns once the sandbox is up (or has failed: the error says so)
        const start = this.sandboxStart;
        if (start && start.seconds === null) {
          start.seconds = (Date.now() - start.since) / 1000;
          this.changes.emit('progress');
        }
      });
    await this.setBackend(report);
  }

  /** `auto` for another model: chooses again without restarting the sandbox. */
  private async chooseBackend(config: RunConfig): Promise<void> {
    this.activity.status = `Measuring WebGPU against WASM on ${modelLabel(config.model)}…`;
    this.changes.emit('state');
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
    // A failure leaves the estimate without seconds.
    this.speed = await this.deps.trainer.measureSpeed().catch(() => null);
    this.changes.emit('backend');
  }

  /**
   * The form's messages for the custom tasks whose tests Python cannot compile (empty when all do);
   * asks the worker's sandbox, so only after the start.
   */
  async testsProblems(tasks: readonly CustomTaskInput[]): Promise<string[]> {
    const withTests = tasks.flatMap((task, index) =>
      typeof task.tests === 'string' && task.tests.trim() !== ''
        ? [{ index, tests: task.tests }]
        : [],
    );
    if (withTests.length === 0) return [];
    const verdicts = await this.deps.trainer.checkTests(withTests.map((t) => t.tests));
    return verdicts.flatMap((verdict, k) =>
      verdict ? [testsSyntaxMessage(withTests[k]!.index, verdict)] : [],
    );
  }

  /** Keeps the form's unapplied edits (null: none, or invalid), telling panels when they change. */
  setDraft(config: RunConfig | null): void {
    if (JSON.stringify(config) === JSON.stringify(this.draft)) return;
    this.draft = config;
    this.changes.emit('draft');
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
  async checkModel(config: RunConfig): Promise<ModelChoice> {
    const choice = modelChoice(config.model, this.context);
    this.activity.status = `Checking ${modelLabel(config.model)}…`;
    this.changes.emit('state');
    this.modelWarning = this.deps.checkModel
      ? await this.deps.checkModel(choice, config, this.backend)
      : null;
    return choice;
  }

  /** Loads a checked model into the worker. */
  async loadModel(config: RunConfig, choice: ModelChoice): Promise<void> {
    this.model = null;
    this.changes.emit('model');
    this.activity.status = `Loading ${modelLabel(config.model)}…`;
    this.changes.emit('state');
    this.model = await this.deps.trainer.loadModel(choice, this.deps.proxy(this.onProgress));
    this.choice = choice;
    this.changes.emit('model');
    // a model has loaded: what an earlier attempt to load one said no longer holds (the hub
    // unreachable, a model refused as too large or unsupported, a start that failed to load)
    this.activity.clearErrors(
      (e) =>
        e.kind === 'network' ||
        e.kind === 'model' ||
        e.during === 'starting the trainer' ||
        e.during === 'applying the configuration',
    );
  }

  /** Hands the worker `config` (as a run link); the run starts again from step 0. */
  private async configure(config: RunConfig, reload: boolean): Promise<void> {
    const fragment = await encodeLink(config);
    await this.deps.trainer.configure(fragment, { reload });
    this.config = config;
    this.fragment = fragment;
    this.view.clear();
    this.changes.emit('config');
  }

  /**
   * Applies an edited config: re-inits for another backend, reloads for another model, then
   * configures (which resets the run).
   */
  async applyConfig(config: RunConfig): Promise<boolean> {
    return this.activity.exclusive('applying the configuration', 'busy', async () => {
      const newModel =
        config.model !== this.config.model || !this.model || this.choice?.kind === 'files';
      if (config.backend !== this.config.backend || !this.backend) await this.initBackend(config);
      else if (config.backend === 'auto' && newModel) await this.chooseBackend(config);
      const choice = newModel ? await this.checkModel(config) : null;
      // A new model is loaded right after, so the worker need not reload the old one first.
      await this.configure(config, !choice);
      if (choice) await this.loadModel(config, choice);
      this.activity.status = 'Configuration applied; the run starts from step 0.';
    });
  }
}
