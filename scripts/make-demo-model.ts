// npm run make-demo-model [-- --seed 1 --steps 3000 ...]: builds public/models/demo/ (see
// scripts/demo/pipeline.ts). The committed model's exact commands are in its model card's Reproduce
// section (the second relies on the default --corpus 9000, so change a default only together with
// that card).
import { parseArgs } from 'node:util';
import { DEMO_SHAPE } from './demo/model_config.ts';
import { DEFAULT_NAME_SHARES } from './demo/skill.ts';
import { makeDemoModel, type DemoRecipe } from './demo/pipeline.ts';
import { DEFAULT_SEARCH_MIX } from './demo/transcripts_search.ts';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'public/models/demo' },
    seed: { type: 'string', default: '1' },
    corpus: { type: 'string', default: '9000' },
    'wrong-share': { type: 'string', default: '0.35' },
    'guess-share': { type: 'string', default: '0' },
    // Share of the transcripts under the default prompt that are skill instances (skill.ts).
    'skill-share': { type: 'string', default: '0' },
    // Shares of the skill part's function and parameter names that are made up (syllables that
    // mean nothing, so only copying from the prompt writes them): function,param; a third share,
    // function,param,words, builds that share of the made-up names from English words instead; a
    // fourth, function,param,words,long, builds that share of the syllable ones long (skill.ts).
    'made-up-names': {
      type: 'string',
      default: `${DEFAULT_NAME_SHARES.function},${DEFAULT_NAME_SHARES.param}`,
    },
    // Share of skill instances whose quoted arguments' words are made up (skill.ts's madeUpArgs).
    'made-up-values': { type: 'string', default: '0' },
    // Loss weight of learned tokens that copy from the prompt or an observation (tokenizer_files.ts).
    'copy-weight': { type: 'string', default: '1' },
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
    // hidden,layers,heads,mlp of a model trained from scratch (the committed demo's by default).
    shape: { type: 'string' },
    // With --resume: grow the resumed model into --shape, computing the same function (grow.ts).
    grow: { type: 'boolean', default: false },
    warmup: { type: 'string' },
    // The corpus's search part (scripts/demo/transcripts_search.ts): its share of the corpus; of
    // its search-task transcripts, the shares that search first and that guess a function name
    // (the rest answer at once), and of the guesses the share that then search and fix; the share
    // of the part that is ordinary tasks under the search prompt; the band of the search-first
    // share a checkpoint should land in.
    'search-share': { type: 'string', default: '0' },
    'search-first': { type: 'string', default: String(DEFAULT_SEARCH_MIX.searchFirst) },
    'search-guess': { type: 'string', default: String(DEFAULT_SEARCH_MIX.guessName) },
    'search-fix': { type: 'string', default: String(DEFAULT_SEARCH_MIX.guessFix) },
    'search-plain': { type: 'string', default: '0.15' },
    'search-band': { type: 'string', default: '0.1,0.3' },
    // The train split's pass@1 band a checkpoint should land in: the latest checkpoint inside it is
    // kept, and a run stops once pass@1 is 0.1 past its top. A stage that later runs resume from
    // wants the newest checkpoint: 0,1.
    'pass-band': { type: 'string', default: '0.15,0.6' },
  },
});

const number = (name: keyof typeof values): number => {
  const value = Number(values[name]);
  if (!Number.isFinite(value))
    throw new Error(`--${name} must be a number, got ${JSON.stringify(values[name])}`);
  return value;
};
const backend = values.backend;
if (values.grow && !values.resume)
  throw new Error('--grow grows the model --resume names into --shape: add --resume DIR');
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
const searchShare = number('search-share');
const share = (name: keyof typeof values): number => {
  const value = number(name);
  if (value < 0 || value > 1) throw new Error(`--${name} must be between 0 and 1, got ${value}`);
  return value;
};
const positive = (name: keyof typeof values): number => {
  const value = number(name);
  if (!(value > 0)) throw new Error(`--${name} must be above 0, got ${value}`);
  return value;
};
/** A flag's comma-separated numbers; an empty part is NaN (not 0), so the checks below reject it. */
const numbers = (name: 'search-band' | 'pass-band' | 'made-up-names') =>
  values[name]!.split(',').map((x) => (x.trim() === '' ? Number.NaN : Number(x)));
