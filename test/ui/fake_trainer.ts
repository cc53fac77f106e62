// TEST DOUBLE: a TrainerApi that fakes training without a model, so the page's logic and DOM can be
// tested before (and apart from) the real worker. Deterministic from the config's seed: samples
// pass with a probability that rises with the step, using the tasks' own prompts and reference
// solutions; failures show a real-looking traceback. With `search` among the run's tools, some
// samples search the docs before coding (more as the fake "learns"). It never ships: only tests and
// the test harness page (test/ui/harness/) import it.
import { REFERENCE_MACHINE, wasmSpeed } from '../../src/model_files/step_calibration.ts';
import type { TestsSyntaxError } from '../../src/tasks/tests_syntax.ts';
import type { BackendInfo } from '../../src/kernels/backend.ts';
import type {
  BackendProbe,
  BackendReport,
  EvalReport,
  GroupStats,
  LoadProgress,
  ModelChoice,
  ModelInfo,
  Phase,
  PhaseReport,
  ProbeRequest,
  SpeedMeasurement,
  TrainerApi,
  TrainerCheckpoint,
} from '../../src/service/trainer_api.ts';
import type { StepMetrics, Trajectory } from '../../src/rl/types.ts';
import { defaultConfig, type RunConfig, type SandboxSettings } from '../../src/run/config.ts';
import { decodeLink } from '../../src/run/link.ts';
import { tasksFor } from '../../src/tasks/registry.ts';
import type { Task } from '../../src/tasks/task.ts';
import { PHASES } from '../../src/training/reports.ts';
import { buildMetrics, buildTrajectory } from '../helpers/records.ts';
import { buildToolTrajectory, searchResults } from './tool_trajectories.ts';

/** How the fake behaves. */
export interface FakeTrainerOptions {
  /** Milliseconds each phase takes (so a browser test can see "running" states). */
  phaseDelayMs?: number;
  /** Methods that reject with this message (e.g. { loadModel: 'out of memory' }). */
  failOn?: Partial<Record<keyof TrainerApi, string>>;
  /** Send per-token texts with each phase report. */
  tokenTexts?: boolean;
  /** Bytes the fake "downloads" when loading a model or the sandbox. */
  loadBytes?: number;
  /** What measureSpeed() reports (default WASM's calibration at 2 threads, as the worker gives it). */
  speed?: Partial<SpeedMeasurement>;
  /** The verdict `auto` reports when the page asks for a probe (default none: WASM alone). */
  probe?: BackendProbe;
  /**
   * Every sample of step 1 fails, so every group is uniform and every advantage 0 (what the demo
   * model's first step at seed 1 does).
   */
  firstStepFails?: boolean;
}

/**
 * Canned doc entries for the fake's searches: keyword, the query a sample writes, signature,
 * summary. The first entry whose keyword the prompt has is searched for and ranks first.
 */
const FAKE_DOCS: readonly (readonly [string, string, string, string])[] = [
  [
    'choose',
    'number of ways to choose k items',
    'math.comb(n, k)',
    'Number of ways to choose k items from n without order.',
  ],
  [
    'divisor',
    'greatest common divisor',
    'math.gcd(*integers)',
    'Greatest common divisor of the integers.',
  ],
  ['median', 'middle value of data', 'statistics.median(data)', 'Middle value of numeric data.'],
  [
    'sum',
    'add up numbers',
    'sum(iterable, /, start=0)',
    'Sums start and the items of an iterable.',
  ],
  ['sort', 'sort a list', 'sorted(iterable, /, *, key=None, reverse=False)', 'A new sorted list.'],
  ['', 'count items', 'len(s)', 'The number of items of a container.'],
];

/** The fake's search for `prompt`: its query and results (up to 3, the matching entry first). */
function fakeSearch(prompt: string): { query: string; results: string } {
  const lower = prompt.toLowerCase();
  const first = FAKE_DOCS.findIndex(([keyword]) => lower.includes(keyword));
  const order = [first, ...FAKE_DOCS.keys()].filter((i, k, all) => all.indexOf(i) === k);
  return {
    query: FAKE_DOCS[first]![1],
    results: searchResults(order.slice(0, 3).map((i) => [FAKE_DOCS[i]![2], FAKE_DOCS[i]![3]])),
  };
}

