// Writes test/fixtures/tokenizers/bytes/{tokenizer.json,tokenizer_config.json}: a byte-level BPE
// tokenizer with no merges (one token per UTF-8 byte, ids 0..255 in byte order) plus the three
// ChatML special tokens. Tiny test and demo models use it: any text round-trips, the vocabulary is
// 259, and chat rendering matches Qwen's ChatML layout. Run: npx tsx scripts/make-byte-tokenizer.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { byteLevelBpe } from '../src/cli/shape_tokenizer.ts';
import { CHATML_TEMPLATE } from '../src/tokenizer/chat_template.ts';

const outDir = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'test',
  'fixtures',
  'tokenizers',
  'bytes',
);

const special = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];
// the shape models' generator (src/cli/shape_tokenizer.ts) at 259 ids: the 256 bytes, no merges
const tokenizer = byteLevelBpe(
  256 + special.length,
  special.map((content, i) => ({ id: 256 + i, content })),
);

// ChatML as in Qwen2.5 without tools and without the default system prompt (each byte is a token
// here, so a default system message would cost ~60 tokens of every tiny model's context).
const chatTemplate = CHATML_TEMPLATE;

const config = {
  add_bos_token: false,
  add_prefix_space: false,
  added_tokens_decoder: Object.fromEntries(
    special.map((content, i) => [
      String(256 + i),
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
  additional_special_tokens: ['<|im_start|>', '<|im_end|>'],
  bos_token: null,
  chat_template: chatTemplate,
  clean_up_tokenization_spaces: false,
  eos_token: '<|im_end|>',
  errors: 'replace',
  model_max_length: 32768,
  pad_token: '<|endoftext|>',
  split_special_tokens: false,
  tokenizer_class: 'Qwen2Tokenizer',
  unk_token: null,
};

mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'tokenizer.json'), `${JSON.stringify(tokenizer, null, 2)}\n`);
writeFileSync(join(outDir, 'tokenizer_config.json'), `${JSON.stringify(config, null, 2)}\n`);
console.log(`wrote ${outDir}`);
