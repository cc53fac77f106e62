// `lesson --id ID [--seeds 1,2,3] [--steps N]`: trains a lesson's runs (src/run/lessons.ts) one
// after another at each seed, printing each run's metrics lines (with `run`, its label, and
// `seed`), then {"summary": …}: the compared figures per run and seed and how often the lesson's
// effect held. The runs are `train`'s (the same loader, trainer and sandbox), so a lesson's
// documented figures are reproducible without a browser (docs/lessons.md).
import type { StepMetrics } from '../rl/types.ts';
import type { RunConfig } from '../run/config.ts';
import { encodeLink } from '../run/link.ts';
import {
  summarizeLesson,
  type LessonRunRecord,
  type LessonSummary,
} from '../run/lesson_summary.ts';
import { type Lesson, lessonById, lessonRunConfig } from '../run/lessons.ts';
import { describeChanges } from '../run/config_words.ts';
import { createTrainer, loadPolicy } from '../service/session.ts';
import type { CliArgs } from './args.ts';
import { useNodeBackend } from './backend.ts';
import { DEMO_MODEL_DIR, nodeModelSource, openConfigSandbox } from './node_run.ts';
import { threadRolloutSource } from './rollout_worker_thread.ts';

/** Runs already trained in this process, by config: a run two lessons share trains once. */
export type RunCache = Map<string, Promise<StepMetrics[]>>;

/** Trains `config` as `train` does, calling `onStep` with each metrics line. */
export async function trainRun(
  config: RunConfig,
  onStep: (metrics: StepMetrics) => void = () => {},
): Promise<StepMetrics[]> {
  if (config.backend === 'webgpu')
    throw new Error('the webgpu backend runs in the browser only; in Node use wasm or cpu');
  const { source, origin } = nodeModelSource(config.model);
  const executor = await openConfigSandbox(config);
  const policy = await loadPolicy(source, config, origin);
  const modelDir = origin === 'demo' ? DEMO_MODEL_DIR : origin === 'path' ? config.model : null;
  const rollouts = config.async ? threadRolloutSource({ config, modelDir, executor }) : null;
  const history: StepMetrics[] = [];
  try {
    const trainer = createTrainer(policy, executor, config, rollouts?.source);
    for (let step = 0; step < config.steps; step++) {
      const metrics = await trainer.runStep();
      history.push(metrics);
      onStep(metrics);
    }
    trainer.dispose();
  } finally {
    await rollouts?.source.close();
    policy.dispose();
    await executor.close();
  }
  return history;
}

/** What runLesson takes besides the lesson. */
export interface LessonOptions {
  seeds: readonly number[];
  /** Fields set on every run (a shorter test run: `{ steps: 6 }`). */
  overrides?: Partial<RunConfig>;
  /** Runs trained before in this process (shared between lessons); default none. */
  cache?: RunCache;
  /** Each metrics line as it comes, with its run's label and seed. */
  onLine?: (line: StepMetrics & { run: string; seed: number }) => void;
}

/**
 * Trains every run of `lesson` at every seed, one after another (a run found in `cache` is not
 * trained again; its lines are replayed), and returns the records the summary reads.
 */
export async function runLesson(
  lesson: Lesson,
  options: LessonOptions,
): Promise<LessonRunRecord[]> {
  const records: LessonRunRecord[] = [];
  const cache = options.cache ?? new Map();
  for (const seed of options.seeds) {
    for (let index = 0; index < lesson.runs.length; index++) {
      const config = lessonRunConfig(lesson, index, seed, options.overrides);
      const key = JSON.stringify(config);
      const fresh = !cache.has(key);
      const label = lesson.runs[index]!.label;
      const emit = (metrics: StepMetrics) => options.onLine?.({ run: label, seed, ...metrics });
      if (fresh) cache.set(key, trainRun(config, emit));
      const metrics = await cache.get(key)!;
      if (!fresh) metrics.forEach(emit);
      records.push({ index, seed, config, metrics });
    }
  }
  return records;
}

/** `--seeds 1,2,3`: whole numbers, each at most once; default the default run's seed, 1. */
export function parseSeeds(text: string | undefined): number[] {
  if (text === undefined) return [1];
  const seeds = text.split(',').map((part) => part.trim());
  const bad = seeds.filter((s) => !/^\d+$/.test(s) || Number(s) > 2 ** 31 - 1);
  if (bad.length > 0 || seeds.length === 0)
    throw new Error(
      `--seeds must be whole numbers separated by commas, got ${JSON.stringify(text)}. Fix: e.g. --seeds 1,2,3`,
    );
  return [...new Set(seeds.map(Number))];
}

/** The summary line's body: the lesson's figures, and each run's config as words and a link. */
export async function lessonReport(
  lesson: Lesson,
  records: readonly LessonRunRecord[],
): Promise<LessonSummary & { runs: { label: string; changes: string; link: string }[] }> {
  const runs = await Promise.all(
    lesson.runs.map(async (run, index) => {
      const config =
        records.find((r) => r.index === index)?.config ?? lessonRunConfig(lesson, index);
      return {
        label: run.label,
        changes: describeChanges(config, undefined, { omit: ['seed'] }),
        link: await encodeLink(config),
      };
    }),
  );
  return { ...summarizeLesson(lesson, records), runs };
}

/** Trains a lesson's runs and prints their metrics lines, then the summary. */
export async function lessonCommand(args: CliArgs): Promise<void> {
  const id = args.options.get('id');
  if (id === undefined) throw new Error('missing --id <lesson>');
  const lesson = lessonById(id);
  const seeds = parseSeeds(args.options.get('seeds'));
  const stepsText = args.options.get('steps');
  const steps = stepsText === undefined ? undefined : Number(stepsText);
  if (steps !== undefined && !(Number.isInteger(steps) && steps >= 1))
    throw new Error(`--steps must be a whole number from 1, got ${JSON.stringify(stepsText)}`);
  await useNodeBackend({ ...args, options: new Map([['backend', 'wasm']]) });
  const records = await runLesson(lesson, {
    seeds,
    overrides: steps === undefined ? {} : { steps },
    onLine: (line) => process.stdout.write(`${JSON.stringify(line)}\n`),
  });
  process.stdout.write(`${JSON.stringify({ summary: await lessonReport(lesson, records) })}\n`);
}
