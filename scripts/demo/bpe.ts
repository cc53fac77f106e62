// Byte-level BPE training (GPT-2 style) for the demo model's tokenizer. Writes a tokenizer.json
// that @huggingface/tokenizers loads like any hub tokenizer: ByteLevel pre-tokenizer (GPT-2 regex),
// BPE model with our merges, ByteLevel decoder, and the chat special tokens as added tokens.

/** GPT-2's pre-tokenization regex, the one the ByteLevel pre-tokenizer applies at encode time. */
const PRETOKENIZE = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/**
 * GPT-2's reversible byte → printable-unicode map (bytes that are already printable map to
 * themselves).
 */
export function bytesToUnicode(): string[] {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const table: string[] = new Array<string>(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    table[b] = printable.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + extra++);
  }
  return table;
}

export interface BpeOptions {
  /** Total vocabulary size including the 256 byte symbols and the special tokens. */
  vocabSize: number;
  /** Special tokens, given ids right after the byte symbols (in this order). */
  specialTokens: string[];
  /** Pairs seen fewer times than this are not merged. */
  minFrequency?: number;
}

export interface BpeResult {
  vocab: Map<string, number>;
  merges: [string, string][];
  /** The tokenizer.json object. */
  tokenizerJson: Record<string, unknown>;
}

/**
 * Learns merges over `texts`. Special tokens are cut out of the text before counting, as the
 * tokenizer never merges across them. Deterministic: ties break on the pair's string order.
 */
export function trainBpe(texts: string[], options: BpeOptions): BpeResult {
  const byteMap = bytesToUnicode();
  const encoder = new TextEncoder();
  const specialPattern = new RegExp(options.specialTokens.map(escapeRegExp).join('|'), 'g');

  // Word frequencies over byte-mapped pre-tokens.
  const wordCounts = new Map<string, number>();
  for (const text of texts) {
    for (const chunk of text.split(specialPattern)) {
      for (const piece of chunk.match(PRETOKENIZE) ?? []) {
        const mapped = Array.from(encoder.encode(piece), (b) => byteMap[b]!).join('');
        wordCounts.set(mapped, (wordCounts.get(mapped) ?? 0) + 1);
      }
    }
  }
  const words = [...wordCounts.entries()].map(([word, count]) => ({
    symbols: Array.from(word),
    count,
  }));

  const vocab = new Map<string, number>();
  for (let b = 0; b < 256; b++) vocab.set(byteMap[b]!, b);
  const firstSpecialId = 256;
  const mergeBudget = options.vocabSize - 256 - options.specialTokens.length;
  const merges: [string, string][] = [];
  const minFrequency = options.minFrequency ?? 2;

  while (merges.length < mergeBudget) {
    const pairCounts = new Map<string, number>();
    for (const { symbols, count } of words) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        const key = `${symbols[i]}\u0000${symbols[i + 1]}`;
        pairCounts.set(key, (pairCounts.get(key) ?? 0) + count);
      }
    }
    let best: string | null = null;
    let bestCount = 0;
    for (const [key, count] of pairCounts) {
      if (count > bestCount || (count === bestCount && best !== null && key < best)) {
        best = key;
        bestCount = count;
      }
    }
    if (best === null || bestCount < minFrequency) break;
    const [left, right] = best.split('\u0000') as [string, string];
    merges.push([left, right]);
    const merged = left + right;
    for (const word of words) {
      const s = word.symbols;
      for (let i = 0; i + 1 < s.length; i++) {
        if (s[i] === left && s[i + 1] === right) s.splice(i, 2, merged);
      }
    }
  }

  // Ids: bytes 0..255, then specials, then merges in order (their order is their rank).
  const modelVocab: Record<string, number> = {};
  for (const [token, id] of vocab) modelVocab[token] = id;
  let nextId = firstSpecialId + options.specialTokens.length;
  for (const [left, right] of merges) {
    const token = left + right;
    if (modelVocab[token] === undefined) modelVocab[token] = nextId++;
  }
  const finalVocab = new Map(Object.entries(modelVocab));
  options.specialTokens.forEach((token, index) => finalVocab.set(token, firstSpecialId + index));

  const tokenizerJson = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: options.specialTokens.map((content, index) => ({
      id: firstSpecialId + index,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: {
      type: 'ByteLevel',
      add_prefix_space: false,
      trim_offsets: true,
      use_regex: true,
    },
    post_processor: {
      type: 'ByteLevel',
      add_prefix_space: false,
      trim_offsets: true,
      use_regex: true,
    },
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: modelVocab,
      merges: merges.map(([left, right]) => [left, right]),
    },
  };
  return { vocab: finalVocab, merges, tokenizerJson };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
