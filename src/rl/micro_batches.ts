// Cutting a batch into micro-batches for the update and for scoring: sequences that share a
// prompt go together and run it once, each micro-batch bounded by a count of sequences and by the
// rows its forward pass runs (tokens); and whether a micro-batch recomputes its layers in the
// backward pass, from what it would otherwise keep (model_files/activation_budget.ts).
import { switches } from '../kernels/switches.ts';
import { isHalf } from '../model/half_weight.ts';
import type { CausalLM } from '../model/model.ts';
import { savedActivationBytes, type TrainingShape } from '../model_files/activation_budget.ts';

/**
 * Micro-batches as lists of sequence indexes, longest sequences first. A micro-batch is padded to
 * its longest sequence, and a step's trajectories range from one turn to several, so batching
 * similar lengths together wastes less compute on padding (attention's cost grows with length
 * squared). Sums over micro-batches do not depend on the grouping. Each holds at most
 * `microBatchSize` sequences and `microBatchTokens` forward rows (forwardRows), or one sequence.
 */
export function lengthSortedBatches(
  lengths: readonly number[],
  microBatchSize: number,
  microBatchTokens = Infinity,
): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[b]! - lengths[a]! || a - b);
  const batches: number[][] = [];
  for (let i = 0; i < order.length; ) {
    let end = i + 1;
    const longest = lengths[order[i]!]!;
    while (
      end < Math.min(order.length, i + microBatchSize) &&
      forwardRows(longest, end + 1 - i, 0) <= microBatchTokens
    )
      end++;
    batches.push(order.slice(i, end));
    i = end;
  }
  return batches;
}

/**
 * Rows tokenLogprobs runs for `size` sequences padded to `length` tokens sharing their first
 * `shared`: the shared ones once, then each sequence's rest (a sequence's last token predicts
 * nothing).
 */
export function forwardRows(length: number, size: number, shared: number): number {
  return shared > 0 && size > 1 ? shared + size * (length - 1 - shared) : size * (length - 1);
}

/**
 * A micro-batch: sequence indexes, and how many leading tokens they all share and run once (0:
 * none).
 */
export interface MicroBatch {
  indexes: number[];
  shared: number;
}

/**
 * A forward and backward pass's cost beyond its rows, in rows: measured on the demo model (wasm,
 * 2 threads), a pass took ~25 ms plus ~0.25 ms a row (the dispatch of its ~1000 kernels).
 */
const PASS_ROWS = 100;

/**
 * Micro-batches for sequences whose log-probs are wanted from token `firstScored[i]` on (the first
 * generated token). Sequences with the same tokens before that (a GRPO group's prompt) go
 * together: each micro-batch of several runs those tokens but the last once (tokenLogprobs
 * sharedPrefix), the last staying in each sequence as the input that predicts its first scored
 * token. A group, longest first, is cut into runs of at most microBatchSize where the rows they
 * make (the prompt once, each sequence's rest padded to the longest) plus PASS_ROWS a micro-batch
 * are fewest: lengths within a group vary widely (one turn or three), and padding costs as much
 * as a prompt. A micro-batch of several runs at most `microBatchTokens` rows (forwardRows); a
 * sequence longer than that runs alone. Without `firstScored`, or with shared prefixes turned off
 * (switches.sharedPrefixes): lengthSortedBatches, nothing shared.
 */
export function microBatches(
  sequences: readonly (readonly number[])[],
  microBatchSize: number,
  firstScored?: readonly number[],
  microBatchTokens = Infinity,
): MicroBatch[] {
  if (!firstScored || !switches.sharedPrefixes)
    return lengthSortedBatches(
      sequences.map((s) => s.length),
      microBatchSize,
      microBatchTokens,
    ).map((indexes) => ({ indexes, shared: 0 }));
  const groups = new Map<string, number[]>(); // in order of first appearance
  sequences.forEach((ids, i) => {
    const key = ids.slice(0, firstScored[i]).join(',');
    const members = groups.get(key);
    if (members) members.push(i);
    else groups.set(key, [i]);
  });
  return [...groups.values()].flatMap((members) => {
    const order = lengthSortedBatches(
      members.map((i) => sequences[i]!.length),
      members.length,
    )[0]!.map((j) => members[j]!);
    const shared = Math.max(0, firstScored[order[0]!]! - 1);
    const length = (i: number) => sequences[order[i]!]!.length;
    // best[i]: the cheapest cut of order[i..] (cost in rows, and where its first micro-batch ends)
    const best: { cost: number; end: number }[] = [];
    best[order.length] = { cost: 0, end: order.length };
    for (let i = order.length - 1; i >= 0; i--) {
      best[i] = { cost: Infinity, end: i + 1 };
      for (let end = i + 1; end <= Math.min(order.length, i + microBatchSize); end++) {
        const size = end - i;
        if (size > 1 && forwardRows(length(i), size, shared) > microBatchTokens) break;
        const rows = size > 1 ? shared + size * (length(i) - shared) : length(i);
        const cost = rows + PASS_ROWS + best[end]!.cost;
        if (cost < best[i]!.cost) best[i] = { cost, end };
      }
    }
    const batches: MicroBatch[] = [];
    for (let i = 0; i < order.length; i = best[i]!.end) {
      const indexes = order.slice(i, best[i]!.end);
      batches.push({ indexes, shared: indexes.length > 1 ? shared : 0 });
    }
    return batches;
  });
}

/** Index of the first 1 in an action mask (the first generated token), or the mask's length. */
export function firstAction(actionMask: readonly number[]): number {
  const index = actionMask.indexOf(1);
  return index < 0 ? actionMask.length : index;
}

/**
 * Whether a micro-batch of `batch` (sharing its first `shared` tokens) recomputes each layer in
 * the backward pass: when what it would otherwise keep for the backward pass passes the budget.
 */
export function needsRecompute(
  model: CausalLM,
  batch: readonly (readonly number[])[],
  shared: number,
  activationBudgetMB = 512,
): boolean {
  const length = Math.max(...batch.map((ids) => ids.length));
  const { training: mode, params } = model;
  const training: TrainingShape =
    mode.kind === 'lora'
      ? {
          kind: 'lora',
          rank: mode.lora.rank,
          targets: mode.lora.targetModules,
          frozen16: params.layers.some((layer) => isHalf(layer.projections.q_proj.weight)),
        }
      : { kind: 'full' };
  const rows = forwardRows(length, batch.length, shared);
  const bytes = savedActivationBytes(model.config, rows, length - 1, false, {
    training,
    batch: { sequences: batch.length, shared: batch.length > 1 ? shared : 0 },
  });
  return bytes > activationBudgetMB * 2 ** 20;
}
