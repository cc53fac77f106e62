// The whole demo-model recipe, callable from the script and from the smoke test: corpus (real
// sandbox executions) -> BPE tokenizer -> SFT of a small Llama on wasm -> checkpoint choice by
// measured pass@1 -> BF16 export -> reload check and final scores -> model card.
import * as tf from '@tensorflow/tfjs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import '@tensorflow/tfjs-backend-wasm';
import { AdamW } from '../../src/model/adamw.ts';
import { fusedMultiplyAddActive } from '../../src/kernels/matmul_kernels.ts';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { evalTasksFor, tasksFor } from '../../src/tasks/registry.ts';
import { loadTokenizer } from '../../src/tokenizer/tokenizer.ts';
import { checkTemplates, generateCorpus, leakProblems } from './corpus.ts';
import { DEFAULT_EVAL, evaluate, type EvalReport, type EvalSettings } from './evaluate.ts';
import { exportDemo, snapshotSource, snapshotWeights, type WeightSnapshot } from './export.ts';
import { cardRecipeMinutes, modelCard, type CardFacts } from './model_card.ts';
import { configJson, demoConfig, parameterCount, type DemoShape } from './model_config.ts';
import { processExecutor } from './process_executor.ts';
import { sandboxExecutor } from './sandbox_executor.ts';
import { ParallelSft } from './parallel_sft.ts';
import { trainSft, type SftSchedule } from './sft_loop.ts';
import { TEMPLATES } from './templates.ts';
import {
  demoTokenizer,
  encodeTranscript,
  tokenizerConfig,
  trainTokenizer,
} from './tokenizer_files.ts';

/** Every knob of the recipe. */
export interface DemoRecipe {
  out: string;
  seed: number;
  corpusSize: number;
  wrongShare: number;
  genericShare: number;
  /** Share of transcripts that answer at once, wrongly, without running code (0 = none). */
  guessShare: number;
  shape: DemoShape;
  schedule: SftSchedule;
  /** Steps between checkpoint evaluations (0 = only at the end). */
  evalEvery: number;
  evalSamples: number;
  finalSamples: number;
  /** The pass@1 band a checkpoint should land in (train tasks). */
  band: [number, number];
  backend: 'wasm' | 'cpu';
  /**
   * Threads for supervised training, the main one included (data-parallel, parallel_sft.ts). The
   * weights depend on it through float rounding, so it is part of the recipe. Absent = 1.
   */
  workers?: number;
  /** Overrides of the default run's rollout settings for evaluations (smoke tests shorten them). */
  evalOverrides?: Partial<EvalSettings>;
  /** Evaluate only the first N tasks of each split (smoke tests); all when absent. */
  taskLimit?: number;
  /** Other sampling temperatures at which the train split is also scored (for tuning GRPO). */
  sweepTemperatures: number[];
  /** End training at this step (the schedule still spans `schedule.steps`); absent = run it all. */
  stopAt?: number;
  /**
   * Continue from an exported demo folder (its weights and tokenizer) instead of starting fresh.
   */
  resume?: string;
  /** The command line that reproduces this run, for the model card. */
  command: string;
}

/** What the run measured. */
export interface DemoResult {
  facts: CardFacts;
  sizes: Record<string, number>;
  /** Training loss of every step. */
  losses: number[];
}

interface Candidate {
  step: number;
  snapshot: WeightSnapshot;
  report: EvalReport;
}

/** Picks the most-trained checkpoint inside the band; else the one nearest to it. */
export function chooseCheckpoint<T extends { step: number; passAt1: number }>(
  candidates: readonly T[],
  band: [number, number],
): T {
  const inBand = candidates.filter((c) => c.passAt1 >= band[0] && c.passAt1 <= band[1]);
  if (inBand.length > 0) return inBand.reduce((a, b) => (b.step > a.step ? b : a));
  const distance = (c: T) => (c.passAt1 < band[0] ? band[0] - c.passAt1 : c.passAt1 - band[1]);
  return candidates.reduce((a, b) =>
    distance(b) < distance(a) || (distance(b) === distance(a) && b.step > a.step) ? b : a,
  );
}

