// `train --config FILE | --link URL [--out DIR]`: one JSON line of metrics per step, then
// {"summary": …}. `--out` saves the adapter (PEFT) or the full weights, and the run's config.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exportPeftAdapter } from '../model/peft.ts';
import { hfWeights } from '../model/hf_weights.ts';
import { writeSafetensors } from '../model_files/safetensors_write.ts';
import type { ModelSource } from '../model_files/source.ts';
import { parseRunConfig } from '../run/config_validation.ts';
import type { RunConfig } from '../run/config.ts';
import { decodeLink, encodeLink } from '../run/link.ts';
import { summarizeRun } from '../rl/metrics.ts';
import { OutOfMemoryError } from '../rl/out_of_memory.ts';
import { createTrainer, loadPolicy, type LoadedPolicy } from '../service/session.ts';
import type { CliArgs } from './args.ts';
import { useNodeBackend } from './backend.ts';
import { checkTrainMemory } from './memory_check.ts';
import { nodeModelSource, openNodeSandbox } from './node_run.ts';

/**
 * The run config from --config FILE (JSON, partial: missing fields take defaults) or --link URL.
 */
export async function configFromArgs(args: CliArgs): Promise<RunConfig> {
  const file = args.options.get('config');
  const link = args.options.get('link');
  if ((file === undefined) === (link === undefined))
    throw new Error('pass exactly one of --config FILE or --link URL');
  if (file !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      throw new Error(`cannot read config ${file}: ${(error as Error).message}`);
    }
    return parseRunConfig(json);
  }
  const { config, fallbacks } = await decodeLink(link!);
  if (fallbacks.length > 0)
    throw new Error(
      `the link has problems:\n${fallbacks.map((f) => `- ${f.field}: ${f.reason}`).join('\n')}`,
    );
  return config;
}

/** Writes the trained weights (PEFT adapter, or full safetensors) and the config into `dir`. */
async function saveRun(
  dir: string,
  policy: LoadedPolicy,
  config: RunConfig,
  source: ModelSource,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  if (policy.model.training.kind === 'full') {
    // A complete model folder: the base's config and tokenizer beside the trained weights.
    for (const name of [
      'config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'generation_config.json',
    ]) {
      if (await source.has(name)) await writeFile(join(dir, name), await source.readFile(name));
    }
  }
  const files: Record<string, Uint8Array> =
    policy.model.training.kind === 'lora'
      ? await exportPeftAdapter(policy.model, config.model)
      : {
          'model.safetensors': writeSafetensors(hfWeights(policy.model.params), 'F32', {
            format: 'pt',
          }),
        };
  for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, name), bytes);
  await writeFile(join(dir, 'run_config.json'), `${JSON.stringify(config, null, 2)}\n`);
  await writeFile(join(dir, 'run_link.txt'), `${await encodeLink(config)}\n`);
}

/** Trains as the config says, printing one metrics line per step. */
export async function trainCommand(args: CliArgs): Promise<void> {
  const config = await configFromArgs(args);
  if (config.backend === 'webgpu')
    throw new Error(
      'the webgpu backend runs in the browser only; in Node use backend "wasm" or "cpu"',
    );
  await useNodeBackend({
    ...args,
    options: new Map([['backend', config.backend === 'cpu' ? 'cpu' : 'wasm']]),
  });
  const { source, origin } = nodeModelSource(config.model);
  // the page's memory check, from config.json alone: refuse before reading any weights
  await checkTrainMemory(source, config, config.backend === 'cpu' ? 'cpu' : 'wasm');
  const executor = await openNodeSandbox({
    size: 2,
    timeoutMs: config.timeoutMs,
    maxOutputChars: config.maxOutputChars,
  });
  const policy = await loadPolicy(source, config, origin);
  try {
    const trainer = createTrainer(policy, executor, config);
    const out = args.options.get('out');
    for (let step = 0; step < config.steps; step++) {
      const metrics = await trainer.runStep().catch(async (error: unknown) => {
        // out of memory leaves the run as after its last finished step: keep what that trained
        if (!(out && error instanceof OutOfMemoryError && error.restored && trainer.step > 0))
          throw error;
        await saveRun(out, policy, config, source);
        throw new Error(
          `${error.message} What steps 1-${trainer.step} trained is saved in ${out}.`,
        );
      });
      process.stdout.write(`${JSON.stringify(metrics)}\n`);
    }
    if (out) await saveRun(out, policy, config, source);
    process.stdout.write(
      `${JSON.stringify({ summary: { ...summarizeRun(trainer.history), evals: trainer.evals, out: out ?? null } })}\n`,
    );
    trainer.dispose();
  } finally {
    policy.dispose();
    await executor.close();
  }
}
