// `train --config FILE | --link URL [--out DIR]`: one JSON line of metrics per step, then
// {"summary": …}. `--out` saves the adapter (PEFT) or the full weights, and the run's config.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { exportPeftAdapter, peftBaseModelName } from '../model/peft.ts';
import { hfWeights } from '../model/hf_weights.ts';
import { writeSafetensors } from '../model_files/safetensors_write.ts';
import type { ModelSource } from '../model_files/source.ts';
import { parseRunConfig } from '../run/config_validation.ts';
import type { RunConfig } from '../run/config.ts';
import { decodeLink, encodeLink } from '../run/link.ts';
import { summarizeRun } from '../rl/metrics.ts';
import { OutOfMemoryError } from '../training/out_of_memory.ts';
import { createTrainer, loadPolicy, type LoadedPolicy } from '../service/session.ts';
import type { CliArgs } from './args.ts';
import { useNodeBackend } from './backend.ts';
import { checkTrainMemory } from './memory_check.ts';
import { DEMO_MODEL_DIR, nodeModelSource, openConfigSandbox } from './node_run.ts';
import { threadRolloutSource } from './rollout_worker_thread.ts';
import { OverlappedTrainer } from '../training/overlapped_trainer.ts';
import type { Trainer } from '../training/trainer.ts';
import type { ModelInfo } from '../service/trainer_api.ts';

/**
 * The run config from --config FILE (JSON, partial: missing fields take defaults) or --link URL (the
 * page's default run plus the link's fields, as the page reads it). A link's notices (a key given
 * twice, say) and page-only options go to `stderr` and the run goes on; its errors refuse it.
 */
export async function configFromArgs(
  args: CliArgs,
  stderr: (line: string) => void = (line) => process.stderr.write(line),
): Promise<RunConfig> {
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
  const { config, fallbacks, notices, autostart, hide, optionErrors } = await decodeLink(link!);
  for (const notice of notices) stderr(`notice: link ${notice.field}: ${notice.reason}\n`);
  // a mistake in a lesson option does not change the run, and train ignores those options
  for (const error of optionErrors) stderr(`notice: link ${error.field}: ${error.reason}\n`);
  if (autostart || hide.length > 0 || optionErrors.length > 0)
    stderr('notice: link autostart and hide are page options (lessons); train ignores them\n');
  if (fallbacks.length > 0)
    throw new Error(
      `the link has problems, so this run is not what it asks for:\n${fallbacks.map((f) => `- ${f.field}: ${f.reason}`).join('\n')}\nFix: correct or remove those keys (Copy link on the page writes a link this version reads).`,
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
      ? await exportPeftAdapter(
          policy.model,
          peftBaseModelName(policy.info.name, policy.info.source),
        )
      : {
          'model.safetensors': writeSafetensors(hfWeights(policy.model.params), 'F32', {
            format: 'pt',
          }),
        };
  for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, name), bytes);
  await writeFile(join(dir, 'run_config.json'), `${JSON.stringify(config, null, 2)}\n`);
  await writeFile(join(dir, 'run_link.txt'), `${await encodeLink(config)}\n`);
}

/** The model's folder for a rollout worker thread ('demo' and local folders), or null (hub). */
function modelFolder(model: string, origin: ModelInfo['source']): string | null {
  if (origin === 'demo') return DEMO_MODEL_DIR;
  return origin === 'path' ? resolve(model) : null;
}

/** An overlapped run's episode accounting: every sampled episode is trained on or dropped. */
function asyncSummary(trainer: Trainer): Record<string, unknown> {
  if (!(trainer instanceof OverlappedTrainer)) return {};
  return { async: trainer.accounting() };
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
  const executor = await openConfigSandbox(config);
  const policy = await loadPolicy(source, config, origin);
  // `async`: a rollout worker thread with its own copy of the policy, sharing the sandbox pool
  const rollouts = config.async
    ? threadRolloutSource({ config, modelDir: modelFolder(config.model, origin), executor })
    : null;
  try {
    const trainer = createTrainer(policy, executor, config, rollouts?.source);
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
      `${JSON.stringify({ summary: { ...summarizeRun(trainer.history), ...asyncSummary(trainer), evals: trainer.evals, out: out ?? null } })}\n`,
    );
    trainer.dispose();
  } finally {
    await rollouts?.source.close();
    policy.dispose();
    await executor.close();
  }
}
