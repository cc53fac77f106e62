// "Will it fit, and how long will it take?" before a download: reads only config.json of a hub
// model or picked folder, refuses a model too large for this device with the reason
// (src/run/memory_check.ts, the check `cli train` runs too), and estimates the seconds per step on
// this device from the speed the trainer worker measured (src/model_files/step_cost.ts).
import type { FileCache } from '../../model_files/hub_source.ts';
import { hubSource } from '../../model_files/hub_source.ts';
import { localFilesSource } from '../../model_files/local_files_source.ts';
import {
  formatBytes,
  type DeviceFacts,
  type MemoryFit,
} from '../../model_files/memory_estimate.ts';
import type { ModelSource } from '../../model_files/source.ts';
import { estimateStepSeconds, formatDuration, type StepCost } from '../../model_files/step_cost.ts';
import {
  DEMO_GENERATION,
  demoModelConfig,
  isDemoShaped,
} from '../../model_files/step_calibration.ts';
import type { ModelChoice, SpeedMeasurement } from '../../service/trainer_api.ts';
import type { RunConfig } from '../../run/config.ts';
import type { StepMetrics } from '../../rl/types.ts';
import {
  memoryCheckOf,
  readModelFacts,
  type MemoryCheck,
  type ModelFacts,
} from '../../run/memory_check.ts';
import { resolveRun } from '../../run/resolve.ts';
import { parseModelConfig } from '../../model_files/hf_config.ts';
import { fileBytesPerParameter } from '../../model_files/memory_estimate.ts';
import { shapeConfig, shapePreset } from '../../model_files/shape_presets.ts';
import { HUB_PRESETS } from './models.ts';

/** Where config.json comes from, and what the device offers. */
export interface FitEnvironment {
  fetch?: typeof globalThis.fetch;
  cache?: FileCache | null;
  device: DeviceFacts;
}

/** The source of a non-demo choice and the name messages use for it. */
function sourceOf(
  choice: Exclude<ModelChoice, { kind: 'demo' }>,
  env: FitEnvironment,
): { source: ModelSource; name: string } {
  if (choice.kind === 'files') {
    const source = localFilesSource(choice.files);
    return { source, name: source.name };
  }
  const source = hubSource({
    repo: choice.repo,
    revision: choice.revision,
    baseUrl: choice.baseUrl,
    fetch: env.fetch,
    cache: env.cache ?? null,
  });
  return { source, name: choice.repo };
}

/**
 * The memory verdict for `choice` under `config`; null for the demo model (it is tiny). Throws
 * when the model is too large (the message says why and what to choose instead), or when its
 * config.json cannot be read or names an unsupported architecture.
 */
export async function checkModelFits(
  choice: ModelChoice,
  config: RunConfig,
  env: FitEnvironment,
): Promise<{ fit: MemoryFit; message: string } | null> {
  if (choice.kind === 'demo') return null;
  const { source, name } = sourceOf(choice, env);
  const verdict = memoryCheckOf(await readModelFacts(source), name, config, env.device);
  // The message already says why and ends with "Fix: …".
  if (verdict.fit === 'too_large') throw new Error(verdict.message);
  return { fit: verdict.fit, message: verdict.message };
}

/** What a model costs under a run's settings on this device, before it is downloaded. */
export interface ModelCost {
  name: string;
  parameters: number;
  memory: MemoryCheck;
  /**
   * Seconds per step, as `assumes` says; null until the worker has the device's speed (or on a
   * backend with none).
   */
  step: StepCost | null;
  /** With `assumes` 'demo-episodes': the step if every turn used all its tokens (else null). */
  worst: StepCost | null;
  speed: SpeedMeasurement | null;
  /**
   * 'demo-episodes': episodes as long as the demo model's own in its default run (the demo, or a
   * model of its shapes); 'token-limit': every turn uses all its tokens (a model's episodes are
   * not known before it runs: a model that stops early takes less).
   */
  assumes: 'demo-episodes' | 'token-limit';
  /** Tokens per turn the step's limit allows. */
  tokensPerTurn: number;
  /** The run's steps, and its seconds at `step` (null with it). */
  steps: number;
  runSeconds: number | null;
  /** The shapes came from the hub preset's known config.json or the demo's: nothing was fetched. */
  known: boolean;
}

/** A hub preset's config.json as the shape presets know it (no request), or null. */
export function knownFacts(repo: string): ModelFacts | null {
  const preset = HUB_PRESETS.find((p) => p.repo === repo);
  if (!preset) return null;
  const json = shapeConfig(shapePreset(preset.shape));
  return {
    model: parseModelConfig(json, `${repo}/config.json`),
    fileBytesPerParameter: fileBytesPerParameter(json),
  };
}

/** config.json of hub models already read, by address: the estimate follows every edit. */
const factsCache = new Map<string, Promise<ModelFacts>>();

/**
 * The memory verdict (never thrown: a `too_large` one is shown) and the seconds per step of
 * `choice` under `config` at `speed`. Rejects when config.json cannot be read or names an
 * unsupported architecture.
 */
