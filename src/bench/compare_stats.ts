// The statistics and the table of `npm run bench -- --compare REV` (scripts/bench/compare.ts): the
// bench run alternately on REV and on the working tree, N times each, reduced to each figure's
// medians, the ratio HEAD / REV and the spread of the per-pair ratios. A pair is one REV run and
// the HEAD run right after it, so both saw the same minutes of a shared machine; a difference is
// claimed only when every pair agrees on its side of 1 (a sign test: with 5 pairs, a chance of
// 2 / 32 that noise alone does it), else the figure is "within noise". Each figure also gets the
// sign test's two-sided p. The bench prints ~30 figures, so a few read "higher" or "lower" by noise
// in any comparison (30 x 2/32 ~ 1.9 at 5 pairs): a claim names its figures before the run
// (--claim), and holds where p <= 0.05 / (the number claimed), Bonferroni's bound. A claimed
// figure with a direction also gets the claim that denies a regression: HEAD at least MARGIN (0.95)
// of REV's speed, a one-sided sign test on the pairs (a pair counts where HEAD's speed is at least
// the margin times REV's), held to the same bound. Pairs whose two
// runs saw the machine at different speeds (the FMA peak, which no change to our code moves) are
// named. No I/O here, so the test checks it on made-up runs.

/** One run's output: the bench's JSON object. */
export type BenchRun = Record<string, unknown>;

/** Whether a larger value of a figure is better, worse, or neither (a ratio between two paths). */
export type Direction = 'higher' | 'lower' | null;

/** What the pairs say about a figure. */
export type Verdict = 'higher' | 'lower' | 'within noise' | 'too few pairs';

export interface FigureComparison {
  /** The figure's name in HEAD's output (REV's name differs where the map renames it). */
  name: string;
  revName: string;
  rev: number[];
  head: number[];
  revMedian: number;
  headMedian: number;
  /** headMedian / revMedian. */
  ratio: number;
  /** head[i] / rev[i] for each pair both of whose runs have the figure. */
  pairRatios: number[];
  /** [min, max] of pairRatios. */
  spread: [number, number];
  verdict: Verdict;
  /** The sign test's two-sided p over pairRatios (ties dropped). */
  p: number;
  /** Where the verdict is higher or lower and the figure has a direction: HEAD faster or slower. */
  meaning: 'faster' | 'slower' | null;
  /**
   * For a figure named with --claim: whether the pairs show a difference at the claims' bound
   * (p <= CLAIM_ALPHA / claims), and which way; null for a figure not claimed.
   */
  claim: 'shown higher' | 'shown lower' | 'not shown' | null;
  /**
   * For a claimed figure with a direction: how many pairs had HEAD at least `margin` of REV's
   * speed, the one-sided p of that many or more by chance, and whether it reaches the bound.
   */
  atLeast: { margin: number; pairs: number; p: number; shown: boolean } | null;
}

export interface Comparison {
  figures: FigureComparison[];
  /** Numeric figures in one side's runs only (a renamed figure shows up in both lists). */
  onlyRev: string[];
  onlyHead: string[];
  /** Non-numeric fields (backend, BLAS, ...) whose values differ between the sides. */
  context: { name: string; rev: unknown[]; head: unknown[] }[];
  /**
   * Pairs (1-based) whose two runs saw the machine at different speeds: SPEED_PROBE apart by more
   * than SPEED_TOLERANCE. Their ratios mix the change with the machine's load.
   */
  unsteadyPairs: number[];
  /** How many figures would read higher or lower by noise alone (each pair a coin toss). */
  noiseVerdicts: number;
  /** The figures named with --claim, and the p each must reach. */
  claims: { names: string[]; bound: number };
}

/** The chance of a false claim over all of a comparison's claims together. */
export const CLAIM_ALPHA = 0.05;

/** The share of REV's speed a claimed figure must keep for "no regression" (its ratio). */
export const MARGIN = 0.95;

/**
 * The figure that tells the machine's speed at the minute of a run: the FMA peak (roofline.ts), a
 * loop of independent multiply-adds that no change to our code moves.
 */
export const SPEED_PROBE = 'fma_peak_gflops';
export const SPEED_TOLERANCE = 0.1;

/** The fewest pairs a verdict other than "too few pairs" needs. */
export const MIN_PAIRS = 3;

/** The median (the mean of the two middle values of an even count). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Whether more is better for a figure, from its name: times (`_ms`, `_s`) lower, rates and
 * speed-ups (`_tok_s`, `_gflops`, `_speedup`) higher; ratios between two paths (`_vs_`) and the
 * rest neither.
 */
export function direction(name: string): Direction {
  if (name.includes('_vs_')) return null;
  if (/_(tok_s|gflops|gbps|speedup)$/.test(name)) return 'higher';
  if (/_(ms|s)$/.test(name)) return 'lower';
  return null;
}

/** The sign test over the pairs' ratios: all above 1, all below, or neither. */
export function verdictOf(pairRatios: readonly number[]): Verdict {
  if (pairRatios.length < MIN_PAIRS) return 'too few pairs';
  if (pairRatios.every((r) => r > 1)) return 'higher';
  if (pairRatios.every((r) => r < 1)) return 'lower';
  return 'within noise';
}

