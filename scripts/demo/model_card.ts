// The demo model's README.md (model card): what it is, its data, its size, its scores, and the
// command that reproduces it. Written by the pipeline with the numbers it measured.
import { SEED_TASKS } from '../../src/tasks/seed.ts';
import type { DemoShape } from './model_config.ts';
import type { NameShares } from './template.ts';
import { PROMPT_NGRAM, SOLUTION_NGRAM } from './held_out.ts';
import { DEFAULT_NAME_SHARES } from './skill.ts';
import { searchSection, type SearchFacts } from './model_card_search.ts';

/** What the card states. */
export interface CardFacts {
  parameters: number;
  shape: DemoShape;
  corpusSize: number;
  wrongShare: number;
  /** How the SFT loss weighs tokens (sft_loop.ts; absent = 'batch'). */
  tokenWeighting?: 'batch' | 'corpus';
  /** Measured share of transcripts that answer without running code (absent = none). */
  guessShare?: number;
  tokens: number;
  /** The train split's pass@1 band the checkpoint was chosen by (0.15-0.60 where absent). */
  band?: [number, number];
  steps: number;
  batchSize: number;
  trainMinutes: number;
  totalMinutes: number;
  seed: number;
  command: string;
  /**
   * Minutes of each run before this one, in order, when this run resumed from them (absent = none).
   */
  earlierMinutes?: number[];
  longestTurn: number;
  samples: number;
  trainPassAt1: number | null;
  evalPassAt1: number | null;
  byTask: Record<string, number>;
  finalLoss: number | null;
  backend: string;
  /** Threads of supervised training (data-parallel; absent = 1). */
  workers?: number;
  /** Whether the WebAssembly kernels had relaxed SIMD (the fused multiply-add build). */
  fma?: boolean;
  logitDiff?: number;
  /** Sampling temperature of the scores and the checkpoint choice (absent = 1). */
  temperature?: number;
  /** Train-split pass@1 at other sampling temperatures, by temperature. */
  sweep?: Record<string, number>;
  /** The corpus's search part and the scores with the search tool on (absent = no search part). */
  search?: SearchFacts;
  /** The corpus's skill part (skill.ts; absent = none). */
  skills?: SkillFacts;
}

/** The skill part of the last run's corpus. */
export interface SkillFacts {
  /** Transcripts of skill instances. */
  transcripts: number;
  /** Distinct skills (generators of tasks). */
  skills: number;
  /** Instances drawn again because they shared a run of words or code with held-out material. */
  redrawn: number;
  /** The shares of made-up names, where the recipe set them (`--made-up-names`; else the defaults). */
  names?: NameShares;
}

/** How the made-up names are made, and how many (the default shares where the recipe left them). */
function madeUp(names: NameShares = DEFAULT_NAME_SHARES): string {
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  const words = names.words ?? 0;
  const long = names.long ?? 0;
  const syllables =
    long > 0
      ? `syllables (${pct(long)} of those long, of several parts, \`plon_is_dreax\`)`
      : 'syllables';
  const how =
    words > 0
      ? ` from ${syllables} or, ${pct(words)} of them, from English words (\`sift_pebble\`)`
      : ` from ${syllables}`;
  const values = names.values
    ? `; in ${pct(names.values)} of the instances the words of the string arguments are made up too`
    : '';
  return `${how}: ${pct(names.function)} of function names, ${pct(names.param)} of parameters${values}`;
}

/** The Data section's paragraph on the skill part. */
function skillText(k: SkillFacts | undefined): string {
  if (!k) return '';
  return `

${k.transcripts} of those transcripts are not about any task of the suite: they come from ${k.skills} skills
(scripts/demo/skills_*.ts), generators of small function tasks built from the operations the task
families use (count, sum, filter, map, group, slice, convert with a given formula, clean a string
then test it, ...), composed and worded at random, with random function names (descriptive,
generic like \`solve\`, or made up${madeUp(k.names)}, which only copying from the prompt can write),
parameter names and values. They are meant to teach the mapping from a prompt to a program rather
than the programs of the train tasks; the held-out row under Scores says how far that got. The combinations that the held-out tasks are made of are left out (no counting of
the multiples of k in a range, no palindrome test after keeping letters and ignoring case, no
grouping of words by length, ...), and an instance that shares a run of ${PROMPT_NGRAM} words of a held-out
prompt or ${SOLUTION_NGRAM} code tokens of a held-out solution is drawn again (${k.redrawn} were).`;
}