/** A band of two values in 0..1, low then high ("0.1,0.3"), or a clear error naming the flag. */
const band = (name: 'search-band' | 'pass-band', what: string, example: string) => {
  const parts = numbers(name);
  if (parts.length !== 2 || !parts.every((x) => x >= 0 && x <= 1) || parts[0]! > parts[1]!)
    throw new Error(
      `--${name} must be two ${what}, low then high, separated by a comma, e.g. ${example}, got ${JSON.stringify(values[name])}`,
    );
  return parts as [number, number];
};
const searchBand = band('search-band', 'shares', '0.1,0.3');
const passBand = band('pass-band', 'pass@1 values', '0.15,0.6 or 0,1');
const madeUp = numbers('made-up-names');
if (![2, 3, 4].includes(madeUp.length) || !madeUp.every((x) => x >= 0 && x <= 1))
  throw new Error(
    `--made-up-names must be two to four shares (functions, parameters, of those the share made of words, and of the rest the share made long) separated by commas, e.g. 0.3,0.2 or 0.8,0.5,0.5 or 0.8,0.5,0.3,0.5, got ${JSON.stringify(values['made-up-names'])}`,
  );
const wordShare = madeUp[2] ?? 0;
const longShare = madeUp[3] ?? 0;
const valueShare = share('made-up-values');
if (share('search-first') + share('search-guess') > 1)
  throw new Error('--search-first plus --search-guess must be at most 1 (the rest answer at once)');
const recipe: DemoRecipe = {
  out: values.out!,
  seed: number('seed'),
  corpusSize: number('corpus'),
  wrongShare: number('wrong-share'),
  genericShare: 0.3,
  guessShare: number('guess-share'),
  ...(share('skill-share') > 0 ? { skillShare: share('skill-share') } : {}),
  ...(madeUp[0] !== DEFAULT_NAME_SHARES.function ||
  madeUp[1] !== DEFAULT_NAME_SHARES.param ||
  wordShare > 0 ||
  longShare > 0 ||
  valueShare > 0
    ? {
        madeUpNames: {
          function: madeUp[0]!,
          param: madeUp[1]!,
          ...(wordShare > 0 ? { words: wordShare } : {}),
          ...(longShare > 0 ? { long: longShare } : {}),
          ...(valueShare > 0 ? { values: valueShare } : {}),
        },
      }
    : {}),
  ...(number('copy-weight') !== 1 ? { copyWeight: positive('copy-weight') } : {}),
  shape: shapeOf(values.shape),
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
  band: passBand,
  // Scores (and the checkpoint choice) at --eval-temperature, plus these others for the card.
  sweepTemperatures: [1, 0.7, 0.5].filter((t) => t !== evalTemperature),
  ...(evalTemperature !== 1 ? { evalOverrides: { temperature: evalTemperature } } : {}),
  backend,
  workers,
  ...(values['stop-at'] ? { stopAt: number('stop-at') } : {}),
  ...(values.resume ? { resume: values.resume } : {}),
  ...(values.grow ? { grow: true } : {}),
  command: reproduceCommand(process.argv.slice(2)),
  ...(share('search-share') > 0
    ? {
        search: {
          share: searchShare,
          mix: {
            searchFirst: share('search-first'),
            guessName: share('search-guess'),
            guessFix: share('search-fix'),
          },
          plainShare: share('search-plain'),
          band: searchBand,
        },
      }
    : {}),
};
await makeDemoModel(recipe);

/** --shape hidden,layers,heads,mlp over the committed shape. */
function shapeOf(text: string | undefined): typeof DEMO_SHAPE {
  if (text === undefined) return DEMO_SHAPE;
  const parts = text.split(',').map(Number);
  if (parts.length !== 4 || !parts.every((x) => Number.isInteger(x) && x > 0))
    throw new Error(
      `--shape must be hidden,layers,heads,mlp (whole numbers), got ${JSON.stringify(text)}`,
    );
  const [hiddenSize, layers, heads, intermediateSize] = parts as [number, number, number, number];
  if (hiddenSize % heads !== 0)
    throw new Error(`--shape: hidden ${hiddenSize} is not a multiple of heads ${heads}`);
  return { ...DEMO_SHAPE, hiddenSize, layers, heads, intermediateSize };
}

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