/** mulberry32: a tiny seeded PRNG, enough for a deterministic fake. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const used = (t: Trajectory, tool: string) =>
  t.turns.some(
    (turn) =>
      turn.tool === tool ||
      (turn.action.type === 'tool_call' ? turn.action.tool : turn.action.type) === tool,
  );
const share = (all: readonly Trajectory[], test: (t: Trajectory) => boolean) =>
  all.filter(test).length / Math.max(1, all.length);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** TEST DOUBLE implementing TrainerApi. */
/** A synchronous step's timeline (src/rl/timeline.ts) for the page's Gantt strip. */
const FAKE_TIMELINE: Pick<
  StepMetrics,
  'timeline' | 'seconds_idle_trainer' | 'seconds_idle_rollout' | 'overlap_fraction'
> = {
  seconds_idle_trainer: 2.5,
  seconds_idle_rollout: 2.4,
  overlap_fraction: 0,
  timeline: {
    seconds_wall: 4.4,
    spans: [
      { lane: 'trainer', kind: 'waiting', start: 0, end: 2.5 },
      { lane: 'rollout', kind: 'generate', start: 0, end: 1.5 },
      { lane: 'rollout', kind: 'waiting', start: 1.5, end: 2 },
      { lane: 'sandbox-0', kind: 'sandbox', start: 1.5, end: 2 },
      { lane: 'rollout', kind: 'generate', start: 2, end: 2.5 },
      { lane: 'trainer', kind: 'reward', start: 2.5, end: 2.9 },
      { lane: 'sandbox-0', kind: 'reward', start: 2.5, end: 2.9 },
      { lane: 'trainer', kind: 'update', start: 2.9, end: 4.4 },
    ],
  },
};

export class FakeTrainer implements TrainerApi {
  /** Every call, in order, e.g. "runPhase:rollout". */
  readonly calls: string[] = [];
  /** Adapter files passed to importAdapter. */
  imported: Record<string, Uint8Array> | null = null;
  private config: RunConfig = defaultConfig();
  private fragment = '';
  private finished = 0;
  private phaseIndex = 0;
  private trajectories: Trajectory[] = [];
  private tokenTexts: Record<string, string[]> = {};
  private groups: GroupStats[] | null = null;
  private metrics: StepMetrics[] = [];
  private evals: EvalReport[] = [];
  private model: ModelInfo | null = null;

  constructor(private readonly options: FakeTrainerOptions = {}) {}

  private async enter(method: keyof TrainerApi, detail = ''): Promise<void> {
    this.calls.push(detail ? `${method}:${detail}` : method);
    if (this.options.phaseDelayMs) await sleep(this.options.phaseDelayMs);
    const failure = this.options.failOn?.[method];
    if (failure) throw new Error(failure);
  }

  private async bytes(
    stage: LoadProgress['stage'],
    message: string,
    onProgress: (p: LoadProgress) => void,
  ): Promise<void> {
    const total = this.options.loadBytes ?? 4_000_000;
    for (let loaded = 0; loaded <= total; loaded += total / 4) {
      onProgress({ stage, message, loadedBytes: loaded, totalBytes: total });
      await sleep(this.options.phaseDelayMs ? this.options.phaseDelayMs / 4 : 0);
    }
  }

  /** The sandbox settings the last init() was given. */
  initSandbox: SandboxSettings | undefined;

  async init(
    options: { backend: string; sandbox?: SandboxSettings; probe?: ProbeRequest },
    onProgress: (progress: LoadProgress) => void,
  ): Promise<BackendReport> {
    this.initSandbox = options.sandbox;
    await this.enter('init', options.backend);
    onProgress({ stage: 'backend', message: 'Starting the WASM backend…' });
    await this.bytes('sandbox', 'Loading the Python sandbox (Pyodide)…', onProgress);
    return this.backendReport(options.backend, options.probe);
  }

  /** The fake's verdict for `auto`: `options.probe`, reused when the page remembers its key. */
  async chooseBackend(request: ProbeRequest): Promise<BackendReport> {
    await this.enter('chooseBackend', request.config.model);
    return this.backendReport('auto', request);
  }

  private backendReport(backend: string, request?: ProbeRequest): BackendReport {
    const verdict = request ? this.options.probe : undefined;
    const known = verdict && request?.remembered[verdict.key];
    const info: BackendInfo = {
      name: backend === 'cpu' ? 'cpu' : verdict?.chosen === 'webgpu' ? 'webgpu' : 'wasm',
      adapter: null,
      simd: true,
      fma: true,
      threads: 2,
      skipped: verdict ? [] : ['webgpu: no WebGPU adapter (fake)'],
    };
    return {
      ...info,
      probe: known ? { ...known, remembered: true } : (verdict ?? null),
    };
  }

