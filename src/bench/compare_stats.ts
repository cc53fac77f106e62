// The statistics and the table of `npm run bench -- --compare REV` (scripts/bench/compare.ts): the
// bench run alternately on REV and on the working tree, N times each, reduced to each figure's
// medians, the ratio HEAD / REV and the spread of the per-pair ratios. A pair is one REV run and
// the HEAD run right after it, so both saw the same minutes of a shared machine; a difference is
// claimed only when every pair agrees on its side of 1 (a sign test: with 5 pairs, a chance of
// 2 / 32 that noise alone does it), else the figure is "within noise". Pairs whose two runs saw
// the machine at different speeds (the FMA peak, which no change to our code moves) are named. No
// I/O here, so the test checks it on made-up runs.

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
  /** Where the verdict is higher or lower and the figure has a direction: HEAD faster or slower. */
  meaning: 'faster' | 'slower' | null;
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
}

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
  return {
    figures,
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
    'verdict',
  ];
  const rows = comparison.figures.map((f) => [
    f.revName === f.name ? f.name : `${f.name} (REV: ${f.revName})`,
    figure(f.revMedian),
    figure(f.headMedian),
    `${f.ratio.toFixed(3)}×`,
    `${f.spread[0].toFixed(3)}–${f.spread[1].toFixed(3)} (${f.pairRatios.length})`,
    f.meaning ? `${f.verdict}: HEAD ${f.meaning}` : f.verdict,
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
  );
  return out.join('\n');
}
