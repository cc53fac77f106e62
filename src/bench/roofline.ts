// What decoding's products can reach on this CPU, measured beside the model section's decoding
// figures, because decode_batch8_vs_batch1 depends on it more than on our code: a batch-1 step's
// products stream the weights once for one row, bound by the cache's bandwidth, while a batch-8
// step's do 8 times the arithmetic on the same stream, bound by the core's 128-bit fused
// multiply-adds. How far apart those two ceilings are is the CPU's, and it sets how much faster
// batch 8 can be than batch 1 (measured, the products alone: ~4× on the Intel VM of run (k) in
// docs/performance.md, ~2.2× on the Zen 5 EPYC VM of run (l), whose caches stream the weights
// about twice as fast).
//   fma_peak_gflops                           one thread: a loop of independent relaxed-SIMD
//                                             multiply-adds, no memory traffic (WebAssembly's
//                                             ceiling on this core)
//   step_products_batch{1,8}_gflops           one thread: one decoding step's products (the
//                                             model's 7 per layer and the output head) on the dot
//                                             kernel, weights warm, as
//                                             kernels/matmul/decode_products.ts runs them
//   step_products_batch8_vs_batch1            their throughput ratio, one thread
//   step_products_batch8_vs_batch1_threads    the same with the products split over model_threads
import type { ModelConfig } from '../model_files/hf_config.ts';
import { DotStore, type DotSplitter } from '../kernels/matmul/decode_products.ts';
import { MatmulThreads } from '../kernels/matmul/threads.ts';
import { FMA_CHAINS, fmaPeakModule } from '../kernels/simd/fma_peak.ts';

/** GFLOP/s of `iterations` x FMA_CHAINS independent 4-lane multiply-adds, the best of a few calls. */
export function fmaPeak(): number {
  const module = new WebAssembly.Module(fmaPeakModule());
  const fma = new WebAssembly.Instance(module, {
    env: { memory: new WebAssembly.Memory({ initial: 1 }) },
  }).exports.fma as (n: number) => void;
  const iterations = 4_000_000;
  let best = Infinity;
  for (let call = 0; call < 6; call++) {
    const start = performance.now();
    fma(iterations);
    best = Math.min(best, performance.now() - start);
  }
  return (iterations * FMA_CHAINS * 8) / best / 1e6;
}

/** The (n, k) shapes of one decoding step's products, as their transposed copies are stored. */
export function stepShapes(config: ModelConfig): [number, number][] {
  const { hiddenSize: D, intermediateSize: F, numHeads, numKvHeads, headDim, vocabSize } = config;
  const layer: [number, number][] = [
    [numHeads * headDim, D],
    [numKvHeads * headDim, D],
    [numKvHeads * headDim, D],
    [D, numHeads * headDim],
    [F, D],
    [F, D],
    [D, F],
  ];
  return [...Array.from({ length: config.numLayers }, () => layer).flat(), [vocabSize, D]];
}

/**
 * One decoding step's products (`shapes`, stepShapes') on weights of those shapes placed in
 * `store` under keyOf(i): time(m, split) runs them once at m rows (up to `rows`) and returns its
 * milliseconds; release() frees the copies. null where the store's budget cannot hold them (what
 * it placed is freed).
 */
export function stepProducts(
  store: DotStore,
  shapes: [number, number][],
  keyOf: (i: number) => number,
  rows: number,
): { time(m: number, split?: DotSplitter): number; release(): void } | null {
  const keys = shapes.map((_, i) => keyOf(i));
  const weights = shapes.map(([n, k], i) =>
    store.weight(keys[i]!, [], n * k, (into) => {
      for (let j = 0; j < into.length; j++) into[j] = Math.sin(j * 0.37 + i) * 0.05;
    }),
  );
  const release = () => keys.forEach((key) => store.release(key));
  if (weights.some((w) => w === null)) {
    release();
    return null;
  }
  const widest = Math.max(...shapes.map(([n, k]) => Math.max(n, k)));
  const source = new Float32Array(rows * widest).map((_, i) => Math.cos(i));
  const out = new Float32Array(rows * widest);
  return {
    time: (m, split) => {
      const start = performance.now();
      shapes.forEach(([n, k], i) =>
        store.product(
          () => source,
          0,
          m,
          k,
          weights[i]!,
          n,
          () => out,
          0,
          split,
        ),
      );
      return performance.now() - start;
    },
    release,
  };
}

/**
 * The roofline figures (see the file comment) for `config`'s shapes, with `helpers` helper threads
 * for the split ratio.
 */
export async function roofline(
  config: ModelConfig,
  helpers: number,
): Promise<Record<string, number>> {
  const store = DotStore.create(1 << 24);
  if (!store) return {}; // no relaxed SIMD: the dot kernel does not run
  const shapes = stepShapes(config);
  const products = stepProducts(store, shapes, (i) => i, 8)!; // a fresh 16 MB store: room for all
  const threads =
    helpers > 0 && store.shared ? await MatmulThreads.start(helpers, store.memory) : null;
  const stepMs = (m: number, split: boolean) => {
    const splitter = split && threads ? threads.splitDot.bind(threads) : undefined;
    let best = Infinity;
    // the best: these machines are shared, and the work is the same each time
    for (let rep = 0; rep < 300; rep++) best = Math.min(best, products.time(m, splitter));
    return best;
  };
  try {
    const macs = shapes.reduce((sum, [n, k]) => sum + n * k, 0);
    const [one1, one8] = [stepMs(1, false), stepMs(8, false)];
    const [split1, split8] = threads ? [stepMs(1, true), stepMs(8, true)] : [null, null];
    return {
      fma_peak_gflops: fmaPeak(),
      step_products_batch1_gflops: (2 * macs) / one1 / 1e6,
      step_products_batch8_gflops: (16 * macs) / one8 / 1e6,
      step_products_batch8_vs_batch1: (8 * one1) / one8,
      ...(split1 !== null && split8 !== null
        ? { step_products_batch8_vs_batch1_threads: (8 * split1) / split8 }
        : {}),
    };
  } finally {
    threads?.stop();
  }
}
