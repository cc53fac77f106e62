// `eval --model DIR|demo [--adapter DIR] --tasks SET|FILE.json [--samples K] [--seed S] [--tools LIST]`:
// pass@1 (mean over all samples) and pass@k (share of tasks with at least one passing sample of K),
// overall and per task. FILE.json is a list of custom tasks (the page's format, checks and
// messages, tests compiled in the sandbox before the model loads), so a teacher can score a model
// on problems of their own. No update happens; sampling uses the config's default temperature and
// limits. `--tools execute_code,search,finish` turns search on (its system prompt and parser);
// default: the tools the task set is made for (search on for `search` and `search-eval`, with a
// notice on stderr), else the config's.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { importPeftAdapter } from '../model/peft.ts';
import { defaultConfig } from '../run/config.ts';
import { parseRunConfig } from '../run/config_validation.ts';
import { createTrainer, loadPolicy } from '../service/session.ts';
import type { CodeExecutor } from '../env/types.ts';
import { customTasksFromJson, type CustomTaskInput } from '../tasks/custom.ts';
import { TASK_SETS, tasksFor, type TaskSetName } from '../tasks/registry.ts';
import type { Task } from '../tasks/task.ts';
import { checkTestsSyntax, testsSyntaxMessage } from '../tasks/tests_syntax.ts';
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
  const { tasks, testSources } = await evalTasks(tasksName);
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
  try {
    await refuseBrokenTests(executor, testSources, tasksName);
  } catch (error) {
    await executor.close();
    throw error;
  }
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

/**
 * A task set by name, or the custom tasks of a `.json` file with each task's test source (null
 * where it has none) for the compile check.
 */
async function evalTasks(
  tasks: string,
): Promise<{ tasks: Task[]; testSources: (string | null)[] }> {
  if (!tasks.endsWith('.json')) return { tasks: tasksFor(tasks), testSources: [] };
  let text: string;
  try {
    text = await readFile(tasks, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Error(`cannot read --tasks ${tasks}: ${reason}`);
  }
  const read = customTasksFromJson(text, tasks);
  return {
    tasks: read,
    testSources: (JSON.parse(text) as CustomTaskInput[]).map((input) =>
      typeof input.tests === 'string' && input.tests.trim() !== '' ? input.tests : null,
    ),
  };
}

/** Throws with the page's message for every custom task whose tests do not compile. */
async function refuseBrokenTests(
  executor: CodeExecutor,
  sources: (string | null)[],
  file: string,
): Promise<void> {
  const indexed = sources.flatMap((source, index) => (source ? [{ source, index }] : []));
  if (indexed.length === 0) return;
  const verdicts = await checkTestsSyntax(
    executor,
    indexed.map((t) => t.source),
  );
  const problems = verdicts.flatMap((verdict, k) =>
    verdict ? [testsSyntaxMessage(indexed[k]!.index, verdict)] : [],
  );
  if (problems.length > 0) throw new Error(`${file}: ${problems.join('\n')}`);
}
