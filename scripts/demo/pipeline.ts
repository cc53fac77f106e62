// The whole demo-model recipe, callable from the script and from the smoke test: corpus (real
// sandbox executions) -> BPE tokenizer -> SFT of a small Llama on wasm -> checkpoint choice by
// measured pass@1 -> BF16 export -> reload check and final scores -> model card.
import * as tf from '@tensorflow/tfjs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import '@tensorflow/tfjs-backend-wasm';
import { AdamW } from '../../src/model/adamw.ts';
import { fusedMultiplyAddActive } from '../../src/kernels/matmul/kernels.ts';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { type ModelConfig, parseModelConfig } from '../../src/model_files/hf_config.ts';
import { readJson } from '../../src/model_files/source.ts';
import { readWeightFiles } from '../../src/model_files/weight_files.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { evalTasksFor, tasksFor } from '../../src/tasks/registry.ts';
import { loadTokenizer } from '../../src/tokenizer/tokenizer.ts';
import { checkTemplates, generateCorpus, leakProblems } from './corpus.ts';
import { checkSearchTemplates, generateSearchCorpus, searchLeakProblems } from './corpus_search.ts';
import { generateSkillCorpus } from './corpus_skills.ts';
import { DEFAULT_EVAL, evaluate, type EvalReport, type EvalSettings } from './evaluate.ts';
import { heldOutLeaks } from './held_out.ts';
import { growthProblem, grownWeights, layerPlaces } from './grow.ts';
import { exportDemo, snapshotSource, snapshotWeights, type WeightSnapshot } from './export.ts';
import { cardRecipeMinutes, modelCard, type CardFacts } from './model_card.ts';
import { configJson, demoConfig, parameterCount, type DemoShape } from './model_config.ts';
import { processExecutor } from './process_executor.ts';
import { sandboxExecutor } from './sandbox_executor.ts';
import { ParallelSft } from './parallel_sft.ts';
import { SKILLS } from './skills.ts';
import { skillTasks } from './skill_tasks.ts';
import type { Task } from '../../src/tasks/task.ts';
import { trainSft, type SftSchedule } from './sft_loop.ts';
import type { NameShares } from './template.ts';
import { TEMPLATES } from './templates.ts';
import { SEARCH_TEMPLATES } from './templates_search.ts';
import { SEARCH_TOOLS, type SearchMix } from './transcripts_search.ts';
import {
  demoTokenizer,
  copyShare,
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
  /**
   * Share of the ordinary part (the transcripts under the default prompt) made of skill instances
   * (skill.ts: tasks of no suite, random names and wordings) rather than the train tasks'
   * templates. Absent or 0 = none, as in the runs before skills.
   */
  skillShare?: number;
  /** Shares of the skill part's names that are made up (absent: skill.ts's DEFAULT_NAME_SHARES). */
  madeUpNames?: NameShares;
  /** Loss weight of learned tokens that copy from the prompt or an observation (absent: 1). */
  copyWeight?: number;
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
  /** Grow the resumed model into `shape` first (grow.ts): wider or deeper, the same function. */
  grow?: boolean;
  /** The command line that reproduces this run, for the model card. */
  command: string;
  /** The search part of the corpus and its scores (absent = none, as in the runs before search). */
  search?: SearchRecipe;
}

/** The corpus's search part: search-task transcripts, and ordinary ones under the search prompt. */
export interface SearchRecipe {
  /** Share of the corpus's transcripts in the search part. */
  share: number;
  /** How the search-task transcripts go (search first, guess a name, answer at once). */
  mix: SearchMix;
  /** Share of the search part that is ordinary tasks under the search prompt, solved with code. */
  plainShare: number;
  /**
   * The share of search-task episodes that search first, which a checkpoint should land in: the
   * chooser prefers checkpoints inside it (then applies the pass@1 band), so GRPO starts low.
   */
  band: [number, number];
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
  /** The search tasks' evaluation, when the recipe has a search part. */
  searchReport?: EvalReport;
}

/**
 * Picks the most-trained checkpoint inside the band; else the one nearest to it. With a
 * `searchBand`, only the checkpoints whose search-first share (`searchedFirst`) lies in it are
 * considered, when there are any.
 */
export function chooseCheckpoint<
  T extends { step: number; passAt1: number; searchedFirst?: number },