/** The reproduce command(s) in an exported folder's model card, and the minutes each run took. */
function previousRecipe(dir: string): { command: string; minutes: number[] } {
  const card = readFileSync(join(dir, 'README.md'), 'utf8');
  const match = /## Reproduce\n\n```\n([\s\S]*?)\n```/.exec(card);
  if (!match)
    throw new Error(
      `${dir}/README.md has no "## Reproduce" command block; resume only from a folder this script wrote.`,
    );
  return { command: match[1]!, minutes: cardRecipeMinutes(card) };
}

/** Runs the recipe; `log` receives one line per event. */
export async function makeDemoModel(
  recipe: DemoRecipe,
  log: (line: string) => void = console.log,
): Promise<DemoResult> {
  const started = performance.now();
  const minutes = () => (performance.now() - started) / 60_000;
  if (!(await tf.setBackend(recipe.backend)))
    throw new Error(`tf.setBackend('${recipe.backend}') failed`);

  const corpusExecutor = await sandboxExecutor();
  const templateProblems = await checkTemplates(TEMPLATES, corpusExecutor, recipe.seed);
  if (templateProblems.length > 0)
    throw new Error(`templates disagree with the hidden tests:\n${templateProblems.join('\n')}`);
  const corpus = await generateCorpus(TEMPLATES, corpusExecutor, {
    size: recipe.corpusSize,
    seed: recipe.seed,
    wrongShare: recipe.wrongShare,
    genericShare: recipe.genericShare,
    guessShare: recipe.guessShare,
  });
  const leaks = leakProblems(corpus);
  if (leaks.length > 0) throw new Error(`held-out material in the corpus:\n${leaks.join('\n')}`);
  const guessed = corpus.filter((t) => t.guessed).length;
  log(
    `corpus: ${corpus.length} transcripts, ${corpus.filter((t) => !t.firstTryCorrect && !t.guessed).length} with a wrong first attempt, ${guessed} answering without code (${minutes().toFixed(1)} min)`,
  );

  const tokenizerJson = recipe.resume
    ? (JSON.parse(readFileSync(join(recipe.resume, 'tokenizer.json'), 'utf8')) as Record<
        string,
        unknown
      >)
    : trainTokenizer(
        corpus.map((t) => t.messages),
        recipe.shape.vocabSize,
      );
  // A resumed run's card lists the commands of the runs before it, and their minutes.
  const previous = recipe.resume ? previousRecipe(recipe.resume) : undefined;
  const command = previous ? `${previous.command}\n${recipe.command}` : recipe.command;
  const tokenizer = demoTokenizer(tokenizerJson);
  const examples = corpus
    .map((t) => encodeTranscript(tokenizer, t.messages))
    .filter((e) => e.ids.length <= recipe.shape.maxPositions);
  const tokens = examples.reduce((s, e) => s + e.ids.length, 0);
  const longestTurn = Math.max(
    ...corpus.flatMap((t) =>
      t.messages
        .filter((m) => m.role === 'assistant')
        .map((m) => tokenizer.encode(m.content, { addSpecialTokens: false }).length + 1),
    ),
  );
  log(
    `tokenizer: vocab ${tokenizer.vocabSize}; ${examples.length} sequences, ${tokens} tokens (mean ${(tokens / examples.length).toFixed(0)}), longest assistant turn ${longestTurn} tokens`,
  );

  const config = demoConfig(recipe.shape);
  const model = recipe.resume
    ? await CausalLM.load(directorySource(recipe.resume), { training: { kind: 'full' } })
    : CausalLM.fromWeights(config, randomWeights(config, recipe.seed), { kind: 'full' });
  if (JSON.stringify(model.config) !== JSON.stringify(config))
    throw new Error(
      `${recipe.resume}/config.json does not match the recipe's shape. Fix: resume with the same shape.`,
    );
  const optimizer = new AdamW(model.trainableVariables(), {
    learningRate: recipe.schedule.peakLearningRate,
    beta1: 0.9,
    beta2: 0.95,
    epsilon: 1e-8,
    weightDecay: 0.01,
  });
  const trainTasks = tasksFor('seed+builtin').slice(0, recipe.taskLimit);
  const evalTasks = evalTasksFor('seed+builtin').slice(0, recipe.taskLimit);
  const evalBase: EvalSettings = { ...DEFAULT_EVAL, ...recipe.evalOverrides };
  const executor = processExecutor(evalBase.timeoutMs);
  let parallel: ParallelSft | undefined;
  const candidates: Candidate[] = [];
  let trainSeconds = 0;
  const losses: number[] = [];
  let lossSum = 0;
  let lossCount = 0;
  const provisionalFacts = (step: number): CardFacts => ({
    parameters: parameterCount(recipe.shape),
    shape: recipe.shape,
    corpusSize: corpus.length,
    wrongShare: recipe.wrongShare,
    guessShare: guessed / corpus.length,
    tokenWeighting: recipe.schedule.tokenWeighting ?? 'batch',
    tokens,
    steps: step,
    batchSize: recipe.schedule.batchSize,
    trainMinutes: trainSeconds / 60,
    totalMinutes: minutes(),
    seed: recipe.seed,
    command,
    ...(previous ? { earlierMinutes: previous.minutes } : {}),
    longestTurn,
    samples: recipe.finalSamples,
    trainPassAt1: null,
    evalPassAt1: null,
    byTask: {},
    finalLoss: null,
    backend: recipe.backend,
    workers: recipe.workers ?? 1,
    fma: fusedMultiplyAddActive(),
    temperature: evalBase.temperature,
  });
  const assess = async (step: number) => {
    const snapshot = snapshotWeights(model);
    const probe = CausalLM.fromWeights(config, snapshotSource(snapshot));
    const report = await evaluate(probe, tokenizer, trainTasks, executor, {
      ...evalBase,
      samples: recipe.evalSamples,
      seed: recipe.seed,
    });
    probe.dispose();
    candidates.push({ step, snapshot, report });
    // Export the current choice right away, so an interrupted run still leaves a usable model.
    const current = chooseCheckpoint(
      candidates.map((c) => ({ ...c, passAt1: c.report.passAt1 })),
      recipe.band,
    );
    exportDemo(recipe.out, current.snapshot, {
      config: configJson(recipe.shape),
      tokenizerJson,
      tokenizerConfig: tokenizerConfig(),
      readme: modelCard(provisionalFacts(current.step)),
    });
    log(
      `eval step ${step}: train pass@1 ${report.passAt1.toFixed(3)}, answered ${report.answered.toFixed(2)}, ran code ${report.ranCode.toFixed(2)}, turns ${report.meanTurns.toFixed(2)} (${report.seconds.toFixed(0)} s)`,
    );
    return report;
  };
  try {
    if ((recipe.workers ?? 1) > 1) {
      parallel = await ParallelSft.start(recipe.workers!, config, recipe.backend);
      log(`supervised training on ${parallel.workers} threads (data-parallel)`);
    }
    await trainSft(
      model,
      optimizer,
      examples,
      recipe.schedule,
      async (p) => {
        trainSeconds += p.seconds;
        lossSum += p.loss;
        losses.push(p.loss);
        lossCount++;
        if (p.step % 10 === 0 || p.step === recipe.schedule.steps) {
          log(
            `step ${p.step}/${recipe.schedule.steps} loss ${(lossSum / lossCount).toFixed(4)} lr ${p.learningRate.toExponential(2)} ${p.seconds.toFixed(2)} s/step (${minutes().toFixed(1)} min)`,
          );
          lossSum = 0;
          lossCount = 0;
        }
        const last = p.step === recipe.schedule.steps || p.step === recipe.stopAt;
        if ((recipe.evalEvery > 0 && p.step % recipe.evalEvery === 0) || last) {
          const report = await assess(p.step);
          // Past the band's top by a clear margin: more training only makes it too good.
          if (!last && report.passAt1 > recipe.band[1] + 0.1) return 'stop';
        }
        if (p.step === recipe.stopAt) return 'stop';
      },
      parallel,
    );

    const chosen = chooseCheckpoint(
      candidates.map((c) => ({ ...c, passAt1: c.report.passAt1 })),
      recipe.band,
    );
    log(
      `chose the checkpoint of step ${chosen.step} (train pass@1 ${chosen.passAt1.toFixed(3)} with ${recipe.evalSamples} samples)`,
    );
    const files = {
      config: configJson(recipe.shape),
      tokenizerJson,
      tokenizerConfig: tokenizerConfig(),
    };
    const facts = provisionalFacts(chosen.step);
    exportDemo(recipe.out, chosen.snapshot, { ...files, readme: modelCard(facts) });

    // Score the exported (BF16) files as the app loads them, and check them against float32.
    const source = directorySource(recipe.out);
    const reloaded = await CausalLM.load(source);
    const reloadedTokenizer = await loadTokenizer(source);
    const floatModel = CausalLM.fromWeights(config, snapshotSource(chosen.snapshot));
    const probeIds = examples[0]!.ids.slice(0, 64);
    const a = reloaded.logits(probeIds);
    const b = floatModel.logits(probeIds);
    let maxDiff = 0;
    a.forEach((row, t) =>
      row.forEach((v, i) => {
        maxDiff = Math.max(maxDiff, Math.abs(v - b[t]![i]!));
      }),
    );
    floatModel.dispose();
    log(`reloaded BF16 export: max |logit difference| vs float32 ${maxDiff.toFixed(4)}`);
    const finalSettings = { ...evalBase, samples: recipe.finalSamples, seed: recipe.seed + 1 };
    const trainReport = await evaluate(
      reloaded,
      reloadedTokenizer,
      trainTasks,
      executor,
      finalSettings,
    );
    const evalReport = await evaluate(
      reloaded,
      reloadedTokenizer,
      evalTasks,
      executor,
      finalSettings,
    );
    const sweep: Record<string, number> = {};
    for (const temperature of recipe.sweepTemperatures) {
      sweep[String(temperature)] = (
        await evaluate(reloaded, reloadedTokenizer, trainTasks, executor, {
          ...finalSettings,
          temperature,
        })
      ).passAt1;
    }
    reloaded.dispose();
    log(
      `final: train pass@1 ${trainReport.passAt1.toFixed(3)}, eval pass@1 ${evalReport.passAt1.toFixed(3)} (${recipe.finalSamples} samples per task); train pass@1 by temperature ${JSON.stringify(sweep)}`,
    );
    Object.assign(facts, {
      trainPassAt1: trainReport.passAt1,
      evalPassAt1: evalReport.passAt1,
      byTask: { ...trainReport.byTask, ...evalReport.byTask },
      totalMinutes: minutes(),
      logitDiff: maxDiff,
      sweep,
    });
    const sizes = exportDemo(recipe.out, chosen.snapshot, { ...files, readme: modelCard(facts) });
    log(
      `wrote ${recipe.out}: ${Object.entries(sizes)
        .map(([k, v]) => `${k} ${(v / 1024).toFixed(0)} KiB`)
        .join(', ')} (${minutes().toFixed(1)} min in all)`,
    );
    return { facts, sizes, losses };
  } finally {
    await parallel?.close();
    executor.close();
    model.dispose();
    optimizer.dispose();
  }
}
