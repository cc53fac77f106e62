// The per-token fixed overhead of cached decoding, as its own figure so drift in it shows: what a
// decoding step costs at batch 1 with almost no context, minus what its products alone cost. At the
// benchmark model's size the products are a minority of a step (one row against 15.6 MB of
// weights), so the rest (tfjs's dispatch of ~50 kernels, the small kernels, reading the logits,
// sampling, generate()'s bookkeeping, allocations) is what a change to the decoder's interface or
// the fast-path seam moves.
//   decode_token_ms            median of one step of generate()'s loop at batch 1, 1-8 tokens of
//                              context (the forward of the last token, its logits read, a token
//                              sampled, the stop tests): the time between two shouldStop calls
//   decode_token_products_ms   median of that step's 29 products alone (the model's 7 a layer and
//                              the output head) on the dot kernel, on weights of the same shapes in
//                              the same store, split over the helper threads as decoding splits them
//   decode_token_overhead_ms   the first minus the second
// The two are measured in turns (a generate() call, then as many product steps as it had steps),
// so both see the same minutes of a shared machine.
import { dotStore } from '../kernels/matmul/decode_products.ts';
import { matmulThreads } from '../kernels/matmul/kernels.ts';
import { switches } from '../kernels/switches.ts';
import type { CausalLM } from '../model/model.ts';
import { generate } from '../model/sample.ts';
import { median } from './model_setup.ts';
import { stepProducts, stepShapes } from './roofline.ts';

/** Steps a generate() call times: contexts 1 to STEPS. */
const STEPS = 8;

/**
 * The three figures above for `model` (the benchmark's, warmed up), over `rounds` generate() calls.
 */
export async function tokenOverhead(model: CausalLM, rounds = 40): Promise<Record<string, number>> {
  const products = stepProductsOf(model);
  if (!products) return {}; // no dot kernel (no relaxed SIMD): nothing to subtract
  const steps: number[] = [];
  const productSteps: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const stamps: number[] = [];
      await generate(model, [[1]], {
        temperature: 1,
        seed: round,
        eosIds: [],
        maxNewTokens: STEPS + 1,
        shouldStop: () => {
          stamps.push(performance.now());
          return false;
        },
      });
      for (let i = 1; i < stamps.length; i++) steps.push(stamps[i]! - stamps[i - 1]!);
      for (let i = 0; i < STEPS; i++) productSteps.push(products.step());
    }
  } finally {
    products.release();
  }
  const token = median(steps);
  const productsMs = median(productSteps);
  return {
    decode_token_ms: token,
    decode_token_products_ms: productsMs,
    decode_token_overhead_ms: token - productsMs,
  };
}

/**
 * One decoding step's products at batch 1 on weights of the model's shapes, in the dot store that
 * decoding uses, split as its dot-product kernel splits them; null without that store or room in it.
 */
function stepProductsOf(model: CausalLM): { step(): number; release(): void } | null {
  const store = dotStore();
  if (!store) return null;
  // keys below every tensor id, so these copies never meet a weight's
  const products = stepProducts(store, stepShapes(model.config), (i) => -1 - i, 1);
  if (!products) return null; // the copies' budget is spent
  return {
    step: () => {
      const threads = switches.dotProductThreads ? matmulThreads() : null;
      return products.time(1, threads ? threads.splitDot.bind(threads) : undefined);
    },
    release: products.release,
  };
}
