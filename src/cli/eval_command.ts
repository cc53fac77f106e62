// `eval --model DIR|demo [--adapter DIR] --tasks SET [--samples K] [--seed S] [--tools LIST]`:
// pass@1 (mean over all samples) and pass@k (share of tasks with at least one passing sample of K),
// overall and per task. No update happens; sampling uses the config's default temperature and
// limits. `--tools execute_code,search,finish` turns search on (its system prompt and parser);
// default: the tools the task set is made for (search on for `search` and `search-eval`, with a
// notice on stderr), else the config's.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { importPeftAdapter } from '../model/peft.ts';
import { defaultConfig } from '../run/config.ts';
import { parseRunConfig } from '../run/config_validation.ts';
import { createTrainer, loadPolicy } from '../service/session.ts';
import { TASK_SETS, tasksFor, type TaskSetName } from '../tasks/registry.ts';
import { numberOption, requireOption, type CliArgs } from './args.ts';
import { useNodeBackend } from './backend.ts';
import { nodeModelSource, openConfigSandbox } from './node_run.ts';

/** Prints {"pass@1": x, "pass@k": y, "k": K, "tasks": {id: {"pass@1", "pass@k"}}}. */
export async function evalCommand(args: CliArgs): Promise<void> {
  const tasksName = requireOption(args, 'tasks');
  const samples = numberOption(args, 'samples', 1);
  const seed = numberOption(args, 'seed', 0);
  if (!Number.isInteger(samples) || samples < 1)
    throw new Error(`--samples must be a positive integer, got ${samples}`);
  const tasks = tasksFor(tasksName);
  await useNodeBackend(args);
  const adapterDir = args.options.get('adapter');
  let config = { ...defaultConfig(), model: requireOption(args, 'model'), seed };
  const setTools = TASK_SETS.get(tasksName as TaskSetName)?.tools;
  const tools = args.options.get('tools') ?? setTools?.join(',');
  if (tools !== undefined && args.options.get('tools') === undefined)
    process.stderr.write(
      `eval: the ${tasksName} tasks are made for the tools ${tools}; running with them (--tools chooses others)\n`,
    );
  if (tools !== undefined)
    config = parseRunConfig({ ...config, tools: tools.split(',').map((name) => name.trim()) });
  let adapter: Record<string, Uint8Array> | null = null;
  if (adapterDir) {
    adapter = {
      'adapter_config.json': new Uint8Array(
        await readFile(join(adapterDir, 'adapter_config.json')),
      ),
      'adapter_model.safetensors': new Uint8Array(
        await readFile(join(adapterDir, 'adapter_model.safetensors')),
      ),
    };
    const peft = JSON.parse(new TextDecoder().decode(adapter['adapter_config.json'])) as {
      r: number;
      lora_alpha: number;
      target_modules: string[];
    };
    config = parseRunConfig({
      ...config,
      loraRank: peft.r,
      loraAlpha: peft.lora_alpha,
      loraTargets: peft.target_modules,
    });
  }
  const { source, origin } = nodeModelSource(config.model);
  const executor = await openConfigSandbox(config);
  const policy = await loadPolicy(source, { ...config, klCoef: 0 }, origin);
  try {
    if (adapter) importPeftAdapter(policy.model, adapter);
    const trainer = createTrainer(policy, executor, { ...config, tasks: 'seed' });
    const report = await trainer.evaluate(tasks, samples, seed);
    const perTask = Object.fromEntries(
      Object.entries(report.perTask).map(([id, rate]) => [
        id,
        { 'pass@1': rate, 'pass@k': rate > 0 ? 1 : 0 },
      ]),
    );
    const passAtK = Object.values(perTask).filter((t) => t['pass@k'] === 1).length / tasks.length;
    process.stdout.write(
      `${JSON.stringify({ 'pass@1': report.passAt1, 'pass@k': passAtK, k: samples, tasks: perTask })}\n`,
    );
    trainer.dispose();
  } finally {
    policy.dispose();
    await executor.close();
  }
}
