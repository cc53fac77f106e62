// Named runs. `default` is what the page (and `train --link` with an empty link) starts with: the
// embedded demo model on the seed tasks and the built-in train split, tuned so 30 steps on WASM
// take a few minutes and visibly raise pass@1 (README, "The default run"; history in
// docs/performance.md). The schema's own defaults stay the reference design's values; presets only
// override fields.
//
// A preset's name is its key in run links (src/run/link.ts): `p=search`, `p=reference`; a link
// without `p` starts from `default`. A link carries only the fields that differ from its preset, so
// changing a preset's values changes what its links mean: bump LINK_VERSION then, and keep reading
// the old version with the old values (as version 1 is read with the schema's defaults).
import { defaultConfig, type RunConfig } from './config.ts';
import { parseRunConfig } from './config_validation.ts';

/** Fields a preset changes, by name. */
export type Preset = Partial<RunConfig>;

const defaultPreset = {
  model: 'demo',
  tasks: 'seed+builtin',
  promptsPerStep: 3,
  groupSize: 6,
  maxTurns: 3,
  maxNewTokens: 128,
  // The demo model solves 10% of its train tasks at temperature 1 and 11% at 0.7 (its model
  // card); its code is better at 0.7, and the answers it guesses without code are common enough
  // to learn from.
  temperature: 0.7,
  lr: 2e-3,
  klCoef: 0.02,
  loraRank: 8,
  loraAlpha: 16,
  steps: 30,
  evalEvery: 10,
  seed: 1,
  // Two passes of the update over each step's episodes (PPO epochs; the second is where the
  // clipped ratio engages): the 30 steps learn more from the same rollouts. Measured with
  // scripts/demo/default_run.ts, seeds 1-3, 8 samples: gains +0.26, +0.31, +0.33 against
  // +0.21, +0.28, +0.30 with one pass, for ~1 more minute per run (docs/performance.md).
  ppoEpochs: 2,
  // The tasks are tiny: 2 s is plenty, and a looping program should not stall the class for 10 s.
  timeoutMs: 2000,
} satisfies Preset;

const presetTable = {
  default: defaultPreset,
  // The default run with the search tool on, on tasks where looking a function up pays;
  // its held-out set is search-eval. examples/search.json is the same run for the CLI.
  search: {
    ...defaultPreset,
    tasks: 'search',
    tools: ['execute_code', 'search', 'finish'],
  },
  reference: {},
} satisfies Record<string, Preset>;

/** A preset's name. */
export type PresetName = keyof typeof presetTable;
/** Presets by name (the UI lists them). */
export const PRESETS: ReadonlyMap<PresetName, Preset> = new Map(
  Object.entries(presetTable) as [PresetName, Preset][],
);

/**
 * The full config of a preset, validated (a preset that does not validate is a bug, so this
 * throws).
 */
export function presetConfig(name: PresetName, overrides: Preset = {}): RunConfig {
  return parseRunConfig({ ...defaultConfig(), ...PRESETS.get(name), ...overrides });
}
