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
import type { ModelChoice, SpeedMeasurement } from '../../service/trainer_api.ts';
import type { RunConfig } from '../../run/config.ts';
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
  /** Seconds per step; null until the worker has measured this device's speed. */
  step: StepCost | null;
  speed: SpeedMeasurement | null;
  /** Tokens per turn the step assumes every turn uses (the worst case). */
  tokensPerTurn: number;
  /** The run's steps, and its seconds at `step` (null with it). */
  steps: number;
  runSeconds: number | null;
  /** The shapes came from the hub preset's known config.json: nothing was fetched. */
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
 * `choice` under `config` at `speed`; null for the demo model. Rejects when config.json cannot be
 * read or names an unsupported architecture.
 */
export async function estimateModelCost(
  choice: ModelChoice,
  config: RunConfig,
  env: FitEnvironment,
  speed: SpeedMeasurement | null,
): Promise<ModelCost | null> {
  if (choice.kind === 'demo') return null;
  const { source, name } = sourceOf(choice, env);
  let facts: Promise<ModelFacts>;
  const known = choice.kind === 'hub' ? knownFacts(choice.repo) : null;
  if (known) facts = Promise.resolve(known);
  else if (choice.kind === 'hub') {
    const key = `${choice.baseUrl ?? ''}/${choice.repo}@${choice.revision ?? 'main'}`;
    facts = factsCache.get(key) ?? readModelFacts(source);
    factsCache.set(key, facts);
    facts.catch(() => factsCache.delete(key)); // a failed read is tried again next time
  } else facts = readModelFacts(source);
  const { model, fileBytesPerParameter: bytesPerParameter } = await facts;
  const memory = memoryCheckOf(
    { model, fileBytesPerParameter: bytesPerParameter },
    name,
    config,
    env.device,
  );
  const step = speed ? estimateStepSeconds(model, resolveRun(config).stepShape, speed) : null;
  return {
    name,
    parameters: memory.estimate.parameters,
    memory,
    step,
    speed,
    tokensPerTurn: config.maxNewTokens,
    steps: config.steps,
    runSeconds: step ? step.seconds * config.steps : null,
    known: known !== null,
  };
}

/** The cost as the model card says it: the seconds line, the memory line, and a breakdown. */
export function costText(cost: ModelCost): {
  step: string;
  run: string;
  memory: string;
  detail: string;
} {
  const { memory, step, speed } = cost;
  return {
    run:
      cost.runSeconds !== null
        ? `Estimated run: ${cost.steps} steps ≈ ${formatDuration(cost.runSeconds)}${cost.known ? " (from the preset's known shapes; nothing downloaded)" : ''}.`
        : '',
    step:
      step && speed
        ? `≈ ${formatDuration(step.seconds)} per step on this device (${speed.gflops.toFixed(0)} GFLOP/s measured)`
        : 'Seconds per step: measuring this device…',
    memory: memory.message, // the page's and `cli train`'s one message (memory_estimate.ts)
    detail:
      step && speed
        ? `Rollout ≈ ${formatDuration(step.rolloutSeconds)}, update ≈ ${formatDuration(step.updateSeconds)}, if every turn uses all ${cost.tokensPerTurn} tokens: ${(step.flops / 1e12).toFixed(step.flops < 1e13 ? 2 : 0)} TFLOP over ${speed.gflops.toFixed(0)} GFLOP/s; decoding streams ${formatBytes(step.decodeWeightBytes)} of weights a token at up to ${speed.bandwidthGBs.toFixed(0)} GB/s.`
        : '',
  };
}
