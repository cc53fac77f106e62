// Measures the default run on the demo model, as README and the model card report it:
//   npx tsx scripts/demo/default_run.ts [--seeds 1,2,3] [--samples 2]
// (--set '{"lr": 1e-3}' overrides preset fields, to try other settings; --steps N shortens the run.)
// For each seed: pass@1 before (train split = seed + builtin train; eval split = builtin-eval),
// the default run's steps, pass@1 after, and minutes. One JSON line per seed, then a summary.
import { parseArgs } from 'node:util';
import { openNodeSandbox, nodeModelSource } from '../../src/cli/node_run.ts';
import { selectBackend } from '../../src/model/backend.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { createTrainer, loadPolicy } from '../../src/rl/session.ts';
import { tasksFor } from '../../src/tasks/registry.ts';

const { values } = parseArgs({ options: { seeds: { type: 'string', default: '1,2,3' }, samples: { type: 'string', default: '2' }, steps: { type: 'string' }, set: { type: 'string', default: '{}' } } });
const overrides = JSON.parse(values.set!) as Record<string, unknown>;
const seeds = values.seeds!.split(',').map(Number);
const samples = Number(values.samples);
await selectBackend({ force: 'wasm' });
const trainTasks = tasksFor('seed+builtin');
const evalTasks = tasksFor('builtin-eval');
const rows = [];
for (const seed of seeds) {
  const config = presetConfig('default', { ...overrides, seed, evalEvery: 0, ...(values.steps ? { steps: Number(values.steps) } : {}) });
  const { source, origin } = nodeModelSource(config.model);
  const executor = await openNodeSandbox({ size: 2, timeoutMs: config.timeoutMs, maxOutputChars: config.maxOutputChars });
  const policy = await loadPolicy(source, config, origin);
  const trainer = createTrainer(policy, executor, config);
  const evaluate = async () => ({
    train: (await trainer.evaluate(trainTasks, samples, 1000 + seed)).passAt1,
    eval: (await trainer.evaluate(evalTasks, samples, 2000 + seed)).passAt1,
  });
  const before = await evaluate();
  const started = performance.now();
  const rewards = [];
  for (let step = 0; step < config.steps; step++) {
    const metrics = await trainer.runStep();
    rewards.push(Number(metrics.reward_mean.toFixed(3)));
    process.stderr.write(`seed ${seed} step ${metrics.step}: reward ${metrics.reward_mean.toFixed(3)} pass ${metrics.pass_rate.toFixed(3)} ran code ${metrics.ran_code_fraction.toFixed(2)} kl ${metrics.kl?.toFixed(4)}\n`);
  }
  const minutes = (performance.now() - started) / 60_000;
  const after = await evaluate();
  const row = { seed, overrides, before, after, gain_train: after.train - before.train, minutes: Number(minutes.toFixed(2)), rewards };
  rows.push(row);
  process.stdout.write(`${JSON.stringify(row)}\n`);
  trainer.dispose();
  policy.dispose();
  await executor.close();
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
process.stdout.write(`${JSON.stringify({ summary: { seeds, samples, mean_gain_train: mean(rows.map((r) => r.gain_train)), min_gain_train: Math.min(...rows.map((r) => r.gain_train)), mean_minutes: mean(rows.map((r) => r.minutes)) } })}\n`);
process.exit(0);
