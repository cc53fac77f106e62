// What the CLI's train and eval commands share: where a model named in a config lives in Node
// (the embedded demo, a local folder, or the hub), and the Node sandbox pool.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hubSource } from '../model_files/hub_source.ts';
import { directorySource } from '../model_files/node_source.ts';
import type { ModelSource } from '../model_files/source.ts';
import { createHostedNodeSandboxPool, createNodeSandboxPool } from '../env/node_pool.ts';
import type { RunConfig } from '../run/config.ts';
import type { ModelInfo } from '../service/trainer_api.ts';
import type { ClosableExecutor } from '../service/trainer_service.ts';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The committed demo model's folder. */
export const DEMO_MODEL_DIR = join(repoRoot, 'public', 'models', 'demo');

/** 'demo', a folder on disk, or a hub id (owner/name), as a ModelSource. */
export function nodeModelSource(name: string): {
  source: ModelSource;
  origin: ModelInfo['source'];
} {
  if (name === 'demo') {
    if (!existsSync(join(DEMO_MODEL_DIR, 'config.json')))
      throw new Error(
        `the demo model is missing from ${DEMO_MODEL_DIR}. Fix: run npm run make-demo-model, or check out the committed files.`,
      );
    return { source: directorySource(DEMO_MODEL_DIR), origin: 'demo' };
  }
  if (existsSync(resolve(name))) return { source: directorySource(resolve(name)), origin: 'path' };
  if (/^[\w.-]+\/[\w.-]+$/.test(name))
    return { source: hubSource({ repo: name, cache: null }), origin: 'hub' };
  throw new Error(
    `model ${JSON.stringify(name)} is neither 'demo', an existing folder, nor a hub id like owner/name`,
  );
}

/**
 * The Node sandbox pool a run's config asks for (worker threads running Pyodide, two at once),
 * closable. With `async` on it runs on a thread of its own (pool_host.ts), shared with the rollout
 * worker; otherwise on this thread, as it always has.
 */
export async function openConfigSandbox(
  config: Pick<RunConfig, 'timeoutMs' | 'maxOutputChars'> & { async?: boolean },
): Promise<ClosableExecutor> {
  const options = { size: 2, timeoutMs: config.timeoutMs, maxOutputChars: config.maxOutputChars };
  return config.async ? createHostedNodeSandboxPool(options) : createNodeSandboxPool(options);
}