  /**
   * Python's verdict stood in for by one rule: a line `assert … = …` (an assignment where a
   * comparison belongs) does not compile. Not in `calls` (the form asks as the user types).
   */
  async checkTests(sources: string[]): Promise<(TestsSyntaxError | null)[]> {
    return sources.map((source) => {
      const lines = source.split('\n');
      const index = lines.findIndex((l) => /^assert\b[^=]*[^=!<>]=[^=]/.test(l.trim()));
      return index < 0
        ? null
        : { line: index + 1, message: 'invalid syntax', text: lines[index]!.trim() };
    });
  }

  /** A fixed speed, so estimates are deterministic; not in `calls` (init measured it). */
  async measureSpeed(): Promise<SpeedMeasurement> {
    return {
      backend: 'wasm',
      ...wasmSpeed(2),
      basis: 'calibrated',
      reference: REFERENCE_MACHINE,
      threads: 2,
      milliseconds: 0,
      ...this.options.speed,
    };
  }

  async loadModel(
    choice: ModelChoice,
    onProgress: (progress: LoadProgress) => void,
  ): Promise<ModelInfo> {
    await this.enter('loadModel', choice.kind === 'hub' ? choice.repo : choice.kind);
    await this.bytes('model', 'Downloading model weights…', onProgress);
    const name =
      choice.kind === 'hub' ? choice.repo : choice.kind === 'files' ? 'picked-model' : 'demo';
    this.model = {
      name,
      source: choice.kind,
      architecture: 'llama',
      parameters: choice.kind === 'demo' ? 3_400_000 : 134_515_008,
      trainableParameters: 40_960,
      card:
        choice.kind === 'demo'
          ? 'A tiny Llama trained on synthetic Python transcripts (fake).'
          : null,
      warnings: [],
    };
    return this.model;
  }

  async configure(configFragment: string): Promise<void> {
    await this.enter('configure');
    this.config = (await decodeLink(configFragment)).config;
    this.fragment = configFragment;
    this.resetState();
  }

  private resetState(): void {
    this.finished = 0;
    this.phaseIndex = 0;
    this.trajectories = [];
    this.groups = null;
    this.metrics = [];
    this.evals = [];
  }

  /** Probability that a sample passes at `step`: rises from 0.2 as the fake "learns". */
  private passProbability(step: number): number {
    return Math.min(0.9, 0.2 + 0.08 * step);
  }

  private rollout(step: number): void {
    const rng = random(this.config.seed * 7919 + step);
    const tasks = tasksFor(this.config.tasks, this.config.customTasks).slice(
      0,
      this.config.promptsPerStep ?? 3,
    );
    const p = step === 1 && this.options.firstStepFails ? 0 : this.passProbability(step);
    this.trajectories = [];
    this.tokenTexts = {};
    const searchOn = this.config.tools.includes('search');
    tasks.forEach((task, groupIndex) => {
      for (let sampleIndex = 0; sampleIndex < this.config.groupSize; sampleIndex++) {
        const roll = rng();
        if (searchOn && rng() < p) {
          // searches first, then runs the solution: passes when the roll does
          this.pushSearchSample(step, task, groupIndex, sampleIndex, roll < p);
          continue;
        }
        const solution = task.solution ?? `print(${JSON.stringify(task.expectedOutput ?? 'done')})`;
        const expected = task.expectedOutput ?? 'done';
        const fence = (code: string) => `\`\`\`python\n${code.trimEnd()}\n\`\`\``;
        const timedOut = roll > 0.97;
        const turns =
          roll < p
            ? [
                { text: fence(solution), code: solution, result: { observation: `${expected}\n` } },
                { text: `FINAL ANSWER: ${expected}`, code: null },
              ]
            : timedOut
              ? [
                  {
                    text: fence('while True:\n    pass'),
                    code: 'while True:\n    pass',
                    result: { ok: false, timedOut: true, observation: 'TIMEOUT' },
                  },
                ]
              : [
                  {
                    text: fence('print(reslt)'),
                    code: 'print(reslt)',
                    result: {
                      ok: false,
                      observation:
                        'Traceback (most recent call last):\n  File "<exec>", line 1, in <module>\nNameError: name \'reslt\' is not defined',
                      error: { type: 'NameError', message: "name 'reslt' is not defined" },
                    },
                  },
                  { text: 'FINAL ANSWER: 42', code: null },
                ];
        const passed = roll < p;
        const built = buildTrajectory({
          step,
          taskId: task.id,
          prompt: task.prompt,
          groupIndex,
          sampleIndex,
          turns,
          reward: 0,
          passed: false,
          finalAnswer: timedOut ? null : passed ? expected : '42',
          timedOut,
        });
        built.trajectory.passed = passed; // scored at the reward phase
        this.trajectories.push(built.trajectory);
        this.tokenTexts[built.trajectory.id] = built.tokenTexts;
      }
    });
  }

