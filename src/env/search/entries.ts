// The index's entry types and the one helper the data files share. Kept apart from index.ts so
// the data files can use them without an import cycle (index.ts imports the data).

/** One documented Python name. */
export interface DocEntry {
  /** The dotted name as Python resolves it, e.g. 'math.comb' or 'str.zfill'. */
  name: string;
  /** How it is called, e.g. 'math.comb(n, k)'. */
  signature: string;
  /** One or two sentences naming the behaviour in the words a task would use. */
  summary: string;
}

/** A search result: an entry and its relevance (higher is better). */
export interface DocHit extends DocEntry {
  score: number;
}

/**
 * Entries from `[signature, summary]` rows. The name is the signature up to its argument list, so
 * the two cannot drift apart (a test resolves every name in Python).
 */
export function entries(rows: readonly (readonly [string, string])[]): DocEntry[] {
  return rows.map(([signature, summary]) => ({
    name: signature.split('(')[0]!.trim(),
    signature,
    summary,
  }));
}
