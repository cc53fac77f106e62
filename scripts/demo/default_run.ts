// Measures the default run on the demo model, as README and the model card report it:
//   npx tsx scripts/demo/default_run.ts [--seeds 1,2,3] [--samples 2]
// (--set '{"lr": 1e-3}' overrides preset fields, to try other settings; --steps N shortens the run;
// --card public/models/demo/README.md writes the measured table into the model card's "Under GRPO";
// with --from a.jsonl,b.jsonl it writes the rows earlier runs printed, e.g. seeds run side by
// side.) For each seed: pass@1 before (train split = seed + builtin train; eval split =
// builtin-eval; unseen skill tasks = FRESH_TASKS fresh skill instances, skill_tasks.ts; at the
// run's temperature, and greedy on the train split), the default run's steps,
// pass@1 after, minutes, and every program the judge flagged for tampering (`flagged`: task,
// reasons, last message). One JSON line per seed, then a summary.
// --preset search measures the search preset instead (the default run with the search tool on,
// on the `search` tasks; its eval split is search-eval): pass@1 on both splits and the share of
// episodes that search before they run code, before and after, and each step's search_fraction;
// --card writes them into the model card's "Search" section. --model DIR measures another folder
// than public/models/demo (a candidate; pass --card DIR/README.md to write into its card).
// --async trains overlapped (a rollout worker thread, as `cli train` with async on); each row then
// also has `secondsAt` (wall-clock seconds since training began, per step) for the reward against
// wall-clock time, and the episodes' accounting.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fusedMultiplyAddActive } from '../../src/kernels/matmul/kernels.ts';
import { DEMO_MODEL_DIR, openConfigSandbox, nodeModelSource } from '../../src/cli/node_run.ts';
import { threadRolloutSource } from '../../src/cli/rollout_worker_thread.ts';
import { OverlappedTrainer } from '../../src/training/overlapped_trainer.ts';
import { selectBackend } from '../../src/kernels/backend.ts';
import { PRESETS, presetConfig, type PresetName } from '../../src/run/presets.ts';
import { resolveRun } from '../../src/run/resolve.ts';
import { createTrainer, loadPolicy } from '../../src/service/session.ts';
import { evaluate as rolloutEval, runEvalSettings } from './evaluate.ts';
import { FRESH_TASKS, underGrpoTable, withUnderGrpo, type DefaultRunRow } from './model_card.ts';
import { skillTasks } from './skill_tasks.ts';
import { searchGrpoTable, withSearchGrpo, type SearchRunRow } from './model_card_search.ts';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '1,2,3' },
    samples: { type: 'string', default: '2' },
    steps: { type: 'string' },
    set: { type: 'string', default: '{}' },
    card: { type: 'string' },
    from: { type: 'string' },
    preset: { type: 'string', default: 'default' },
    // Another model folder than the shipped demo model (a candidate the recipe wrote elsewhere).
    model: { type: 'string' },
    async: { type: 'boolean', default: false },
  },
});
const preset = values.preset as PresetName;
if (preset !== 'default' && preset !== 'search')
  throw new Error(
    `--preset must be default or search, got ${JSON.stringify(values.preset)} (known presets: ${[...PRESETS.keys()].join(', ')})`,
  );
const searching = preset === 'search';
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
const { tasks: trainTasks, evalTasks } = resolveRun(presetConfig(preset)).trainer;
type Row = (DefaultRunRow | SearchRunRow) & {
  preset?: PresetName;
  gain_train: number;
  overrides: unknown;
  steps: number;
  samples: number;
  rewards: number[];
  /** Programs the judge flagged (absent in rows earlier runs printed). */
  flagged?: string[];
};
const rows: Row[] = [];
if (values.card && (values.set !== '{}' || values.steps || values.async))
  throw new Error(
    '--card records the default run as it ships: leave out --set, --steps and --async.',
  );