/** n choose k, exactly for the pair counts a comparison has. */
function choose(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c;
}

/**
 * The sign test's two-sided p: the chance that pairs which are coin tosses put at least as many on
 * one side of 1 as these do. Ties (a ratio of exactly 1) are dropped; no pairs give 1.
 */
export function signTestP(pairRatios: readonly number[]): number {
  const above = pairRatios.filter((r) => r > 1).length;
  const below = pairRatios.filter((r) => r < 1).length;
  return Math.min(1, 2 * upperTail(above + below, Math.max(above, below)));
}

/** The chance that n coin tosses give at least k heads. */
export function upperTail(n: number, k: number): number {
  if (n === 0) return 1;
  let tail = 0;
  for (let i = Math.max(0, k); i <= n; i++) tail += choose(n, i);
  return tail / 2 ** n;
}

/**
 * Whether the pairs show HEAD keeping at least `margin` of REV's speed (speedRatios: HEAD's speed
 * over REV's, a pair each): the pairs that do, and the one-sided p of that many by chance.
 */
function keeps(
  speedRatios: readonly number[],
  margin: number,
  bound: number,
): NonNullable<FigureComparison['atLeast']> {
  const pairs = speedRatios.filter((r) => r >= margin).length;
  const p = upperTail(speedRatios.length, pairs);
  return { margin, pairs, p, shown: pairs > speedRatios.length / 2 && p <= bound };
}

const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/**
 * Numbers that describe the machine or the setup, not a speed (the CPU count, thread counts):
 * context, listed only where the sides differ.
 */
export function isContext(name: string): boolean {
  return name === 'cpus' || (name.endsWith('_threads') && !name.endsWith('_speedup'));
}

/**
 * Compares the runs pair by pair (revRuns[i] with headRuns[i]). `renames` maps a REV figure's name
 * to HEAD's where the bench renamed it.
 */
export function compareRuns(
  revRuns: readonly BenchRun[],
  headRuns: readonly BenchRun[],
  renames: Readonly<Record<string, string>> = {},
  claimed: readonly string[] = [],
  margin = MARGIN,
): Comparison {
  if (revRuns.length !== headRuns.length)
    throw new Error(`${revRuns.length} REV runs against ${headRuns.length} HEAD runs: not pairs`);
  const revNameOf = new Map(Object.entries(renames).map(([rev, head]) => [head, rev]));
  const renamed = (run: BenchRun): BenchRun =>
    Object.fromEntries(Object.entries(run).map(([key, value]) => [renames[key] ?? key, value]));
  const rev = revRuns.map(renamed);
  // a figure is a name numeric in some run (a run where it is null, PyTorch missing, still pairs
  // nothing); the rest, and the setup's numbers, are context
  const names = (runs: readonly BenchRun[], numeric: boolean) =>
    new Set(
      runs.flatMap((run) =>
        Object.keys(run).filter((k) => isNumber(run[k]) === numeric && !isContext(k)),
      ),
    );
  const revNumeric = names(rev, true);
  const headNumeric = names(headRuns, true);
  const figures: FigureComparison[] = [];
  for (const name of headNumeric) {
    if (!revNumeric.has(name)) continue;
    const pairs = rev
      .map((run, i) => [run[name], headRuns[i]![name]] as const)
      .filter((pair): pair is readonly [number, number] => isNumber(pair[0]) && isNumber(pair[1]));
    const revValues = rev.map((run) => run[name]).filter(isNumber);
    const headValues = headRuns.map((run) => run[name]).filter(isNumber);
    const pairRatios = pairs.map(([r, h]) => h / r);
    const verdict = verdictOf(pairRatios);
    const dir = direction(name);
    const better = verdict === dir;
    const p = signTestP(pairRatios);
    const side =
      pairRatios.filter((r) => r > 1).length > pairRatios.length / 2 ? 'higher' : 'lower';
    figures.push({
      name,
      revName: revNameOf.get(name) ?? name,
      rev: revValues,
      head: headValues,
      revMedian: median(revValues),
      headMedian: median(headValues),
      ratio: median(headValues) / median(revValues),
      pairRatios,
      spread: [Math.min(...pairRatios), Math.max(...pairRatios)],
      verdict,
      p,
      claim: claimed.includes(name)
        ? p <= CLAIM_ALPHA / claimed.length
          ? `shown ${side}`
          : 'not shown'
        : null,
      atLeast:
        claimed.includes(name) && dir
          ? keeps(
              pairRatios.map((r) => (dir === 'higher' ? r : 1 / r)),
              margin,
              CLAIM_ALPHA / claimed.length,
            )
          : null,
      meaning:
        dir && (verdict === 'higher' || verdict === 'lower')
          ? better
            ? 'faster'
            : 'slower'
          : null,
    });
  }
  const context: Comparison['context'] = [];
  const contextNames = [...rev, ...headRuns].flatMap((run) =>
    Object.keys(run).filter((k) => isContext(k) || !isNumber(run[k])),
  );
  for (const name of new Set(contextNames)) {
    if (revNumeric.has(name) || headNumeric.has(name)) continue;
    const revValues = rev.map((run) => run[name]);
    const headValues = headRuns.map((run) => run[name]);
    const distinct = new Set([...revValues, ...headValues].map((v) => JSON.stringify(v)));
    if (distinct.size > 1) context.push({ name, rev: revValues, head: headValues });
  }
  const unknown = claimed.filter((name) => !figures.some((f) => f.name === name));
  if (unknown.length)
    throw new Error(
      `--claim names figures that both sides do not have: ${unknown.join(', ')} (the figures: ${figures.map((f) => f.name).join(', ')})`,
    );
  return {
    figures,
    noiseVerdicts: figures.reduce(
      (sum, f) => sum + (f.pairRatios.length >= MIN_PAIRS ? 2 / 2 ** f.pairRatios.length : 0),
      0,
    ),
    claims: { names: [...claimed], bound: claimed.length ? CLAIM_ALPHA / claimed.length : 0 },
    onlyRev: [...revNumeric]
      .filter((name) => !headNumeric.has(name))
      .map((n) => revNameOf.get(n) ?? n),
    onlyHead: [...headNumeric].filter((name) => !revNumeric.has(name)),
    context,
    unsteadyPairs: rev.flatMap((run, i) => {
      const [r, h] = [run[SPEED_PROBE], headRuns[i]![SPEED_PROBE]];
      return isNumber(r) && isNumber(h) && Math.abs(h / r - 1) > SPEED_TOLERANCE ? [i + 1] : [];
    }),
  };
}