>(candidates: readonly T[], band: [number, number], searchBand?: [number, number]): T {
  if (searchBand) {
    const inSearchBand = candidates.filter(
      (c) =>
        c.searchedFirst !== undefined &&
        c.searchedFirst >= searchBand[0] &&
        c.searchedFirst <= searchBand[1],
    );
    if (inSearchBand.length > 0) return chooseCheckpoint(inSearchBand, band);
  }
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

/** The config of the model in `dir`. */
async function resumedConfig(dir: string): Promise<ModelConfig> {
  return parseModelConfig(
    await readJson(directorySource(dir), 'config.json'),
    `${dir}/config.json`,
  );
}

/**
 * The model in `dir` grown into `config` (grow.ts): the same function, with new weights drawn from
 * `seed`; the config keeps `config`'s eps, so the grown norms' eps acts a little larger.
 */
async function grownModel(
  dir: string,
  config: ModelConfig,
  seed: number,
  log: (line: string) => void,
): Promise<CausalLM> {
  const from = await resumedConfig(dir);
  const weights = await readWeightFiles(directorySource(dir));
  log(
    `grown from ${dir}: hidden ${from.hiddenSize} -> ${config.hiddenSize}, layers ${from.numLayers} -> ${config.numLayers}, heads ${from.numHeads} -> ${config.numHeads}, mlp ${from.intermediateSize} -> ${config.intermediateSize} (old layers at ${layerPlaces(from.numLayers, config.numLayers).join(', ')})`,
  );
  return CausalLM.fromWeights(config, grownWeights(weights, from, config, seed), { kind: 'full' });
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

  // a shape the resumed model cannot grow into is refused before minutes of corpus building
  if (recipe.resume && recipe.grow) {
    const from = await resumedConfig(recipe.resume);
    const problem = growthProblem(from, demoConfig(recipe.shape));
    if (problem) throw new Error(`--grow: cannot grow ${recipe.resume} into --shape: ${problem}`);
  }
  const corpusExecutor = await sandboxExecutor();
  const templateProblems = [
    ...(await checkTemplates(TEMPLATES, corpusExecutor, recipe.seed)),
    ...(recipe.search
      ? await checkSearchTemplates(SEARCH_TEMPLATES, corpusExecutor, recipe.seed)
      : []),
  ];
  if (templateProblems.length > 0)
    throw new Error(`templates disagree with the hidden tests:\n${templateProblems.join('\n')}`);
  const searchSize = recipe.search ? Math.round(recipe.corpusSize * recipe.search.share) : 0;
  const ordinarySize = recipe.corpusSize - searchSize;
  const skillSize = Math.round(ordinarySize * (recipe.skillShare ?? 0));
  const transcriptOptions = {
    wrongShare: recipe.wrongShare,
    genericShare: recipe.genericShare,
    guessShare: recipe.guessShare,
  };
  const corpus = await generateCorpus(TEMPLATES, corpusExecutor, {
    size: ordinarySize - skillSize,
    seed: recipe.seed,
    ...transcriptOptions,
  });
  // Each part draws from its own stream, so a recipe without it makes the same corpus as before.
  const skillPart =
    skillSize > 0
      ? await generateSkillCorpus(SKILLS, corpusExecutor, {
          size: skillSize,
          seed: recipe.seed + 2_000_003,
          ...transcriptOptions,
          ...(recipe.madeUpNames ? { names: recipe.madeUpNames } : {}),
        })
      : null;
  if (skillPart) corpus.push(...skillPart.transcripts);
  if (recipe.search)
    corpus.push(
      ...(await generateSearchCorpus(SEARCH_TEMPLATES, TEMPLATES, corpusExecutor, {
        size: searchSize,
        seed: recipe.seed + 1_000_003,
        mix: recipe.search.mix,
        plainShare: recipe.search.plainShare,
        wrongShare: recipe.wrongShare,
        genericShare: recipe.genericShare,
      })),
    );
  const leaks = [
    ...leakProblems(corpus),
    ...searchLeakProblems(corpus),
    ...heldOutLeaks(corpus.map((t) => t.messages.map((m) => m.content).join('\n'))),
  ];
  if (leaks.length > 0) throw new Error(`held-out material in the corpus:\n${leaks.join('\n')}`);
  const searchTasks = corpus.filter((t) => t.searchStyle !== undefined);
  // The old skills' part: ordinary tasks under the default prompt (the search part counts apart).
  const ordinary = corpus.slice(0, ordinarySize);
  const guessed = ordinary.filter((t) => t.guessed).length;
  const styles = new Map<string, number>();
  for (const t of searchTasks) styles.set(t.searchStyle!, (styles.get(t.searchStyle!) ?? 0) + 1);
  log(
    `corpus: ${corpus.length} transcripts; ${ordinary.length} under the default prompt (${skillSize} of skills, ${skillPart?.redrawn ?? 0} skill instances drawn again for touching held-out material): ${ordinary.filter((t) => !t.firstTryCorrect && !t.guessed).length} with a wrong first attempt, ${guessed} answering without code${recipe.search ? `; ${searchTasks.length} search-task transcripts (${[...styles].map(([k, v]) => `${k} ${v}`).join(', ')}), ${searchSize - searchTasks.length} ordinary ones under the search prompt` : ''} (${minutes().toFixed(1)} min)`,
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
    .map((t) => encodeTranscript(tokenizer, t.messages, recipe.copyWeight ?? 1))
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
    `tokenizer: vocab ${tokenizer.vocabSize}; ${examples.length} sequences, ${tokens} tokens (mean ${(tokens / examples.length).toFixed(0)}), longest assistant turn ${longestTurn} tokens${recipe.copyWeight ? `; ${(copyShare(examples) * 100).toFixed(1)}% of learned tokens copy from the prompt or an observation, weighed ${recipe.copyWeight}` : ''}`,
  );

  const config = demoConfig(recipe.shape);
  const model = recipe.resume
    ? recipe.grow
      ? await grownModel(recipe.resume, config, recipe.seed, log)
      : await CausalLM.load(directorySource(recipe.resume), { training: { kind: 'full' } })
    : CausalLM.fromWeights(config, randomWeights(config, recipe.seed), { kind: 'full' });
  if (JSON.stringify(model.config) !== JSON.stringify(config))
    throw new Error(
      `${recipe.resume}/config.json does not match the recipe's shape. Fix: resume with the same shape, or add --grow to grow it into --shape.`,
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
  const searchTrainTasks = tasksFor('search').slice(0, recipe.taskLimit);
  const searchEvalTasks = evalTasksFor('search').slice(0, recipe.taskLimit);
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
    guessShare: guessed / ordinary.length,
    tokenWeighting: recipe.schedule.tokenWeighting ?? 'batch',
    tokens,
    steps: step,
    band: recipe.band,
    batchSize: recipe.schedule.batchSize,
    trainMinutes: trainSeconds / 60,
    totalMinutes: minutes(),
    seed: recipe.seed,
    command,
    ...(previous ? { earlierMinutes: previous.minutes } : {}),
    ...(recipe.search
      ? {
          search: {
            transcripts: searchTasks.length,
            plain: searchSize - searchTasks.length,
            searchFirstShare:
              searchTasks.filter((t) => t.searchStyle === 'search_first').length /
              Math.max(1, searchTasks.length),
            guessNameShare:
              searchTasks.filter((t) => t.searchStyle?.startsWith('guess')).length /
              Math.max(1, searchTasks.length),
            trainPassAt1: null,
            evalPassAt1: null,
            trainSearchedFirst: null,
            evalSearchedFirst: null,
          },
        }
      : {}),
    ...(skillPart
      ? {
          skills: {
            transcripts: skillPart.transcripts.length,
            skills: new Set(SKILLS).size,
            redrawn: skillPart.redrawn,
            ...(recipe.madeUpNames ? { names: recipe.madeUpNames } : {}),
          },
        }
      : {}),
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
  let freshSkills: Task[] | undefined;
  const assess = async (step: number) => {
    const snapshot = snapshotWeights(model);
    const probe = CausalLM.fromWeights(config, snapshotSource(snapshot));
    const settings = { ...evalBase, samples: recipe.evalSamples, seed: recipe.seed };
    const report = await evaluate(probe, tokenizer, trainTasks, executor, settings);
    // Logged only: the checkpoint is chosen on the train split, never on held-out tasks.
    const heldOut = recipe.skillShare
      ? await evaluate(probe, tokenizer, evalTasks, executor, settings)
      : undefined;
    // Fresh skill instances (skill_tasks.ts): whether the model reads a prompt it never saw.
    freshSkills ??= recipe.skillShare
      ? await skillTasks(corpusExecutor, recipe.taskLimit ?? 54)
      : undefined;
    const skillReport = freshSkills
      ? await evaluate(probe, tokenizer, freshSkills, executor, settings)
      : undefined;
    const searchReport = recipe.search
      ? await evaluate(probe, tokenizer, searchTrainTasks, executor, {
          ...settings,
          tools: SEARCH_TOOLS,
        })
      : undefined;
    probe.dispose();
    candidates.push({ step, snapshot, report, ...(searchReport ? { searchReport } : {}) });
    // Export the current choice right away, so an interrupted run still leaves a usable model.
    const current = choose();
    exportDemo(recipe.out, current.snapshot, {
      config: configJson(recipe.shape),
      tokenizerJson,
      tokenizerConfig: tokenizerConfig(),
      readme: modelCard(provisionalFacts(current.step)),
    });
    log(
      `eval step ${step}: train pass@1 ${report.passAt1.toFixed(3)}${heldOut ? ` (held out ${heldOut.passAt1.toFixed(3)}, ran code ${heldOut.ranCode.toFixed(2)}; fresh skill instances ${skillReport!.passAt1.toFixed(3)})` : ''}, answered ${report.answered.toFixed(2)}, ran code ${report.ranCode.toFixed(2)}, turns ${report.meanTurns.toFixed(2)} (${report.seconds.toFixed(0)} s)${searchReport ? `; search tasks: pass@1 ${searchReport.passAt1.toFixed(3)}, searched first ${searchReport.searchedFirst.toFixed(2)}, searched ${searchReport.searched.toFixed(2)}, ran code ${searchReport.ranCode.toFixed(2)} (${searchReport.seconds.toFixed(0)} s)` : ''}`,
    );
    return report;
  };
  const choose = () =>
    chooseCheckpoint(
      candidates.map((c) => ({
        ...c,
        passAt1: c.report.passAt1,
        ...(c.searchReport ? { searchedFirst: c.searchReport.searchedFirst } : {}),
      })),
      recipe.band,
      recipe.search?.band,
    );
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

    const chosen = choose();
    log(
      `chose the checkpoint of step ${chosen.step} (train pass@1 ${chosen.passAt1.toFixed(3)}${chosen.searchReport ? `, search tasks searched first ${chosen.searchReport.searchedFirst.toFixed(2)}` : ''} with ${recipe.evalSamples} samples)`,
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
    const searchSettings = { ...finalSettings, tools: SEARCH_TOOLS };
    const searchTrain = recipe.search
      ? await evaluate(reloaded, reloadedTokenizer, searchTrainTasks, executor, searchSettings)
      : undefined;
    const searchEval = recipe.search
      ? await evaluate(reloaded, reloadedTokenizer, searchEvalTasks, executor, searchSettings)
      : undefined;
    reloaded.dispose();
    log(
      `final: train pass@1 ${trainReport.passAt1.toFixed(3)}, eval pass@1 ${evalReport.passAt1.toFixed(3)} (${recipe.finalSamples} samples per task); train pass@1 by temperature ${JSON.stringify(sweep)}`,
    );
    if (searchTrain && searchEval && facts.search) {
      log(
        `final, search tasks: train pass@1 ${searchTrain.passAt1.toFixed(3)} (searched first ${searchTrain.searchedFirst.toFixed(2)}), eval pass@1 ${searchEval.passAt1.toFixed(3)} (searched first ${searchEval.searchedFirst.toFixed(2)})`,
      );
      Object.assign(facts.search, {
        trainPassAt1: searchTrain.passAt1,
        evalPassAt1: searchEval.passAt1,
        trainSearchedFirst: searchTrain.searchedFirst,
        evalSearchedFirst: searchEval.searchedFirst,
      });
    }
    Object.assign(facts, {
      trainPassAt1: trainReport.passAt1,
      evalPassAt1: evalReport.passAt1,
      byTask: {
        ...trainReport.byTask,
        ...evalReport.byTask,
        ...searchTrain?.byTask,
        ...searchEval?.byTask,
      },
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