if (values.from) {
  for (const file of values.from.split(',')) {
    for (const line of readFileSync(file, 'utf8').split('\n'))
      if (line.startsWith('{"seed"')) rows.push(JSON.parse(line) as Row);
  }
  // Rows from before presets were recorded are the default run's.
  if (rows.some((r) => (r.preset ?? 'default') !== preset))
    throw new Error(`--from: those runs measured another preset than ${preset}; pass --preset.`);
  const shipped = presetConfig(preset).steps;
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
  const config = presetConfig(preset, {
    ...overrides,
    ...(values.model ? { model: values.model } : {}),
    seed,
    evalEvery: 0,
    ...(values.steps ? { steps: Number(values.steps) } : {}),
    ...(values.async ? { async: true } : {}),
  });
  const { source, origin } = nodeModelSource(config.model);
  const executor = await openConfigSandbox(config);
  const policy = await loadPolicy(source, config, origin);
  const rollouts = config.async
    ? threadRolloutSource({ config, modelDir: values.model ?? DEMO_MODEL_DIR, executor })
    : null;
  const trainer = createTrainer(policy, executor, config, rollouts?.source);
  if (rollouts) await rollouts.workers.start(); // the worker's start is not timed
  // unseen tasks of the kinds the skill corpus teaches: a model scores on them only by reading
  // the prompt (the step before the held-out tasks, which also combine operations no skill shows)
  const freshTasks = searching ? [] : await skillTasks(executor, FRESH_TASKS);
  const evaluateDefault = async () => ({
    train: (await trainer.evaluate(trainTasks, samples, 1000 + seed)).passAt1,
    eval: (await trainer.evaluate(evalTasks, samples, 2000 + seed)).passAt1,
    // greedy decoding: one sample per task says all, and no sampling noise
    greedyTrain: (await trainer.evaluate(trainTasks, 1, 3000 + seed, 0)).passAt1,
    fresh: (await trainer.evaluate(freshTasks, samples, 4000 + seed)).passAt1,
  });
  // The search preset also needs each episode's tools, which the trainer's evaluation does not
  // return: the same rollouts (the policy's model with its adapters, the run's settings and
  // rewards), scored by scripts/demo/evaluate.ts.
  const evaluateSearch = async () => {
    const run = (tasks: typeof trainTasks, rngSeed: number) =>
      rolloutEval(
        policy.model,
        policy.tokenizer,
        tasks,
        executor,
        runEvalSettings(config, samples, rngSeed),
      );
    const train = await run(trainTasks, 1000 + seed);
    const held = await run(evalTasks, 2000 + seed);
    return {
      train: train.passAt1,
      eval: held.passAt1,
      searchedFirst: train.searchedFirst,
      evalSearchedFirst: held.searchedFirst,
    };
  };
  const evaluate = searching ? evaluateSearch : evaluateDefault;
  const before = await evaluate();
  const started = performance.now();
  const rewards = [];
  const ranCode = [];
  const searchFraction = [];
  const secondsAt = [];
  // every program the judge flagged for tampering, by trajectory (its task, reasons, last message)
  const flagged = new Map<string, string>();
  for (let step = 0; step < config.steps; step++) {
    const metrics = await trainer.runStep((report) => {
      for (const t of report.trajectories)
        if (t.tampered.length > 0)
          flagged.set(
            t.id,
            `${t.taskId}: ${t.tampered.join('; ')} | ${t.messages.at(-1)?.content.slice(-300) ?? ''}`,
          );
    });
    secondsAt.push(Number(((performance.now() - started) / 1000).toFixed(2)));
    rewards.push(Number(metrics.reward_mean.toFixed(3)));
    ranCode.push(Number(metrics.ran_code_fraction.toFixed(3)));
    searchFraction.push(Number((metrics.search_fraction ?? 0).toFixed(3)));
    process.stderr.write(
      `seed ${seed} step ${metrics.step}: reward ${metrics.reward_mean.toFixed(3)} pass ${metrics.pass_rate.toFixed(3)} ran code ${metrics.ran_code_fraction.toFixed(2)}${searching ? ` searched ${(metrics.search_fraction ?? 0).toFixed(2)}` : ''} kl ${metrics.kl?.toFixed(4)} hacks ${metrics.reward_hacks}; seconds: generate ${metrics.seconds_generate.toFixed(2)}, sandbox ${metrics.seconds_sandbox.toFixed(2)}, update ${metrics.seconds_train.toFixed(2)}\n`,
    );
  }
  const minutes = (performance.now() - started) / 60_000;
  const after = await evaluate();
  const row = {
    seed,
    ...(searching ? { preset } : {}),
    overrides,
    steps: config.steps,
    samples,
    before,
    after,
    gain_train: after.train - before.train,
    minutes: Number(minutes.toFixed(2)),
    flagged: [...flagged.values()],
    rewards,
    ranCode,
    ...(searching ? { searchFraction } : {}),
    ...(trainer instanceof OverlappedTrainer
      ? { async: true, secondsAt, accounting: trainer.accounting() }
      : { secondsAt }),
  } as Row;
  rows.push(row);
  process.stdout.write(`${JSON.stringify(row)}\n`);
  if (trainer instanceof OverlappedTrainer) await trainer.close();
  else trainer.dispose();
  policy.dispose();
  await executor.close();
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
if (values.card) {
  const card = readFileSync(values.card, 'utf8');
  writeFileSync(
    values.card,
    searching
      ? withSearchGrpo(card, searchGrpoTable(rows as SearchRunRow[], samples))
      : withUnderGrpo(
          card,
          underGrpoTable(rows as DefaultRunRow[], samples, fusedMultiplyAddActive()),
        ),
  );
  process.stderr.write(`wrote the table into ${values.card}\n`);
}
process.stdout.write(
  `${JSON.stringify({ summary: { preset, seeds, samples, mean_gain_train: mean(rows.map((r) => r.gain_train)), min_gain_train: Math.min(...rows.map((r) => r.gain_train)), mean_minutes: mean(rows.map((r) => r.minutes)), ...(searching ? { mean_gain_searched_first: mean((rows as SearchRunRow[]).map((r) => r.after.searchedFirst - r.before.searchedFirst)) } : {}) } })}\n`,
);
process.exit(0);
