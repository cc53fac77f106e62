// npm run make-demo-model [-- --seed 1 --steps 3000 ...]: builds public/models/demo/ (see
// scripts/demo/pipeline.ts). The committed model's exact commands are in its model card's Reproduce
// section (the second relies on the default --corpus 9000, so change a default only together with
// that card).
import { parseArgs } from 'node:util';
import { DEMO_SHAPE } from './demo/model_config.ts';
import { makeDemoModel, type DemoRecipe } from './demo/pipeline.ts';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'public/models/demo' },
    seed: { type: 'string', default: '1' },
    corpus: { type: 'string', default: '9000' },
    'wrong-share': { type: 'string', default: '0.35' },
    'guess-share': { type: 'string', default: '0' },
    'eval-temperature': { type: 'string', default: '1' },
    'token-weighting': { type: 'string', default: 'batch' },
    steps: { type: 'string', default: '3000' },
    batch: { type: 'string', default: '8' },
    lr: { type: 'string', default: '3e-3' },
    'eval-every': { type: 'string', default: '500' },
    'eval-samples': { type: 'string', default: '2' },
    'final-samples': { type: 'string', default: '4' },
    backend: { type: 'string', default: 'wasm' },
    workers: { type: 'string', default: '2' },
    'stop-at': { type: 'string' },
    resume: { type: 'string' },
    warmup: { type: 'string' },
  },
});

const number = (name: keyof typeof values): number => {
  const value = Number(values[name]);
  if (!Number.isFinite(value))
    throw new Error(`--${name} must be a number, got ${JSON.stringify(values[name])}`);
  return value;
};
const backend = values.backend;
if (backend !== 'wasm' && backend !== 'cpu')
  throw new Error(`--backend must be wasm or cpu, got ${JSON.stringify(backend)}`);
const steps = number('steps');
const workers = number('workers');
if (!Number.isInteger(workers) || workers < 1)
  throw new Error(
    `--workers must be a whole number of threads, 1 or more, got ${JSON.stringify(values.workers)}`,
  );
const evalTemperature = number('eval-temperature');
const tokenWeighting = values['token-weighting'];
if (tokenWeighting !== 'batch' && tokenWeighting !== 'corpus')
  throw new Error(
    `--token-weighting must be batch or corpus, got ${JSON.stringify(tokenWeighting)}`,
  );
const recipe: DemoRecipe = {
  out: values.out!,
  seed: number('seed'),
  corpusSize: number('corpus'),
  wrongShare: number('wrong-share'),
  genericShare: 0.3,
  guessShare: number('guess-share'),
  shape: DEMO_SHAPE,
  schedule: {
    steps,
    batchSize: number('batch'),
    peakLearningRate: number('lr'),
    finalLearningRate: number('lr') / 10,
    warmupSteps: values.warmup ? number('warmup') : Math.min(30, Math.ceil(steps / 10)),
    gradClip: 1,
    seed: number('seed'),
    tokenWeighting,
  },
  evalEvery: number('eval-every'),
  evalSamples: number('eval-samples'),
  finalSamples: number('final-samples'),
  band: [0.15, 0.6],
  // Scores (and the checkpoint choice) at --eval-temperature, plus these others for the card.
  sweepTemperatures: [1, 0.7, 0.5].filter((t) => t !== evalTemperature),
  ...(evalTemperature !== 1 ? { evalOverrides: { temperature: evalTemperature } } : {}),
  backend,
  workers,
  ...(values['stop-at'] ? { stopAt: number('stop-at') } : {}),
  ...(values.resume ? { resume: values.resume } : {}),
  command: reproduceCommand(process.argv.slice(2)),
};
await makeDemoModel(recipe);

/**
 * The card's command: these arguments without --out (where the files go does not change them, and
 * a card copied into public/models/demo/ should not point at a scratch folder).
 */
function reproduceCommand(args: string[]): string {
  const kept = args.filter(
    (arg, i) => !(arg === '--out' || arg.startsWith('--out=') || args[i - 1] === '--out'),
  );
  return kept.length > 0
    ? `npm run make-demo-model -- ${kept.join(' ')}`
    : 'npm run make-demo-model';
}
