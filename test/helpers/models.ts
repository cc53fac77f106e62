// Tiny fixture models for tests: their folders, golden values and loading, and backend switching.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { selectBackend, type BackendName } from '../../src/kernels/backend.ts';
import { CausalLM, type TrainingMode } from '../../src/model/model.ts';
import { directorySource } from '../../src/model_files/node_source.ts';

/** The folder of the tiny fixture models (test/fixtures/models/). */
export const fixturesDir = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'models',
);

/** Path of a tiny fixture model folder. */
export function fixture(name: string): string {
  return join(fixturesDir, name);
}

/** The golden values written by scripts/golden/tiny_models.py. */
export interface Golden {
  ids: number[];
  logits: number[][];
  temperature: number;
  next_token_logprobs: number[];
  llama3_rope: {
    head_dim: number;
    rope_theta: number;
    factor: number;
    low_freq_factor: number;
    high_freq_factor: number;
    original_max_position_embeddings: number;
    inv_freq: number[];
  };
}

/** Reads a fixture's golden.json. */
export function golden(name: string): Golden {
  return JSON.parse(readFileSync(join(fixture(name), 'golden.json'), 'utf8')) as Golden;
}

/** Loads a fixture model on the current backend. */
export function loadFixture(name: string, training?: TrainingMode): Promise<CausalLM> {
  return CausalLM.load(directorySource(fixture(name)), { training });
}

/** Switches tfjs to a backend (forced, so a failure is loud). */
export async function useBackend(name: BackendName): Promise<void> {
  await selectBackend({ force: name });
}
