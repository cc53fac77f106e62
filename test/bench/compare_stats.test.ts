// The statistics and table of `npm run bench -- --compare REV` (src/bench/compare_stats.ts) on
// made-up runs: medians, HEAD / REV, the pairs' spread, and a verdict only where every pair agrees.
import { describe, expect, it } from 'vitest';
import {
  compareRuns,
  direction,
  formatComparison,
  median,
  signTestP,
  verdictOf,
} from '../../src/bench/compare_stats.ts';

describe('bench comparison statistics', () => {
  it('takes the median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('knows which way is better from the figure name', () => {
    expect(direction('decode_cached_tok_s')).toBe('higher');
    expect(direction('fma_peak_gflops')).toBe('higher');
    expect(direction('train_step_threads_speedup')).toBe('higher');
    expect(direction('train_step_ms')).toBe('lower');
    expect(direction('decode_cached_vs_uncached')).toBeNull(); // a ratio of two paths
    expect(direction('train_step_vs_pytorch')).toBeNull();
    expect(direction('cpus')).toBeNull();
  });

  it('claims a difference only when every pair is on the same side of 1', () => {
    expect(verdictOf([1.1, 1.2, 1.05])).toBe('higher');
    expect(verdictOf([0.9, 0.8, 0.99, 0.7, 0.95])).toBe('lower');
    expect(verdictOf([0.9, 0.8, 1.01, 0.7, 0.95])).toBe('within noise');
    expect(verdictOf([0.5, 0.5])).toBe('too few pairs');
    expect(verdictOf([1, 1.2, 1.3])).toBe('within noise'); // a tie is not a side
  });

  it('reduces paired runs to medians, the ratio, the spread and a verdict', () => {
    const rev = [
      { decode_cached_tok_s: 500, train_step_ms: 300, model_backend: 'wasm' },
      { decode_cached_tok_s: 400, train_step_ms: 320, model_backend: 'wasm' },
      { decode_cached_tok_s: 600, train_step_ms: 310, model_backend: 'wasm' },
    ];
    const head = [
      { decode_cached_tok_s: 550, train_step_ms: 290, model_backend: 'wasm' },
      { decode_cached_tok_s: 480, train_step_ms: 330, model_backend: 'wasm' },
      { decode_cached_tok_s: 630, train_step_ms: 300, model_backend: 'wasm' },
    ];
    const { figures, context, onlyRev, onlyHead } = compareRuns(rev, head);
    const decode = figures.find((f) => f.name === 'decode_cached_tok_s')!;
    expect(decode.revMedian).toBe(500);
    expect(decode.headMedian).toBe(550);
    expect(decode.ratio).toBeCloseTo(1.1, 12);
    expect(decode.pairRatios).toEqual([1.1, 1.2, 1.05]);
    expect(decode.spread).toEqual([1.05, 1.2]);
    expect(decode.verdict).toBe('higher');
    expect(decode.meaning).toBe('faster');
    const step = figures.find((f) => f.name === 'train_step_ms')!;
    expect(step.ratio).toBeCloseTo(300 / 310, 12);
    expect(step.verdict).toBe('within noise'); // one pair slower, two faster
    expect(step.meaning).toBeNull();
    expect(context).toEqual([]); // the backend is the same on both sides
    expect([onlyRev, onlyHead]).toEqual([[], []]);
  });

  it('says a slower HEAD is slower, for times as for rates', () => {
    const rev = [1, 2, 3].map(() => ({ train_step_ms: 100, decode_batch1_tok_s: 1000 }));
    const head = [1, 2, 3].map((i) => ({ train_step_ms: 110 + i, decode_batch1_tok_s: 900 - i }));
    const { figures } = compareRuns(rev, head);
    expect(figures.map((f) => [f.name, f.verdict, f.meaning])).toEqual([
      ['train_step_ms', 'higher', 'slower'],
      ['decode_batch1_tok_s', 'lower', 'slower'],
    ]);
  });

  it('maps renamed figures, lists the unmatched ones and the context that differs', () => {
    const rev = [{ old_name_ms: 10, gone_ms: 1, pytorch_blas: '/a/libblas.so.3' }];
    const head = [{ new_name_ms: 12, added_ms: 2, pytorch_blas: '/b/libopenblas.so.0' }];
    const plain = compareRuns(rev, head);
    expect(plain.figures).toEqual([]);
    expect(plain.onlyRev).toEqual(['old_name_ms', 'gone_ms']);
    expect(plain.onlyHead).toEqual(['new_name_ms', 'added_ms']);
    const mapped = compareRuns(rev, head, { old_name_ms: 'new_name_ms' });
    expect(mapped.figures.map((f) => [f.name, f.revName, f.ratio])).toEqual([
      ['new_name_ms', 'old_name_ms', 1.2],
    ]);
    expect(mapped.onlyRev).toEqual(['gone_ms']);
    expect(mapped.context).toEqual([
      { name: 'pytorch_blas', rev: ['/a/libblas.so.3'], head: ['/b/libopenblas.so.0'] },
    ]);
  });

  it('keeps the setup (CPUs, threads) and sometimes-null figures out of the context', () => {
    const rev = [1, 2, 3].map((i) => ({
      cpus: 2,
      model_threads: 2,
      train_step_threads_speedup: 1.2,
      pytorch_train_step_ms: i === 1 ? null : 150,
    }));
    const head = [1, 2, 3].map(() => ({
      cpus: 2,
      model_threads: 4,
      train_step_threads_speedup: 1.3,
      pytorch_train_step_ms: 140,
    }));
    const { figures, context } = compareRuns(rev, head);
    expect(figures.map((f) => [f.name, f.pairRatios.length])).toEqual([
      ['train_step_threads_speedup', 3],
      ['pytorch_train_step_ms', 2], // the run without PyTorch pairs nothing
    ]);
    expect(context).toEqual([{ name: 'model_threads', rev: [2, 2, 2], head: [4, 4, 4] }]);
  });

  it('names the pairs whose runs saw the machine at different speeds', () => {
    const rev = [50, 50, 40, 50].map((peak) => ({ fma_peak_gflops: peak, train_step_ms: 300 }));
    const head = [52, 40, 50, 55.5].map((peak) => ({ fma_peak_gflops: peak, train_step_ms: 300 }));
    const comparison = compareRuns(rev, head);
    expect(comparison.unsteadyPairs).toEqual([2, 3, 4]); // 0.8, 1.25, 1.11: more than 10% apart
    expect(formatComparison(comparison, { rev: 'a', head: 'b' })).toMatch(
      /fma_peak_gflops\) differed by more than 10% within pairs 2, 3, 4/,
    );
    expect(compareRuns(rev.slice(0, 1), head.slice(0, 1)).unsteadyPairs).toEqual([]);
  });

  it('skips a run that lacks a figure in its pair, and refuses unpaired runs', () => {
    const rev = [{ x_ms: 10 }, { x_ms: 10 }, { x_ms: 10 }, { x_ms: 10 }];
    const head = [{ x_ms: 9 }, {}, { x_ms: 8 }, { x_ms: 9.5 }];
    const [x] = compareRuns(rev, head).figures;
    expect(x!.pairRatios).toEqual([0.9, 0.8, 0.95]);
    expect(x!.verdict).toBe('lower');
    expect(() => compareRuns(rev, head.slice(1))).toThrow(/4 REV runs against 3 HEAD runs/);
  });

  it('prints one line a figure with both medians, the ratio, the spread and the verdict', () => {
    const rev = [500, 400, 600].map((v) => ({ decode_cached_tok_s: v, train_step_ms: 300 }));
    const head = [450, 380, 500].map((v, i) => ({
      decode_cached_tok_s: v,
      train_step_ms: [290, 310, 300][i]!,
    }));
    const text = formatComparison(compareRuns(rev, head), { rev: 'eb03784', head: 'HEAD' });
    const lines = text.split('\n');
    expect(lines[0]).toMatch(
      /^figure\s+eb03784 median\s+HEAD median\s+HEAD\/REV\s+pairs min–max\s+p\s+verdict$/,
    );
    const decode = lines.find((l) => l.startsWith('decode_cached_tok_s'))!;
    expect(decode).toMatch(
      /500\.0\s+450\.0\s+0\.900×\s+0\.833–0\.950 \(3\)\s+0\.25\s+lower: HEAD slower$/,
    );
    const step = lines.find((l) => l.startsWith('train_step_ms'))!;
    expect(step).toMatch(/300\.0\s+300\.0\s+1\.000×\s+0\.967–1\.033 \(3\)\s+1\.0\s+within noise$/);
    expect(text).toMatch(/every pair .* on the same side of 1, and at least 3 pairs/);
    // 2 figures at 3 pairs: 2 x 2/8 verdicts by noise alone
    expect(text).toMatch(/2 figures: by noise alone about 0\.5 of them would read higher or lower/);
    expect(lines.at(-1)).toMatch(/name the figures with --claim/);
  });

  it("gives the sign test's two-sided p, worked by hand", () => {
    expect(signTestP([0.9, 0.8, 0.7, 0.95, 0.99])).toBe(2 / 32); // 5 of 5 below
    expect(signTestP([0.9, 0.8, 0.7, 0.95, 1.1])).toBe((2 * (1 + 5)) / 32); // 4 of 5
    // 8 of 9 below: 2 (C(9,8) + C(9,9)) / 512
    expect(signTestP([0.66, 0.91, 1.01, 0.91, 0.91, 0.75, 0.74, 0.63, 0.9])).toBeCloseTo(
      20 / 512,
      15,
    );
    expect(signTestP([1.1, 0.9])).toBe(1); // 1 of 2 each side: 2 x 3/4, capped
    expect(signTestP([1, 1, 1.2])).toBe(1); // ties dropped: one pair left
    expect(signTestP([])).toBe(1);
  });

  it('holds a claim to the bound for every figure claimed, and refuses an unknown one', () => {
    const rev = Array.from({ length: 9 }, () => ({ a_ms: 100, b_ms: 100, c_ms: 100 }));
    const head = Array.from({ length: 9 }, (_, i) => ({
      a_ms: 90, // every pair lower: p = 2/512
      b_ms: i === 0 ? 101 : 95, // 8 of 9 lower: p = 20/512 ~ 0.039
      c_ms: 100 + (i % 2 ? 1 : -1),
    }));
    const one = compareRuns(rev, head, {}, ['b_ms']);
    expect(one.figures.find((f) => f.name === 'b_ms')!.claim).toBe('shown lower'); // 0.039 <= 0.05
    expect(one.figures.find((f) => f.name === 'a_ms')!.claim).toBeNull(); // not claimed
    const two = compareRuns(rev, head, {}, ['a_ms', 'b_ms']);
    expect(two.claims.bound).toBe(0.025);
    expect(two.figures.map((f) => f.claim)).toEqual(['shown lower', 'not shown', null]);
    expect(two.noiseVerdicts).toBeCloseTo(3 * (2 / 512), 15);
    const text = formatComparison(two, { rev: 'r', head: 'h' });
    expect(text).toMatch(/a_ms .*lower: HEAD faster \[claim: shown lower; /);
    expect(text).toMatch(
      /Claimed before the run: a_ms, b_ms; each is shown where p <= 0\.05 \/ 2 = 0\.025/,
    );
    // no regression: HEAD at least 0.95 of REV's speed, pair by pair (a time's speed is 1 / time)
    expect(two.figures[0]!.atLeast).toEqual({ margin: 0.95, pairs: 9, p: 1 / 512, shown: true });
    expect(two.figures[1]!.atLeast).toMatchObject({ pairs: 9, shown: true }); // 100 / 101 >= 0.95
    expect(two.figures[2]!.atLeast).toBeNull(); // not claimed
    const rates = compareRuns(
      Array.from({ length: 9 }, () => ({ x_tok_s: 1000 })),
      Array.from({ length: 9 }, (_, i) => ({ x_tok_s: i < 6 ? 960 : 900 })), // 6 of 9 keep 0.95
      {},
      ['x_tok_s'],
    ).figures[0]!;
    expect(rates.claim).toBe('shown lower'); // every pair below 1: p = 2/512
    // 6 or more of 9 by chance: (84 + 36 + 9 + 1) / 512 = 0.254
    expect(rates.atLeast).toEqual({ margin: 0.95, pairs: 6, p: 130 / 512, shown: false });
    expect(formatComparison(compareRuns(rev, head, {}, ['a_ms']), { rev: 'r', head: 'h' })).toMatch(
      /\[claim: shown lower; ≥ 0\.95× REV's speed: shown, 9 of 9 pairs, p 0\.0020\]/,
    );
    expect(() => compareRuns(rev, head, {}, ['decode_tok_s'])).toThrow(
      /--claim names figures that both sides do not have: decode_tok_s/,
    );
  });
});
