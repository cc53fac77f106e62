// The Tokenizer over the real Qwen3 tokenizer (ids checked against a from-scratch Python BPE and by
// hand against the vocabulary) and over our byte tokenizer; loading errors and fallbacks.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { directorySource } from '../../src/model_files/node_source.ts';
import { CHATML_TEMPLATE, loadTokenizer, type Tokenizer } from '../../src/tokenizer/index.ts';
import {
  BYTES_DIR,
  goldenChat,
  goldenQwenIds,
  memorySource,
  QWEN3_DIR,
  readJsonFile,
} from './helpers.ts';

const roundTrips = [
  'def add(a, b):\n\treturn a + b  # sum\n\n\n    x = add(1, 22)\n',
  'print("héllo wörld ✓ 😀 日本語")\t\t# tabs\t\n',
  '    \n\n\t  \r\n   trailing spaces   ',
  'Traceback (most recent call last):\n  File "<exec>", line 3, in <module>\nZeroDivisionError: division by zero',
  '',
];

describe('Qwen3 tokenizer (real, from node_modules)', () => {
  let qwen: Tokenizer;
  beforeAll(async () => {
    qwen = await loadTokenizer(directorySource(QWEN3_DIR));
  }, 60_000);

  it('has the special ids of the Qwen vocabulary', () => {
    // Hand-checked: Qwen2/2.5/3 put the added tokens right after the 151643 BPE tokens.
    expect(qwen.tokenToId('<|endoftext|>')).toBe(151643);
    expect(qwen.tokenToId('<|im_start|>')).toBe(151644);
    expect(qwen.tokenToId('<|im_end|>')).toBe(151645);
    expect(goldenQwenIds.special).toMatchObject({
      '<|im_start|>': 151644,
      '<|im_end|>': 151645,
      '<think>': 151667,
    });
    expect(qwen.bosId).toBeNull();
    expect(qwen.eosIds).toEqual([151645]);
    expect(qwen.padId).toBe(151643);
    expect(qwen.vocabSize).toBe(151669);
    expect(qwen.isSpecial(151645)).toBe(true);
    expect(qwen.isSpecial(198)).toBe(false);
  });

  it('encodes words to the ids their byte-level spelling has in the vocabulary', () => {
    // "Ġ" is the byte-level symbol for a space, "Ċ" for "\n".
    expect(qwen.encode('Hello world')).toEqual([qwen.tokenToId('Hello'), qwen.tokenToId('Ġworld')]);
    expect(qwen.encode('Hello world')).toEqual([9707, 1879]);
    expect(qwen.encode('\n')).toEqual([198]);
    expect(qwen.idToToken(198)).toBe('Ċ');
    expect(qwen.encode('user')).toEqual([872]);
    expect(qwen.encode('assistant')).toEqual([77091]);
    expect(qwen.idToToken(10_000_000)).toBeUndefined();
    expect(qwen.tokenToId('no such token, surely')).toBeUndefined();
  });

  for (const { text, ids } of goldenQwenIds.texts) {
    it(`matches the Python BPE on ${JSON.stringify(text.slice(0, 30))}`, () => {
      expect(qwen.encode(text)).toEqual(ids);
    });
  }

  it('renders and encodes a fixed agent conversation exactly as Jinja2 + the Python BPE do', () => {
    const golden = goldenChat.cases.find(
      (c) =>
        c.template === 'qwen3' && c.conversation === 'agent' && c.options.add_generation_prompt,
    )!;
    const text = qwen.applyChatTemplate(golden.messages, { addGenerationPrompt: true });
    expect(text).toBe(goldenQwenIds.chat.text);
    expect(qwen.encodeChat(golden.messages, { addGenerationPrompt: true })).toEqual(
      goldenQwenIds.chat.ids,
    );
    expect(goldenQwenIds.chat.ids.slice(0, 3)).toEqual([151644, 8948, 198]); // <|im_start|> system \n
    expect(goldenQwenIds.chat.ids.slice(-3)).toEqual([151644, 77091, 198]); // <|im_start|> assistant \n
  });

  for (const text of roundTrips) {
    it(`round-trips ${JSON.stringify(text.slice(0, 24))}`, () => {
      expect(qwen.decode(qwen.encode(text))).toBe(text);
    });
  }

  it('keeps or skips special tokens when decoding', () => {
    const ids = qwen.encode('<|im_start|>user\nhi<|im_end|>\n');
    expect(ids).toEqual([151644, 872, 198, 6023, 151645, 198]);
    expect(qwen.decode(ids)).toBe('<|im_start|>user\nhi<|im_end|>\n');
    expect(qwen.decode(ids, { skipSpecialTokens: true })).toBe('user\nhi\n');
  });

  it('warns that the Qwen3 template is not prefix-stable once the model thinks', () => {
    expect(qwen.warnings.join('\n')).toMatch(/not prefix-stable.*<think>/s);
  });
});

