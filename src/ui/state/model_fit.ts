// "Will it fit?" before a download: reads only config.json of a hub model or picked folder, and
// refuses a model too large for this device with the reason (src/model_files/memory_estimate.ts).
import type { FileCache } from '../../model_files/hub_source.ts';
import { hubSource } from '../../model_files/hub_source.ts';
import { localFilesSource } from '../../model_files/local_files_source.ts';
import {
  estimateFromSource,
  memoryBudget,
  memoryVerdict,
  type DeviceFacts,
  type MemoryFit,
} from '../../model_files/memory_estimate.ts';
import type { ModelChoice } from '../../service/trainer_api.ts';
import type { RunConfig } from '../../run/config.ts';
import { runShape } from './models.ts';

/** Where config.json comes from, and what the device offers. */
export interface FitEnvironment {
  fetch?: typeof globalThis.fetch;
  cache?: FileCache | null;
  device: DeviceFacts;
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
  const source =
    choice.kind === 'hub'
      ? hubSource({
          repo: choice.repo,
          revision: choice.revision,
          baseUrl: choice.baseUrl,
          fetch: env.fetch,
          cache: env.cache ?? null,
        })
      : localFilesSource(choice.files);
  const name = choice.kind === 'hub' ? choice.repo : source.name;
  const { estimate } = await estimateFromSource(source, runShape(config));
  const verdict = memoryVerdict(estimate, memoryBudget(env.device), name);
  // The message already says why and ends with "Fix: …".
  if (verdict.fit === 'too_large') throw new Error(verdict.message);
  return verdict;
}