/** How the training ran, when it was more than one plain thread. */
function trainingThreads(f: CardFacts): string {
  const parts = [
    ...((f.workers ?? 1) > 1 ? [`${f.workers} threads, data-parallel`] : []),
    ...(f.backend === 'wasm' && f.fma ? ['WebAssembly relaxed SIMD'] : []),
  ];
  return parts.length > 0 ? ` (${parts.join('; ')})` : '';
}

/** The corpus sentence about answering without code, when the recipe has such transcripts. */
function guessText(f: CardFacts, partOfCorpus = false): string {
  if (!f.guessShare) return '';
  return ` In about ${Math.round(f.guessShare * 100)}% of
${partOfCorpus ? 'those' : 'the'} transcripts the assistant skips the sandbox and answers at once with a plausible wrong value
(what one of the task's wrong programs prints, or a near miss): the habit of real models that guess
instead of using their tool. So the model often answers without running code; GRPO, which rewards
only answers backed by code that passes the hidden tests, trains that habit away.`;
}

const score = (x: number | null) => (x === null ? 'not measured yet' : x.toFixed(2));

/** The command that measures the default run on this model and writes its table into the card. */
/** How many fresh skill instances the default run's measurement scores (one per skill and one more). */
export const FRESH_TASKS = 28;

export const DEFAULT_RUN_COMMAND =
  'node scripts/relaxed-simd.mjs scripts/demo/default_run.ts --seeds 1,2,3 --samples 8 --card public/models/demo/README.md';

/** The card's "Under GRPO" section before the default run has been measured on this model. */
const UNMEASURED_GRPO = `Not measured on these files yet: \`${DEFAULT_RUN_COMMAND}\` measures it and writes it here.`;

/** How the time of the whole recipe reads in the card: "37 + 14 minutes" for two runs. */
function recipeMinutes(f: CardFacts): string {
  const runs = f.command.split('\n').length;
  const known = [...(f.earlierMinutes ?? []), f.totalMinutes];
  if (known.length !== runs) return `${f.totalMinutes.toFixed(0)} minutes for the last run`;
  return `${known.map((m) => m.toFixed(0)).join(' + ')} minutes`;
}

/**
 * The minutes of every run of a card's recipe, as its Reproduce note states them (empty if it does
 * not).
 */
export function cardRecipeMinutes(card: string): number[] {
  const note = /; ([\d +]+) minutes on a shared 2-core machine\.\)/.exec(card);
  if (note) return note[1]!.split('+').map(Number);
  // Cards written before the note had the time: one run, stated in the Training section.
  const single = /, (\d+) minutes for the whole recipe/.exec(card);
  return single ? [Number(single[1])] : [];
}

/** One seed of the default run, as default_run.ts measures it. */
export interface DefaultRunRow {
  seed: number;
  /** `fresh`: pass@1 on fresh skill instances (tasks of trained kinds that no corpus holds). */
  before: { train: number; eval: number; greedyTrain?: number; fresh?: number };
  after: { train: number; eval: number; greedyTrain?: number; fresh?: number };
  minutes: number;
  /** Share of the step's episodes that ran code, per step. */
  ranCode: number[];
}

