// The model card's "Search" section: what the corpus's search part holds, the model's scores with
// the search tool on, and what the search preset's GRPO run does to them (before -> after on three
// seeds, written by scripts/demo/default_run.ts --preset search --card).

/** What the card states about search (present when the last run's corpus had a search part). */
export interface SearchFacts {
  /** Search-task transcripts in the corpus. */
  transcripts: number;
  /** Ordinary-task transcripts rendered under the search prompt. */
  plain: number;
  /** Measured shares of the search-task transcripts that search first / guess a name first. */
  searchFirstShare: number;
  guessNameShare: number;
  /** pass@1 with the search tool on, and the share of episodes that searched before coding. */
  trainPassAt1: number | null;
  evalPassAt1: number | null;
  trainSearchedFirst: number | null;
  evalSearchedFirst: number | null;
}

/** The command that measures the search preset on this model and writes its table here. */
export const SEARCH_RUN_COMMAND =
  'node scripts/relaxed-simd.mjs scripts/demo/default_run.ts --preset search --seeds 1,2,3 --samples 8 --card public/models/demo/README.md';

/** The sentence after which the measured GRPO table goes (withSearchGrpo finds it). */
const GRPO_LEAD =
  "The page's search preset (the default run with the search tool on, on the `search` tasks, 30 steps) trains this model; pass@1 and the share of episodes that search before they run code, before and after, on three seeds:\n";

const score = (x: number | null) => (x === null ? 'not measured yet' : x.toFixed(2));
const percent = (x: number) => `${Math.round(x * 100)}%`;

/** The card's "## Search" section, or '' when the run had no search part. */
export function searchSection(f: SearchFacts | undefined, samples: number): string {
  if (!f) return '';
  const guessOnly = 1 - f.searchFirstShare - f.guessNameShare;
  return `## Search

The last run's corpus also has ${f.transcripts} transcripts of the \`search\` tasks' train split
(a behaviour named, never the function), under the system prompt of the tools execute_code, search
and finish: ${percent(f.searchFirstShare)} search first (\`SEARCH: <what it should do>\`, the real
top 3 from the docs index, code that calls the function found, its real output, the answer);
${percent(f.guessNameShare)} guess a function name that does not exist (\`math.choose\`,
\`statistics.middle\`), get the real AttributeError or NameError, then some search and fix it and
the rest give a wrong answer or a wrong hand-rolled attempt; ${percent(guessOnly)} answer at once,
wrongly. So the model seldom searches first, and GRPO has that habit to raise. ${f.plain} more
transcripts are ordinary tasks under the search prompt, solved by running code. No eval-split
prompt or held-out function is in the corpus (checked by the generator and by test/demo/).

With the search tool on (${samples} samples per task, temperature as above):

| tasks | pass@1 | searched before coding |
|---|---|---|
| search train split | ${score(f.trainPassAt1)} | ${score(f.trainSearchedFirst)} |
| search eval split (held out) | ${score(f.evalPassAt1)} | ${score(f.evalSearchedFirst)} |

${GRPO_LEAD}
Not measured on these files yet: \`${SEARCH_RUN_COMMAND}\` measures it and writes it here.
`;
}

/** One seed of the search preset's run, as default_run.ts --preset search measures it. */
export interface SearchRunRow {
  seed: number;
  before: { train: number; eval: number; searchedFirst: number; evalSearchedFirst: number };
  after: { train: number; eval: number; searchedFirst: number; evalSearchedFirst: number };
  minutes: number;
  /** Share of each step's episodes that called search (the run's search_fraction). */
  searchFraction: number[];
}

const change = (before: number, after: number) =>
  `${before.toFixed(2)} → ${after.toFixed(2)} (${after - before >= 0 ? '+' : '−'}${Math.abs(after - before).toFixed(2)})`;

/** The measured table of the search preset's run, one row per seed. */
export function searchGrpoTable(rows: readonly SearchRunRow[], samples: number): string {
  const lines = rows.map(
    (r) =>
      `| ${r.seed} | ${change(r.before.train, r.after.train)} | ${change(r.before.searchedFirst, r.after.searchedFirst)} | ${r.before.eval.toFixed(2)} → ${r.after.eval.toFixed(2)} | ${r.before.evalSearchedFirst.toFixed(2)} → ${r.after.evalSearchedFirst.toFixed(2)} | ${r.minutes.toFixed(1)} |`,
  );
  const first = rows.map((r) => r.searchFraction[0] ?? 0);
  const last = rows.map((r) => r.searchFraction.at(-1) ?? 0);
  const range = (xs: number[]) =>
    Math.min(...xs) === Math.max(...xs)
      ? Math.min(...xs).toFixed(2)
      : `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
  return `Measured on these files (${samples} samples per task; \`${SEARCH_RUN_COMMAND}\`):

| seed | search train split | searched before coding | search eval split (held out) | same, searched before coding | minutes |
|---|---|---|---|---|---|
${lines.join('\n')}

The share of a step's episodes that called search was ${range(first)} in the first step and ${range(last)} in the last.`;
}

/** The card with its search section's measured GRPO part replaced by `body`. */
export function withSearchGrpo(card: string, body: string): string {
  const start = card.indexOf(GRPO_LEAD);
  if (start < 0)
    throw new Error(
      'the model card has no "## Search" section; make the model with a search part (make-demo-model --search-share) first.',
    );
  const from = start + GRPO_LEAD.length;
  const next = card.indexOf('\n## ', from);
  const end = next < 0 ? card.length : next;
  return `${card.slice(0, from)}${body}\n${card.slice(end)}`;
}