  private pushSearchSample(
    step: number,
    task: Task,
    groupIndex: number,
    sampleIndex: number,
    passed: boolean,
  ): void {
    const expected = task.expectedOutput ?? 'done';
    const solution = task.solution ?? `print(${JSON.stringify(expected)})`;
    const search = { kind: 'search' as const, ...fakeSearch(task.prompt) };
    const built = buildToolTrajectory({
      step,
      taskId: task.id,
      prompt: task.prompt,
      groupIndex,
      sampleIndex,
      reward: 0,
      passed,
      turns: passed
        ? [
            search,
            { kind: 'code', code: solution, output: `${expected}\n` },
            { kind: 'answer', answer: expected },
          ]
        : sampleIndex % 2 === 1
          ? [
              search,
              { kind: 'answer', answer: '42' }, // a guess: searched, never ran code
            ]
          : [
              search,
              {
                kind: 'code',
                code: 'print(math.choose(10, 3))',
                ok: false,
                output:
                  'Traceback (most recent call last):\n  File "<exec>", line 1, in <module>\nNameError: name \'math\' is not defined',
              },
              { kind: 'answer', answer: '42' },
            ],
    });
    this.trajectories.push(built.trajectory);
    this.tokenTexts[built.trajectory.id] = built.tokenTexts;
  }

  private rewardPhase(): void {
    const tests = new Set(
      tasksFor(this.config.tasks, this.config.customTasks)
        .filter((task) => task.expectedOutput === null)
        .map((task) => task.id),
    );
    this.trajectories = this.trajectories.map((t) => ({
      ...t,
      reward: t.passed ? 1 : 0,
      // a task with tests alone is scored by them, one with an expected output by the line printed
      rewardParts: { [tests.has(t.taskId) ? 'tests' : 'output_match']: t.passed ? 1 : 0 },
    }));
  }

  private advantagePhase(): void {
    const byGroup = new Map<number, Trajectory[]>();
    for (const t of this.trajectories)
      byGroup.set(t.groupIndex, [...(byGroup.get(t.groupIndex) ?? []), t]);
    this.groups = [...byGroup.values()].map((members) => {
      const rewards = members.map((t) => t.reward);
      const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
      const std = Math.sqrt(
        rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / (rewards.length - 1),
      );
      const advantages = rewards.map((r) => (std < 1e-8 ? 0 : (r - mean) / std));
      members.forEach((t, i) => {
        t.advantage = advantages[i]!;
      });
      return {
        groupIndex: members[0]!.groupIndex,
        taskId: members[0]!.taskId,
        rewards,
        mean,
        std,
        advantages,
        zeroStd: std < 1e-8,
        included: true,
      };
    });
  }

  private updatePhase(step: number): StepMetrics {
    const rewards = this.trajectories.map((t) => t.reward);
    const mean = rewards.reduce((a, b) => a + b, 0) / Math.max(1, rewards.length);
    const signal = this.trajectories.some((t) => t.advantage !== 0);
    const metrics = buildMetrics(step, {
      reward_mean: mean,
      reward_max: Math.max(0, ...rewards),
      pass_rate: this.trajectories.filter((t) => t.passed).length / Math.max(1, rewards.length),
      reward_parts: { output_match: mean },
      zero_std_fraction:
        (this.groups ?? []).filter((g) => g.zeroStd).length / Math.max(1, this.groups?.length ?? 1),
      // every advantage 0 (every group uniform): nothing to learn, as the real update finds
      ...(signal
        ? { loss: 0.05 / step, kl: 0.002 * step, clip_fraction: 0.02 * (step % 4) }
        : { loss: 0, kl: 0, clip_fraction: 0, grad_norm: 0 }),
      turns_mean: 2 - 0.03 * step,
      ran_code_fraction: this.config.tools.includes('search')
        ? share(this.trajectories, (t) => used(t, 'execute_code'))
        : Math.min(1, 0.5 + 0.02 * step),
      // measured from the samples, as src/rl/metrics.ts does: 0 when search is off
      search_fraction: share(this.trajectories, (t) => used(t, 'search')),
      searched_and_ran_fraction: share(
        this.trajectories,
        (t) => used(t, 'search') && used(t, 'execute_code'),
      ),
      ...FAKE_TIMELINE,
      timeouts: this.trajectories.filter((t) => t.timedOut).length,
      reward_hacks: this.trajectories.filter((t) => t.tampered.length > 0).length,
      trained_trajectories: this.trajectories.length,
      // like the real trainer, evaluate every evalEvery steps as part of the step
      eval_pass_at_1:
        this.config.evalEvery > 0 && step % this.config.evalEvery === 0
          ? this.passProbability(step)
          : null,
    });
    this.metrics.push(metrics);
    return metrics;
  }