/** The "Under GRPO" section's measured part: a row per seed and how code use changed. */
export function underGrpoTable(
  rows: readonly DefaultRunRow[],
  samples: number,
  fma: boolean,
): string {
  const change = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined
      ? '–'
      : `${before.toFixed(2)} → ${after.toFixed(2)} (${signed(after - before)})`;
  // the unseen skill tasks' column only when every row measured them (rows of older runs did not)
  const fresh = rows.every((r) => r.before.fresh !== undefined && r.after.fresh !== undefined);
  const lines = rows.map(
    (r) =>
      `| ${r.seed} | ${change(r.before.train, r.after.train)} | ${change(r.before.greedyTrain, r.after.greedyTrain)} | ${r.before.eval.toFixed(2)} → ${r.after.eval.toFixed(2)} |${fresh ? ` ${change(r.before.fresh, r.after.fresh)} |` : ''} ${r.minutes.toFixed(1)} |`,
  );
  const first = rows.map((r) => r.ranCode[0] ?? 0);
  const full = rows.map((r) => r.ranCode.findIndex((x) => x >= 1) + 1);
  const after = Math.min(...rows.map((r, i) => Math.min(...r.ranCode.slice(full[i]!))));
  const steps =
    Math.min(...full) === Math.max(...full)
      ? `${full[0]}`
      : `${Math.min(...full)}–${Math.max(...full)}`;
  const fullText = !full.every((step) => step > 0)
    ? `not every step's episodes ran code by the end (${full.filter((step) => step > 0).length} of ${rows.length} seeds got there)`
    : after >= 1
      ? `every episode of a step ran code from step ${steps} on`
      : `it reached 1.00 by step ${steps} and stayed at ${after.toFixed(2)}–1.00 after`;
  return `Measured on these files (${samples} samples per task, WASM in Node${fma ? ' with relaxed SIMD, as in Chromium' : ''}; \`${DEFAULT_RUN_COMMAND}\`):

| seed | seed + builtin train split | same, greedy | builtin eval split |${fresh ? ' unseen skill tasks |' : ''} minutes |
|---|---|---|---|${fresh ? '---|' : ''}---|
${lines.join('\n')}
${fresh ? `\nUnseen skill tasks: ${FRESH_TASKS} fresh instances of the skill corpus's kinds (new names, values and wordings, drawn from a seed no corpus uses; \`scripts/demo/skill_tasks.ts\`).\n` : ''}
The share of episodes that run code was ${Math.min(...first).toFixed(2)}–${Math.max(...first).toFixed(2)} in the first step; ${fullText}.`;
}

const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;

/** The card with its "Under GRPO" section's measured part replaced by `body`. */
export function withUnderGrpo(card: string, body: string): string {
  // The section ends at the next one: "## Search" when the model has one, else "## Reproduce".
  const match =
    /(## Under GRPO\n\n[\s\S]*?\("The default run"\)\.\n)[\s\S]*?(\n## (?:Search|Reproduce)\n)/.exec(
      card,
    );
  if (!match)
    throw new Error(
      'the model card has no "## Under GRPO" section followed by "## Reproduce"; write the card with make-demo-model first.',
    );
  return (
    card.slice(0, match.index) +
    match[1] +
    body +
    '\n' +
    match[2] +
    card.slice(match.index + match[0].length)
  );
}

/** The README.md text. */
export function modelCard(f: CardFacts): string {
  const rows = Object.entries(f.byTask)
    .map(([id, rate]) => `| ${id} | ${rate.toFixed(2)} |`)
    .join('\n');
  return `---
license: mit
library_name: transformers
pipeline_tag: text-generation
tags: [llama, agentic-rl, demo, synthetic-data]
---

# demo: a tiny Python-agent model for the in-browser GRPO demo

A ${(f.parameters / 1e6).toFixed(1)}M-parameter Llama-architecture model that ships with the app, so
"open the page and train" works offline. It was made by this project (\`npm run make-demo-model\`)
and is **deliberately imperfect**: it knows the conversation format of the agent loop (write a
\`\`\`python block, read \`Execution result:\`, fix mistakes, answer with \`FINAL ANSWER: ...\`) and
the kinds of task in the \`seed\` set and the \`builtin\` train split${f.search ? ", and the search tool's call (`SEARCH: <what it should do>`) on the `search` tasks' train split" : ''}, but solves only part of them,
so GRPO has something to learn. ${!f.skills ? 'It knows nothing outside those task kinds.' : (f.evalPassAt1 ?? 0) > 0 ? 'It also solves some tasks it was never shown (the held-out split), some of the time: see Scores.' : 'It was also trained on skill instances (see Data), but solves no held-out task (see Scores).'}

## Architecture

LlamaForCausalLM: hidden ${f.shape.hiddenSize}, ${f.shape.layers} layers, ${f.shape.heads} heads
(head dim ${f.shape.hiddenSize / f.shape.heads}), SiLU MLP ${f.shape.intermediateSize}, RoPE (theta 10000),
tied embeddings, vocabulary ${f.shape.vocabSize} (byte-level BPE trained on the corpus, with
\`<|endoftext|>\`, \`<|im_start|>\`, \`<|im_end|>\`), context ${f.shape.maxPositions}, weights in BF16.
Chat format: ChatML; a turn ends with \`<|im_end|>\` (the eos).

## Data

${f.command.includes('\n') ? 'The last of the runs listed under Reproduce trained on ' : ''}${f.corpusSize} synthetic multi-turn transcripts (${f.tokens} tokens) in exactly the agent loop's
format (src/rl/actions.ts: system prompt, task, code block, \`Execution result:\` observation,
final answer), generated from one template per task of the \`seed\` set (${SEED_TASKS.length}) and the
\`builtin\` train split, with other parameters and phrasings${f.search ? ` (${f.search.transcripts + f.search.plain} of them with the search tool on: see Search)` : ''}. About ${Math.round(f.wrongShare * 100)}% of the
first attempts are realistically wrong (off-by-one, wrong builtin, a NameError, printing the wrong
thing or nothing), followed by the real traceback or output and a corrected attempt.${guessText(f, f.search !== undefined)} Every
observation is the output of really running the code in the project's Pyodide sandbox. The corpus
never contains a prompt or function of the \`builtin\` eval split, nor any hidden test line
(checked by the generator and by test/demo/).${f.command.includes('\n') ? ' The runs before it used the same generator with their own settings (see Reproduce).' : ''}${skillText(f.skills)}

## Training

Supervised (loss on assistant tokens only${f.tokenWeighting === 'corpus' ? ', every token weighted the same whatever batch it lands in' : ''}) with the project's own tfjs code on the
\`${f.backend}\` backend in Node${trainingThreads(f)}: AdamW (0.9, 0.95, weight decay 0.01), warmup then cosine decay,
batch ${f.batchSize}, ${f.steps} steps${f.command.includes('\n') ? ' in the last of the runs listed under Reproduce, each resuming from the one before' : ''} (the checkpoint chosen by measured pass@1: the latest inside the ${(f.band ?? [0.15, 0.6]).map((x) => x.toFixed(2)).join('-')} band, else the nearest to it),
${f.trainMinutes.toFixed(0)} minutes of training, ${f.command.includes('\n') ? `${f.totalMinutes.toFixed(0)} minutes for this run (the recipe: ${recipeMinutes(f)})` : `${f.totalMinutes.toFixed(0)} minutes for the whole recipe`} on a shared 2-core machine.
${f.logitDiff === undefined ? '' : `The BF16 export differs from the float32 weights by at most ${f.logitDiff.toFixed(3)} in any logit (checked on reload).\n`}
## Scores

pass@1 with the agent loop's rollout settings at temperature ${(f.temperature ?? 1).toFixed(1)} (128 new tokens per turn, 3 turns;
rewards output_match + tests, both must pass), ${f.samples} samples per task, measured on these files:

| tasks | pass@1 |
|---|---|
| seed + builtin train split | ${score(f.trainPassAt1)} |
| builtin eval split (held out) | ${score(f.evalPassAt1)} |
${Object.entries(f.sweep ?? {})
  .map(([t, x]) => `| seed + builtin train split, temperature ${t} | ${score(x)} |`)
  .join('\n')}

<details><summary>Per task</summary>

| task | pass rate |
|---|---|
${rows}

</details>

The longest assistant turn in the corpus is ${f.longestTurn} tokens, so 128 new tokens per turn suffice.

## Under GRPO

The app's default run (temperature 0.7, LoRA, 2 PPO epochs per step, 30 steps) trains this model; its pass@1 before and after
on three seeds is also reported in the project README ("The default run").
${UNMEASURED_GRPO}
${f.search ? `\n${searchSection(f.search, f.samples)}` : ''}
## Reproduce

\`\`\`
${f.command}
\`\`\`

(${f.command.includes('\n') ? "run in this order, each resuming from the one before's output in the same folder" : `seed ${f.seed}`}; deterministic on the same backend with the same \`--workers\`; ${recipeMinutes(f)} on a shared 2-core machine.)
`;
}