/** A number as the table shows it: 4 significant digits, no exponent for the bench's sizes. */
function figure(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const abs = Math.abs(x);
  return abs >= 1000
    ? x.toFixed(0)
    : abs >= 100
      ? x.toFixed(1)
      : abs >= 1
        ? x.toFixed(2)
        : x.toPrecision(3);
}

/** The comparison as a plain-text table, one figure a line, then what differs besides. */
export function formatComparison(
  comparison: Comparison,
  labels: { rev: string; head: string },
): string {
  const header = [
    'figure',
    `${labels.rev} median`,
    `${labels.head} median`,
    'HEAD/REV',
    'pairs min–max',
    'p',
    'verdict',
  ];
  const rows = comparison.figures.map((f) => [
    f.revName === f.name ? f.name : `${f.name} (REV: ${f.revName})`,
    figure(f.revMedian),
    figure(f.headMedian),
    `${f.ratio.toFixed(3)}×`,
    `${f.spread[0].toFixed(3)}–${f.spread[1].toFixed(3)} (${f.pairRatios.length})`,
    f.p.toPrecision(2),
    (f.meaning ? `${f.verdict}: HEAD ${f.meaning}` : f.verdict) +
      (f.claim ? ` [claim: ${f.claim}` : '') +
      (f.atLeast
        ? `; ≥ ${f.atLeast.margin}× REV's speed: ${f.atLeast.shown ? 'shown' : 'not shown'}, ${f.atLeast.pairs} of ${f.pairRatios.length} pairs, p ${f.atLeast.p.toPrecision(2)}`
        : '') +
      (f.claim ? ']' : ''),
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
      .join('  ');
  const out = [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  if (comparison.onlyRev.length)
    out.push(`only in ${labels.rev}: ${comparison.onlyRev.join(', ')}`);
  if (comparison.onlyHead.length)
    out.push(`only in ${labels.head}: ${comparison.onlyHead.join(', ')}`);
  for (const c of comparison.context)
    out.push(
      `${c.name}: ${labels.rev} ${JSON.stringify(c.rev)}, ${labels.head} ${JSON.stringify(c.head)}`,
    );
  if (comparison.unsteadyPairs.length)
    out.push(
      `the machine's speed (${SPEED_PROBE}) differed by more than ${SPEED_TOLERANCE * 100}% within pairs ${comparison.unsteadyPairs.join(', ')}: their ratios mix the change with the machine's load`,
    );
  out.push(
    `A verdict other than "within noise" needs every pair (a ${labels.rev} run, then a ${labels.head} run) on the same side of 1, and at least ${MIN_PAIRS} pairs.`,
    `${comparison.figures.length} figures: by noise alone about ${comparison.noiseVerdicts.toFixed(1)} of them would read higher or lower, so a verdict on a figure nobody named before the run is a lead, not a finding.`,
    comparison.claims.names.length
      ? `Claimed before the run: ${comparison.claims.names.join(', ')}; each is shown where p <= ${CLAIM_ALPHA} / ${comparison.claims.names.length} = ${comparison.claims.bound.toPrecision(2)} (at ${comparison.figures[0]?.pairRatios.length ?? 0} pairs the smallest p is ${(2 / 2 ** (comparison.figures[0]?.pairRatios.length ?? 0)).toPrecision(2)}).`
      : `To claim a speed-up or deny a regression, name the figures with --claim FIGURE,... before the run.`,
  );
  return out.join('\n');
}
