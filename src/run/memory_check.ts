// The memory check before a model loads, one for the page and `cli train`: config.json alone, the
// run's shape and the device's budget give memory_estimate.ts's verdict, whose message says why
// and what to do. The page refuses a `too_large` model before downloading it and warns of a
// `tight` one (src/ui/state/model_fit.ts); `cli train` refuses or warns with the same message
// before reading any weights (src/cli/memory_check.ts).
import { parseModelConfig, type ModelConfig } from '../model_files/hf_config.ts';
import {
  estimateMemory,
  fileBytesPerParameter,
  memoryBudget,
  memoryVerdict,
  type DeviceFacts,
  type MemoryBudget,
  type MemoryEstimate,
  type MemoryFit,
} from '../model_files/memory_estimate.ts';
import { readJson, type ModelSource } from '../model_files/source.ts';
import type { RunConfig } from './config.ts';
import { resolveRun } from './resolve.ts';

/** A model's config.json as the estimates need it. */
export interface ModelFacts {
  model: ModelConfig;
  /** Bytes per parameter of its weight files (from torch_dtype). */
  fileBytesPerParameter: number;
}

/** The verdict with what it was made from. */
export interface MemoryCheck {
  fit: MemoryFit;
  /** memoryVerdict's message: why, and for `too_large` and `tight` what to do. */
  message: string;
  estimate: MemoryEstimate;
  budget: MemoryBudget;
}

/**
 * Reads config.json only (a few KB, even from the hub); rejects with parseModelConfig's message
 * when the architecture is unsupported.
 */
export async function readModelFacts(source: ModelSource): Promise<ModelFacts> {
  const json = await readJson(source, 'config.json');
  return {
    model: parseModelConfig(json, `${source.name}/config.json`),
    fileBytesPerParameter: fileBytesPerParameter(json),
  };
}

/** The verdict for the model `facts` describes (named `name` in the message), run as `config`. */
export function memoryCheckOf(
  facts: ModelFacts,
  name: string,
  config: RunConfig,
  device: DeviceFacts,
): MemoryCheck {
  const shape = resolveRun(config).memoryShape;
  const estimate = estimateMemory(facts.model, {
    ...shape,
    fileBytesPerParameter: facts.fileBytesPerParameter,
    // frozen weights stay 16-bit on wasm and webgpu (half_weight.ts); full fine-tuning is float32
    sixteenBit: device.backend !== 'cpu' && facts.fileBytesPerParameter === 2 && !shape.full,
  });
  const budget = memoryBudget(device);
  const verdict = memoryVerdict(estimate, budget, name);
  return { ...verdict, estimate, budget };
}

/** Reads `source`'s config.json and checks it (memoryCheckOf). */
export async function checkMemory(
  source: ModelSource,
  name: string,
  config: RunConfig,
  device: DeviceFacts,
): Promise<MemoryCheck> {
  return memoryCheckOf(await readModelFacts(source), name, config, device);
}
