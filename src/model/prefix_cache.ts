// Keys and values of the token sequences generate() calls ended with, kept for a later call whose
// prompt extends one of them. Why: a multi-turn rollout samples each turn from the whole
// conversation, which is the previous turn's prompt and output plus the sandbox's answer; without
// this, every turn prefilled the whole conversation again (in the default run 35-45% of the
// generation time, most of it what the cache had held a turn before). With it, a turn prefills only
// what is new.
//
// An entry holds, per layer, (1, Hkv, L, hd) keys and values for its L token ids: a sequence's
// prompt and all its generated tokens but the last (whose keys nothing has computed yet). A prompt
// takes the longest entry that is a proper prefix of it, by exact token comparison, and consumes
// it (the sequence's next entry replaces it). The keys are valid for the weights they were computed
// with: whoever owns a PrefixCache clears it before the weights change (the rollout does at its
// end). Past `budget` numbers, the oldest entries go (they only cost a prefill).
import * as tf from '@tensorflow/tfjs';

/**
 * One cached sequence: its token ids and its per-layer keys and values, each (1, Hkv, ids.length,
 * hd).
 */
export interface PrefixEntry {
  ids: number[];
  keys: tf.Tensor[];
  values: tf.Tensor[];
}

/**
 * Most numbers (keys and values, all layers) the entries may hold by default: 16M, 64 MB. A rollout
 * of the demo model (18 episodes of up to ~500 tokens) needs ~11M.
 */
const DEFAULT_BUDGET = 1 << 24;

export class PrefixCache {
  private entries: PrefixEntry[] = [];
  private held = 0;
  /** Prompt tokens served from entries (tests, benchmarks). */
  reusedTokens = 0;

  constructor(private readonly budget = DEFAULT_BUDGET) {}

  /** Numbers the entries hold. */
  get numbers(): number {
    return this.held;
  }

  /** Entries held. */
  get size(): number {
    return this.entries.length;
  }

  /**
   * Removes and returns the longest entry whose ids are a proper prefix of `prompt` (at least one
   * token of the prompt left to run), or null. The caller owns its tensors.
   */
  take(prompt: readonly number[]): PrefixEntry | null {
    let best = -1;
    this.entries.forEach((entry, i) => {
      const n = entry.ids.length;
      if (n === 0 || n >= prompt.length || (best >= 0 && n <= this.entries[best]!.ids.length))
        return;
      for (let t = 0; t < n; t++) if (entry.ids[t] !== prompt[t]) return;
      best = i;
    });
    if (best < 0) return null;
    const [entry] = this.entries.splice(best, 1);
    this.held -= sizeOf(entry!);
    this.reusedTokens += entry!.ids.length;
    return entry!;
  }

  /** Adds an entry (taking ownership of its tensors), then drops the oldest while over budget. */
  put(entry: PrefixEntry): void {
    this.entries.push(entry);
    this.held += sizeOf(entry);
    while (this.entries.length > 0 && this.held > this.budget) {
      const oldest = this.entries.shift()!;
      this.held -= sizeOf(oldest);
      dispose(oldest);
    }
  }

  /**
   * Drops the entries a sequence that ends at `ids` left (those whose ids are a prefix of `ids`):
   * nothing extends them any more.
   */
  forget(ids: readonly number[]): void {
    const isPrefix = (entry: PrefixEntry) =>
      entry.ids.length <= ids.length && entry.ids.every((id, t) => id === ids[t]);
    for (const entry of this.entries.filter(isPrefix)) {
      this.entries.splice(this.entries.indexOf(entry), 1);
      this.held -= sizeOf(entry);
      dispose(entry);
    }
  }

  /** Drops every entry. */
  clear(): void {
    this.entries.forEach(dispose);
    this.entries = [];
    this.held = 0;
  }
}

/** Numbers an entry's tensors hold. */
const sizeOf = (entry: PrefixEntry) =>
  [...entry.keys, ...entry.values].reduce((sum, t) => sum + t.size, 0);

/** Frees an entry's tensors. */
export function dispose(entry: PrefixEntry): void {
  tf.dispose([...entry.keys, ...entry.values]);
}
