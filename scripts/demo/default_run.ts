// Measures the default run on the demo model, as README and the model card report it:
//   npx tsx scripts/demo/default_run.ts [--seeds 1,2,3] [--samples 2]
// (--set '{"lr": 1e-3}' overrides preset fields, to try other settings; --steps N shortens the run;
// --card public/models/demo/README.md writes the measured table into the model card's "Under GRPO";
// with --from a.jsonl,b.jsonl it writes the rows earlier runs printed, e.g. seeds run side by
// side.) For each seed: pass@1 before (train split = seed + builtin train; eval split =
// builtin-eval; at the run's temperature, and greedy on the train split), the default run's steps,
// pass@1 after, and minutes. One JSON line per seed, then a summary.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fusedMultiplyAddActive } from '../../src/kernels/matmul_kernels.ts';
import { openNodeSandbox, nodeModelSource } from '../../src/cli/node_run.ts';
import { selectBackend } from '../../src/kernels/backend.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { createTrainer, loadPolicy } from '../../src/service/session.ts';
import { tasksFor } from '../../src/tasks/registry.ts';
import { underGrpoTable, withUnderGrpo, type DefaultRunRow } from './model_card.ts';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '1,2,3' },
    samples: { type: 'string', default: '2' },
    steps: { type: 'string' },
    set: { type: 'string', default: '{}' },
    card: { type: 'string' },
    from: { type: 'string' },
  },
});
const overrides = JSON.parse(values.set!) as Record<string, unknown>;
const seeds = values.seeds!.split(',').map(Number);
if (!seeds.every(Number.isInteger))
  throw new Error(
    `--seeds must be whole numbers separated by commas, got ${JSON.stringify(values.seeds)}`,
  );
const samples = Number(values.samples);
if (!Number.isInteger(samples) || samples < 1)
  throw new Error(`--samples must be a whole number >= 1, got ${JSON.stringify(values.samples)}`);
await selectBackend({ force: 'wasm', threads: 'auto' }); // results do not depend on the thread count
const trainTasks = tasksFor('seed+builtin');
const evalTasks = tasksFor('builtin-eval');
const rows: (DefaultRunRow & {
  gain_train: number;
  overrides: unknown;
  steps: number;
  samples: number;
  rewards: number[];
})[] = [];
if (values.card && (values.set !== '{}' || values.steps))
  throw new Error('--card records the default run as it ships: leave out --set and --steps.');
if (values.from) {
  for (const file of values.from.split(',')) {
    for (const line of readFileSync(file, 'utf8').split('\n'))
      if (line.startsWith('{"seed"')) rows.push(JSON.parse(line) as (typeof rows)[number]);
  }
  const shipped = presetConfig('default').steps;
  if (rows.some((r) => JSON.stringify(r.overrides) !== '{}' || r.steps !== shipped))
    throw new Error(
      '--from: those runs changed the default run (--set or --steps); measure it as it ships.',
    );
  if (rows.some((r) => r.samples !== samples))
    throw new Error(
      `--from: those runs used other --samples than ${samples}; pass the same --samples.`,
    );
  if (!values.card) throw new Error('--from needs --card (it only writes the card).');
}
for (const seed of values.from ? [] : seeds) {
  const config = presetConfig('default', {
    ...overrides,
    seed,
    evalEvery: 0,
    ...(values.steps ? { steps: Number(values.steps) } : {}),
  });
  const { source, origin } = nodeModelSource(config.model);
  const executor = await openNodeSandbox({
    size: 2,
    timeoutMs: config.timeoutMs,
    maxOutputChars: config.maxOutputChars,
  });
  const policy = await loadPolicy(source, config, origin);
  const trainer = createTrainer(policy, executor, config);
  const evaluate = async () => ({
    train: (await trainer.evaluate(trainTasks, samples, 1000 + seed)).passAt1,
    eval: (await trainer.evaluate(evalTasks, samples, 2000 + seed)).passAt1,
    // greedy decoding: one sample per task says all, and no sampling noise
    greedyTrain: (await trainer.evaluate(trainTasks, 1, 3000 + seed, 0)).passAt1,
  });
  const before = await evaluate();
  const started = performance.now();
  const rewards = [];
  const ranCode = [];
  for (let step = 0; step < config.steps; step++) {
    const metrics = await trainer.runStep();
    rewards.push(Number(metrics.reward_mean.toFixed(3)));
    ranCode.push(Number(metrics.ran_code_fraction.toFixed(3)));
    process.stderr.write(
      `seed ${seed} step ${metrics.step}: reward ${metrics.reward_mean.toFixed(3)} pass ${metrics.pass_rate.toFixed(3)} ran code ${metrics.ran_code_fraction.toFixed(2)} kl ${metrics.kl?.toFixed(4)}; seconds: generate ${metrics.seconds_generate.toFixed(2)}, sandbox ${metrics.seconds_sandbox.toFixed(2)}, update ${metrics.seconds_train.toFixed(2)}\n`,
    );
  }
  const minutes = (performance.now() - started) / 60_000;
  const after = await evaluate();
  const row = {
    seed,
    overrides,
    steps: config.steps,
    samples,
    before,
    after,
    gain_train: after.train - before.train,
    minutes: Number(minutes.toFixed(2)),
    rewards,
    ranCode,
  };
  rows.push(row);
  process.stdout.write(`${JSON.stringify(row)}\n`);
  trainer.dispose();
  policy.dispose();
  await executor.close();
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
if (values.card) {
  writeFileSync(
    values.card,
    withUnderGrpo(
      readFileSync(values.card, 'utf8'),
      underGrpoTable(rows, samples, fusedMultiplyAddActive()),
    ),
  );
  process.stderr.write(`wrote the table into ${values.card}\n`);
}
process.stdout.write(
  `${JSON.stringify({ summary: { seeds, samples, mean_gain_train: mean(rows.map((r) => r.gain_train)), min_gain_train: Math.min(...rows.map((r) => r.gain_train)), mean_minutes: mean(rows.map((r) => r.minutes)) } })}\n`,
);
process.exit(0);