export async function estimateModelCost(
  choice: ModelChoice,
  config: RunConfig,
  env: FitEnvironment,
  speed: SpeedMeasurement | null,
): Promise<ModelCost | null> {
  let facts: Promise<ModelFacts>;
  let name: string;
  let known: ModelFacts | null = null;
  if (choice.kind === 'demo') {
    name = 'the demo model';
    known = { model: demoModelConfig(), fileBytesPerParameter: 2 };
    facts = Promise.resolve(known);
  } else {
    const { source, name: sourceName } = sourceOf(choice, env);
    name = sourceName;
    known = choice.kind === 'hub' ? knownFacts(choice.repo) : null;
    if (known) facts = Promise.resolve(known);
    else if (choice.kind === 'hub') {
      const key = `${choice.baseUrl ?? ''}/${choice.repo}@${choice.revision ?? 'main'}`;
      facts = factsCache.get(key) ?? readModelFacts(source);
      factsCache.set(key, facts);
      facts.catch(() => factsCache.delete(key)); // a failed read is tried again next time
    } else facts = readModelFacts(source);
  }
  const { model, fileBytesPerParameter: bytesPerParameter } = await facts;
  const memory = memoryCheckOf(
    { model, fileBytesPerParameter: bytesPerParameter },
    name,
    config,
    env.device,
  );
  const shape = resolveRun(config).stepShape;
  // the demo's episodes are measured (step_calibration.ts); only on the speed they were measured
  // with do their fixed costs mean anything
  const demoEpisodes = isDemoShaped(model) && speed?.basis === 'calibrated';
  const limit = speed ? estimateStepSeconds(model, shape, speed) : null;
  const step =
    speed && demoEpisodes
      ? estimateStepSeconds(model, { ...shape, generation: DEMO_GENERATION }, speed)
      : limit;
  return {
    name,
    parameters: memory.estimate.parameters,
    memory,
    step,
    worst: demoEpisodes ? limit : null,
    speed,
    assumes: demoEpisodes ? 'demo-episodes' : 'token-limit',
    tokensPerTurn: config.maxNewTokens,
    steps: config.steps,
    runSeconds: step ? step.seconds * config.steps : null,
    known: known !== null,
  };
}

/** Where the speed comes from, in words. */
function speedBasis(speed: SpeedMeasurement): string {
  if (speed.basis === 'calibrated')
    return `calibrated on ${speed.reference ?? 'a reference machine'}; our kernels run on ${speed.threads ?? 1} thread${speed.threads === 1 ? '' : 's'} here`;
  return `${speed.gflops.toFixed(0)} GFLOP/s measured in half a second on ${speed.backend}, not yet checked against a measured step`;
}

/** The cost as the model card says it: the seconds line, the memory line, and a breakdown. */
export function costText(cost: ModelCost): {
  step: string;
  run: string;
  memory: string;
  detail: string;
  assumes: string;
} {
  const { memory, step, speed, worst } = cost;
  const demo = cost.assumes === 'demo-episodes';
  const g = DEMO_GENERATION;
  return {
    run:
      cost.runSeconds !== null
        ? `Estimated run: ${cost.steps} steps ≈ ${formatDuration(cost.runSeconds)}${cost.known ? ' (from known shapes; nothing downloaded)' : ''}.`
        : '',
    step:
      step && speed
        ? `≈ ${formatDuration(step.seconds)} per step on this device${demo || cost.tokensPerTurn === 0 ? '' : ` if every turn uses all ${cost.tokensPerTurn} tokens`}`
        : speed === null
          ? 'Seconds per step: measuring this device…'
          : '',
    assumes:
      step && speed
        ? `${
            demo
              ? `Assumes episodes as long as the demo model's own in its default run (${g.turns} turns and ${g.tokens} tokens on average)${worst ? `; up to ${formatDuration(worst.seconds)} a step if every turn used all ${cost.tokensPerTurn} tokens` : ''}. `
              : 'A model that stops early takes less. '
          }Speed: ${speedBasis(speed)}. Once a step has run, the page shows its measured time.`
        : '',
    memory: memory.message, // the page's and `cli train`'s one message (memory_estimate.ts)
    detail:
      step && speed
        ? `Rollout ≈ ${formatDuration(step.rolloutSeconds)}, update ≈ ${formatDuration(step.updateSeconds)}: ${(step.flops / 1e12).toFixed(step.flops < 1e13 ? 2 : 0)} TFLOP; decoding streams ${formatBytes(step.decodeWeightBytes)} of weights a token.`
        : '',
  };
}

/**
 * What this run's steps took here, beside the estimate: the mean wall time of its last ten steps,
 * the first left out once there are others (it warms the kernels up); '' before a step.
 */
export function measuredStepText(metrics: readonly StepMetrics[]): string {
  const rows = metrics.length > 1 ? metrics.slice(1).slice(-10) : metrics;
  if (rows.length === 0) return '';
  const seconds = rows.map(
    (m) => m.timeline?.seconds_wall ?? m.seconds_generate + m.seconds_sandbox + m.seconds_train,
  );
  const mean = formatDuration(seconds.reduce((a, b) => a + b, 0) / seconds.length);
  if (metrics.length === 1)
    return `Measured here: ${mean} a step (step 1, warming the kernels up).`;
  const which =
    rows.length === 1
      ? `step ${rows[0]!.step}`
      : `the mean of steps ${rows[0]!.step}-${rows.at(-1)!.step}`;
  return `Measured here: ${mean} a step (${which}; step 1 left out: it warms the kernels up).`;
}