  private report(phase: Phase, step: number, metrics: StepMetrics | null): PhaseReport {
    const report: PhaseReport & { tokenTexts?: Record<string, string[]> } = {
      step,
      phase,
      trajectories: structuredClone(this.trajectories),
      groups: phase === 'advantage' || phase === 'update' ? this.groups : null,
      metrics,
    };
    if (this.options.tokenTexts) report.tokenTexts = this.tokenTexts;
    return report;
  }

  async runPhase(): Promise<PhaseReport> {
    const phase = PHASES[this.phaseIndex]!;
    await this.enter('runPhase', phase);
    const step = this.finished + 1;
    let metrics: StepMetrics | null = null;
    if (phase === 'rollout') this.rollout(step);
    else if (phase === 'reward') this.rewardPhase();
    else if (phase === 'advantage') this.advantagePhase();
    else {
      metrics = this.updatePhase(step);
      this.finished = step;
    }
    this.phaseIndex = (this.phaseIndex + 1) % PHASES.length;
    return this.report(phase, step, metrics);
  }

  async runStep(onPhase: (report: PhaseReport) => void): Promise<StepMetrics> {
    this.calls.push('runStep');
    for (;;) {
      const report = await this.runPhase();
      onPhase(report);
      if (report.phase === 'update') return report.metrics!;
    }
  }

  async evaluate(): Promise<EvalReport> {
    await this.enter('evaluate');
    const report = {
      step: this.finished,
      passAt1: this.passProbability(this.finished),
      perTask: {},
    };
    this.evals.push(report);
    return report;
  }

  async reset(): Promise<void> {
    await this.enter('reset');
    this.resetState();
  }

  async checkpoint(): Promise<TrainerCheckpoint> {
    await this.enter('checkpoint');
    return {
      version: 1,
      configFragment: this.fragment,
      model: this.model!,
      step: this.finished,
      rngState: [this.finished],
      taskOrder: [],
      taskCursor: 0,
      tensors: [{ name: 'lora_A', shape: [2], data: Float32Array.from([this.finished, 1]) }],
      optimizer: { step: this.finished, moments: [] },
      metrics: [...this.metrics],
      evals: [...this.evals],
    };
  }

  async restore(checkpoint: TrainerCheckpoint): Promise<void> {
    await this.enter('restore', String(checkpoint.step));
    // like the real worker, restore configures from the checkpoint's own fragment
    this.config = (await decodeLink(checkpoint.configFragment)).config;
    this.fragment = checkpoint.configFragment;
    this.finished = checkpoint.step;
    this.phaseIndex = 0;
    this.metrics = [...checkpoint.metrics];
    this.evals = [...checkpoint.evals];
  }

  async exportAdapter(): Promise<Record<string, Uint8Array>> {
    await this.enter('exportAdapter');
    return {
      'adapter_config.json': new TextEncoder().encode(
        JSON.stringify({ peft_type: 'LORA', r: this.config.loraRank }),
      ),
      'adapter_model.safetensors': Uint8Array.from([
        8,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        ...new TextEncoder().encode('{}      '),
      ]),
    };
  }

  async importAdapter(files: Record<string, Uint8Array>): Promise<void> {
    await this.enter('importAdapter');
    this.imported = files;
  }

  async rolloutAccounting(): Promise<null> {
    return null;
  }

  async killRolloutWorker(): Promise<void> {
    throw new Error('the fake trainer has no rollout worker');
  }
}