describe('byte tokenizer fixture', () => {
  let bytes: Tokenizer;
  beforeAll(async () => {
    bytes = await loadTokenizer(directorySource(BYTES_DIR));
  });

  it('maps each UTF-8 byte to the id of that byte', () => {
    const text = 'a\tb é😀\n';
    expect(bytes.encode(text)).toEqual([...new TextEncoder().encode(text)]);
    expect(bytes.vocabSize).toBe(259);
    expect(bytes.warnings).toEqual([]);
  });

  it('has ChatML specials, no bos, eos <|im_end|>, pad <|endoftext|>', () => {
    expect([
      bytes.tokenToId('<|endoftext|>'),
      bytes.tokenToId('<|im_start|>'),
      bytes.tokenToId('<|im_end|>'),
    ]).toEqual([256, 257, 258]);
    expect(bytes.bosId).toBeNull();
    expect(bytes.eosIds).toEqual([258]);
    expect(bytes.padId).toBe(256);
  });

  for (const text of roundTrips) {
    it(`round-trips ${JSON.stringify(text.slice(0, 24))}`, () => {
      expect(bytes.decode(bytes.encode(text))).toBe(text);
    });
  }

  it('renders ChatML and encodes the markup as single special ids', () => {
    const messages = [{ role: 'user', content: 'hi' }];
    expect(bytes.applyChatTemplate(messages, { addGenerationPrompt: true })).toBe(
      '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n',
    );
    expect(bytes.encodeChat(messages)).toEqual([257, 117, 115, 101, 114, 10, 104, 105, 258, 10]);
  });
});

describe('loadTokenizer errors and fallbacks', () => {
  const tokenizerJson = readJsonFile(join(BYTES_DIR, 'tokenizer.json'));
  const tokenizerConfig = readJsonFile(join(BYTES_DIR, 'tokenizer_config.json'));

  it('says what is missing when there is no tokenizer.json', async () => {
    await expect(loadTokenizer(memorySource({ 'config.json': {} }, 'my-model'))).rejects.toThrow(
      /my-model has no tokenizer.json.*tokenizer.model/,
    );
  });

  it('names the file when tokenizer.json is corrupt or not a tokenizer', async () => {
    await expect(
      loadTokenizer(
        memorySource(
          { 'tokenizer.json': '{"model": {', 'tokenizer_config.json': tokenizerConfig },
          'm',
        ),
      ),
    ).rejects.toThrow(/m\/tokenizer.json is not valid JSON/);
    await expect(
      loadTokenizer(memorySource({ 'tokenizer.json': { hello: 1 } }, 'm')),
    ).rejects.toThrow(/not a Hugging Face tokenizer file/);
  });

  it('falls back to ChatML with a warning when there is no chat template', async () => {
    const { chat_template: _dropped, ...config } = tokenizerConfig;
    const tokenizer = await loadTokenizer(
      memorySource({ 'tokenizer.json': tokenizerJson, 'tokenizer_config.json': config }),
    );
    expect(tokenizer.chatTemplate).toBe(CHATML_TEMPLATE);
    expect(tokenizer.warnings.join('\n')).toMatch(/no chat template; using plain ChatML/);
    expect(tokenizer.applyChatTemplate([{ role: 'user', content: 'x' }])).toBe(
      '<|im_start|>user\nx<|im_end|>\n',
    );
  });

  it('loads without tokenizer_config.json, warning that roles are unknown', async () => {
    const tokenizer = await loadTokenizer(memorySource({ 'tokenizer.json': tokenizerJson }));
    expect(tokenizer.eosIds).toEqual([]);
    expect(tokenizer.warnings.join('\n')).toMatch(/no tokenizer_config.json/);
  });

  it('prefers chat_template.jinja and adds generation_config eos ids', async () => {
    const tokenizer = await loadTokenizer(
      memorySource({
        'tokenizer.json': tokenizerJson,
        'tokenizer_config.json': tokenizerConfig,
        'chat_template.jinja':
          '{% for m in messages %}[{{ m.role }}] {{ m.content }}{{ eos_token }}{% endfor %}',
        'generation_config.json': { eos_token_id: [258, 256] },
      }),
    );
    expect(tokenizer.applyChatTemplate([{ role: 'user', content: 'x' }])).toBe(
      '[user] x<|im_end|>',
    );
    expect(tokenizer.eosIds).toEqual([258, 256]);
  });

  it('accepts the named-list chat_template form and AddedToken objects for special tokens', async () => {
    const tokenizer = await loadTokenizer(
      memorySource({
        'tokenizer.json': tokenizerJson,
        'tokenizer_config.json': {
          ...tokenizerConfig,
          eos_token: { content: '<|endoftext|>', __type: 'AddedToken' },
          chat_template: [
            { name: 'tool_use', template: 'tools' },
            { name: 'default', template: 'default {{ eos_token }}' },
          ],
        },
      }),
    );
    expect(tokenizer.eosIds).toEqual([256]);
    expect(tokenizer.applyChatTemplate([{ role: 'user', content: 'x' }])).toBe(
      'default <|endoftext|>',
    );
  });

  it('refuses special tokens that are not in the vocabulary, and bad eos_token_id', async () => {
    await expect(
      loadTokenizer(
        memorySource({
          'tokenizer.json': tokenizerJson,
          'tokenizer_config.json': { ...tokenizerConfig, eos_token: '</s>' },
        }),
      ),
    ).rejects.toThrow(/eos_token "<\/s>", which is not in tokenizer.json's vocabulary/);
    await expect(
      loadTokenizer(
        memorySource({
          'tokenizer.json': tokenizerJson,
          'tokenizer_config.json': tokenizerConfig,
          'generation_config.json': { eos_token_id: 'x' },
        }),
      ),
    ).rejects.toThrow(/eos_token_id must be an id or a list of ids/);
  });
});
