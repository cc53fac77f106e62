// The search tool's offline index: a few hundred hand-written entries on Python's builtins and the
// stdlib modules a beginner task uses, ranked by BM25+. MiniSearch does the ranking (a small
// zero-dependency library: BM25+ with per-field boosts and prefix matching); this file supplies
// the text normalisation, which is what makes a task's wording meet an entry's.
import MiniSearch from 'minisearch';
import { BUILTIN_DOCS } from './docs_builtins.ts';
import { ITER_DOCS } from './docs_iter.ts';
import { MATH_DOCS } from './docs_math.ts';
import { METHOD_DOCS } from './docs_methods.ts';
import { TEXT_DOCS } from './docs_text.ts';
import type { DocEntry, DocHit } from './entries.ts';

export type { DocEntry, DocHit } from './entries.ts';

export const DOC_ENTRIES: readonly DocEntry[] = [
  ...BUILTIN_DOCS,
  ...METHOD_DOCS,
  ...MATH_DOCS,
  ...ITER_DOCS,
  ...TEXT_DOCS,
];

/**
 * Words that carry no meaning for a lookup. Task prompts are full of them ("print the ... of a
 * list using the standard library"), and each one left in would add a little score to every entry
 * that happens to use it. "without", "not" and "all" stay: they tell combinations from
 * permutations and `all` from `any`.
 */
const STOPWORDS = new Set(
  (
    'a an the of to in on at by for from into onto with as is are be been was were it its this ' +
    'that these those and or but so if then than there their which what how do does did can ' +
    'could should would will i me my we our you your he she they them use using used python ' +
    'function functions method library stdlib module builtin built give gives get ' +
    'return returns compute calculate want need'
  ).split(' '),
);

/**
 * A tiny suffix stripper, enough for a task's inflections to meet the summaries' ("choosing" and
 * "choose", "combinations" and "combination", "arranged" and "arrangements"). Porter's full
 * algorithm would do better on rare words; the index is small and written to match.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  for (const suffix of ['ing', 'ed']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length);
      // "sorted" -> "sort", but "running" -> "runn" -> "run".
      if (/([^aeiouls])\1$/.test(w)) w = w.slice(0, -1);
      break;
    }
  }
  if (w.endsWith('ment') && w.length > 7) w = w.slice(0, -4);
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

/** The longest query that is read; the rest of a very long query is ignored. */
const MAX_QUERY_CHARS = 500;

/**
 * Words of a text: runs of letters and digits, identifiers split on '.', '_' and camel case
 * ("collections.OrderedDict" -> collections, ordered, dict). Numbers alone are dropped: a task's
 * "choose 3 items from 10" should not match an example's digits.
 */
function tokenize(text: string): string[] {
  const words = text
    .normalize('NFKC')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u);
  return words.filter((word) => word !== '' && !/^\d+$/.test(word));
}

function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return STOPWORDS.has(lower) ? null : stem(lower);
}

/** Field weights: a name's words weigh most. */
const BOOST = { name: 1.5, signature: 0.5, summary: 1 } as const;
/** The shortest query word that also matches as a prefix. */
const PREFIX_MIN_LENGTH = 4;

let index: MiniSearch<DocEntry & { id: number }> | null = null;

/** Built on first use (a few ms) rather than at import, so importing the tool list costs nothing. */
function getIndex(): MiniSearch<DocEntry & { id: number }> {
  if (index) return index;
  index = new MiniSearch<DocEntry & { id: number }>({
    fields: ['name', 'signature', 'summary'],
    storeFields: [],
    tokenize,
    processTerm,
    searchOptions: {
      // A name's words weigh most: "median" should find statistics.median before the entries
      // that only mention a median.
      boost: { ...BOOST },
      // Prefix matching for words of 4+ letters, so "permut" meets "permutation" and "comb"
      // meets "combinations"; shorter prefixes match too much.
      prefix: (term) => term.length >= PREFIX_MIN_LENGTH,
      fuzzy: false,
      combineWith: 'OR',
    },
  });
  index.addAll(DOC_ENTRIES.map((entry, id) => ({ ...entry, id })));
  return index;
}

/**
 * The k entries that best match the query, best first. Deterministic: equal scores are ordered by
 * name. A query with no searchable words (empty, punctuation, only stopwords) finds nothing.
 */
export function searchDocs(query: string, k = 3): DocHit[] {
  const limit = Number.isFinite(k) ? Math.max(0, Math.floor(k)) : 0;
  if (limit === 0 || typeof query !== 'string') return [];
  // Task prompts often say "using the standard library": that "standard" is no standard deviation.
  const text = query.slice(0, MAX_QUERY_CHARS).replace(/\bstandard\s+library\b/gi, ' ');
  const results = getIndex().search(text);
  const hits = results.map((result) => {
    const entry = DOC_ENTRIES[result.id as number]!;
    return {
      name: entry.name,
      signature: entry.signature,
      summary: entry.summary,
      score: result.score,
    };
  });
  hits.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return hits.slice(0, limit);
}

/** The observation the agent reads after a search (the spec's fixed format). */
export function formatSearchResults(_query: string, hits: readonly DocHit[]): string {
  if (hits.length === 0) return 'Search results: nothing matched. Try other words.';
  const lines = hits.slice(0, 3).map((hit, i) => `${i + 1}. ${hit.signature}\n   ${hit.summary}`);
  return `Search results:\n${lines.join('\n')}`;
}

/**
 * Everything the TRL export's Python port of this search needs, as plain data (docs/trl_export.md):
 * the entries, the stopwords, the query options, and MiniSearch's own serialized index (its terms
 * in the index's iteration order, which fixes the order a prefix's matches add up in, and its
 * field lengths), so the port only tokenizes the query and scores. The IDF table holds
 * MiniSearch's log term for every possible document count, computed by V8's Math.log: the port
 * reads it instead of calling its own libm, whose last bit may differ.
 */
export function searchIndexData(): Record<string, unknown> {
  const json = getIndex().toJSON() as unknown as {
    documentCount: number;
    documentIds: Record<string, number>;
    fieldIds: Record<string, number>;
    fieldLength: Record<string, number[]>;
    averageFieldLength: number[];
    index: [string, Record<string, Record<string, number>>][];
    serializationVersion: number;
  };
  const n = json.documentCount;
  const idf = Array.from({ length: n + 1 }, (_, m) => Math.log(1 + (n - m + 0.5) / (m + 0.5)));
  return {
    entries: DOC_ENTRIES.map(({ name, signature, summary }) => ({ name, signature, summary })),
    stopwords: [...STOPWORDS],
    max_query_chars: MAX_QUERY_CHARS,
    fields: ['name', 'signature', 'summary'],
    boost: BOOST,
    prefix_min_length: PREFIX_MIN_LENGTH,
    prefix_weight: 0.375,
    bm25: { k: 1.2, b: 0.7, d: 0.5 },
    idf,
    document_count: n,
    document_ids: json.documentIds,
    field_ids: json.fieldIds,
    field_length: json.fieldLength,
    average_field_length: json.averageFieldLength,
    index: json.index,
    serialization_version: json.serializationVersion,
  };
}
