// Token-in/token-out turns: the ids appended after the model's own tokens must make the context
// equal to encoding the whole re-rendered conversation, and templates that rewrite the past must be
// caught. Checked on the byte tokenizer, the real Qwen3 tokenizer and the Llama-style template.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { directorySource } from '../../src/model_files/node_source.ts';
import {
  assistantContent,
  createTokenizer,
  encodeChatDelta,
  findPrefixBreak,
  loadTokenizer,
  type ChatMessage,
  type Tokenizer,
} from '../../src/tokenizer/index.ts';
import { BYTES_DIR, QWEN3_DIR, readJsonFile, TEMPLATES_DIR } from './helpers.ts';

const system: ChatMessage = { role: 'system', content: 'Solve tasks with Python.' };
const task: ChatMessage = { role: 'user', content: 'Print 6*7.' };
const observation: ChatMessage = { role: 'user', content: 'Output:\n42\n' };
const code = '```python\nprint(6*7)\n```';

/** Simulates the agent loop for one sampled turn: prompt ids + sampled ids + delta ids. */
function oneTurn(tokenizer: Tokenizer, sampledText: string, stopped: boolean) {
  const messages = [system, task];
  const promptIds = tokenizer.encodeChat(messages, { addGenerationPrompt: true });
  const generatedIds = [
    ...tokenizer.encode(sampledText, { addSpecialTokens: false }),
    ...(stopped ? [tokenizer.eosIds[0]!] : []),
  ];
  const delta = encodeChatDelta(tokenizer, { messages, generatedIds, newMessages: [observation] });
  return { messages, promptIds, generatedIds, delta };
}

for (const [label, load] of [
  ['byte tokenizer', () => loadTokenizer(directorySource(BYTES_DIR))],
  ['Qwen3 tokenizer', () => loadTokenizer(directorySource(QWEN3_DIR))],
] as const) {
  describe(`encodeChatDelta with the ${label}`, () => {
    let tokenizer: Tokenizer;
    beforeAll(async () => {
      tokenizer = await load();
    }, 60_000);

    it('appends "\\n" + the user turn + the generation prompt after a turn that ended with <|im_end|>', () => {
      const { messages, promptIds, generatedIds, delta } = oneTurn(tokenizer, code, true);
      if (!delta.ok) throw new Error(delta.reason);
      expect(delta.text).toBe(
        '\n<|im_start|>user\nOutput:\n42\n<|im_end|>\n<|im_start|>assistant\n',
      );
      expect(delta.assistantMessage).toEqual({ role: 'assistant', content: code });
      // The context built token by token equals encoding the re-rendered conversation in one go.
      const whole = tokenizer.encodeChat([...messages, delta.assistantMessage, observation], {
        addGenerationPrompt: true,
      });
      expect([...promptIds, ...generatedIds, ...delta.ids]).toEqual(whole);
    });

    it('closes a turn cut off by max tokens with <|im_end|> itself', () => {
      const { delta } = oneTurn(tokenizer, '```python\nprint(6*', false);
      if (!delta.ok) throw new Error(delta.reason);
      expect(delta.text.startsWith('<|im_end|>\n<|im_start|>user\n')).toBe(true);
      expect(delta.ids[0]).toBe(tokenizer.tokenToId('<|im_end|>'));
    });

    it('keeps the sampled ids even where re-tokenizing the text would merge differently', () => {
      // Sample "print" one character at a time: a non-canonical tokenization the model may produce.
      const messages = [system, task];
      const generatedIds = [...'print']
        .flatMap((c) => tokenizer.encode(c, { addSpecialTokens: false }))
        .concat(tokenizer.eosIds[0]!);
      const delta = encodeChatDelta(tokenizer, {
        messages,
        generatedIds,
        newMessages: [observation],
      });
      if (!delta.ok) throw new Error(delta.reason);
      expect(delta.assistantMessage.content).toBe('print');
      expect(delta.text.startsWith('\n<|im_start|>user')).toBe(true);
    });

    it('an empty turn (only eos sampled) still extends the conversation', () => {
      const delta = encodeChatDelta(tokenizer, {
        messages: [task],
        generatedIds: [tokenizer.eosIds[0]!],
        newMessages: [observation],
      });
      expect(delta.ok && delta.assistantMessage.content).toBe('');
    });
  });
}

describe('prefix stability', () => {
  let qwen: Tokenizer;
  let bytes: Tokenizer;
  let llama: Tokenizer;
  beforeAll(async () => {
    qwen = await loadTokenizer(directorySource(QWEN3_DIR));
    bytes = await loadTokenizer(directorySource(BYTES_DIR));
    // The byte vocabulary with Llama-style markup as plain text: enough to check the template
    // logic.
    llama = createTokenizer('llama3-style', {
      tokenizerJson: readJsonFile(join(BYTES_DIR, 'tokenizer.json')),
      tokenizerConfig: {
        ...readJsonFile(join(BYTES_DIR, 'tokenizer_config.json')),
        bos_token: '<|endoftext|>',
        eos_token: '<|im_end|>',
      },
      chatTemplate: readFileSync(join(TEMPLATES_DIR, 'llama3-style.jinja'), 'utf8').replaceAll(
        '<|eot_id|>',
        '<|im_end|>',
      ),
    });
  }, 60_000);

  const thinking = `<think>\n6 times 7.\n</think>\n\n${code}`;

  it('reports Qwen3 dropping the <think> block of an earlier turn', () => {
    const delta = oneTurn(qwen, thinking, true).delta;
    expect(delta.ok).toBe(false);
    expect(!delta.ok && delta.reason).toMatch(/renders the model's turn differently.*<think>/s);
    const conversation = [
      system,
      task,
      { role: 'assistant', content: thinking },
      observation,
      { role: 'assistant', content: 'Done.' },
    ];
    expect(findPrefixBreak(qwen, conversation)).toMatchObject({ index: 2 });
  });

  it('accepts Qwen3 turns without thinking, and ChatML conversations', () => {
    const conversation = [
      system,
      task,
      { role: 'assistant', content: code },
      observation,
      { role: 'assistant', content: 'Done.' },
    ];
    expect(findPrefixBreak(qwen, conversation)).toBeNull();
    expect(findPrefixBreak(bytes, conversation)).toBeNull();
    expect(findPrefixBreak(bytes, [...conversation, observation])).toBeNull();
  });

  it('reports a template that trims what the model wrote (Llama style)', () => {
    expect(
      findPrefixBreak(llama, [task, { role: 'assistant', content: code }, observation], {
        now: new Date(0),
      }),
    ).toBeNull();
    const padded = [task, { role: 'assistant', content: `${code}\n\n` }, observation];
    expect(findPrefixBreak(llama, padded, { now: new Date(0) })).toMatchObject({ index: 1 });
  });

  it('strips exactly one trailing eos id from the assistant content', () => {
    const eos = bytes.eosIds[0]!;
    expect(assistantContent(bytes, [...bytes.encode('ok'), eos])).toBe('ok');
    expect(assistantContent(bytes, bytes.encode('ok'))).toBe('ok');
    expect(assistantContent(bytes, [eos, ...bytes.encode('ok'), eos])).toBe('<|im_end|>ok');
  });
});
