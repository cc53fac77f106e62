// The demo tokenizer: byte-level BPE trained on the rendered corpus (bpe.ts), saved in the Hugging
// Face layout (tokenizer.json + tokenizer_config.json with a ChatML template), and the
// transcript -> (ids, loss mask) encoding used for supervised training.
import type { SftExample } from '../../src/rl/sft.ts';
import type { Message } from '../../src/rl/types.ts';
import { CHATML_TEMPLATE, createTokenizer, type Tokenizer } from '../../src/tokenizer/index.ts';
import { trainBpe } from './bpe.ts';

/** The chat special tokens, in id order right after the 256 bytes. */
export const SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'] as const;

/** One message as the ChatML template renders it. */
export function renderMessage(message: Message): string {
  return `<|im_start|>${message.role}\n${message.content}<|im_end|>\n`;
}

/** tokenizer_config.json: special-token roles and the ChatML chat template (eos = <|im_end|>). */
export function tokenizerConfig(): Record<string, unknown> {
  const added: Record<string, unknown> = {};
  SPECIAL_TOKENS.forEach((content, i) => {
    added[String(256 + i)] = {
      content,
      lstrip: false,
      normalized: false,
      rstrip: false,
      single_word: false,
      special: true,
    };
  });
  return {
    add_bos_token: false,
    add_prefix_space: false,
    added_tokens_decoder: added,
    additional_special_tokens: ['<|im_start|>', '<|im_end|>'],
    bos_token: null,
    chat_template: CHATML_TEMPLATE,
    clean_up_tokenization_spaces: false,
    eos_token: '<|im_end|>',
    errors: 'replace',
    model_max_length: 1024,
    pad_token: '<|endoftext|>',
    split_special_tokens: false,
    tokenizer_class: 'Qwen2Tokenizer',
    unk_token: null,
  };
}

/** Trains the BPE on the rendered conversations; returns the tokenizer.json object. */
export function trainTokenizer(
  conversations: readonly Message[][],
  vocabSize: number,
): Record<string, unknown> {
  const texts = conversations.map((messages) => messages.map(renderMessage).join(''));
  return trainBpe(texts, { vocabSize, specialTokens: [...SPECIAL_TOKENS] }).tokenizerJson;
}

/** A Tokenizer over in-memory files (the same code path that loads hub tokenizers). */
export function demoTokenizer(tokenizerJson: Record<string, unknown>): Tokenizer {
  return createTokenizer('demo', { tokenizerJson, tokenizerConfig: tokenizerConfig() });
}

/**
 * Encodes a conversation for SFT. Assistant contents are encoded on their own, followed by the
 * <|im_end|> token, exactly the ids the model samples in a rollout after `<|im_start|>assistant\n`;
 * those ids (and the <|im_end|> that ends the turn) get mask 1, everything else mask 0.
 */
export function encodeTranscript(tokenizer: Tokenizer, messages: readonly Message[]): SftExample {
  const ids: number[] = [];
  const mask: number[] = [];
  const push = (piece: number[], m: number) => {
    ids.push(...piece);
    mask.push(...piece.map(() => m));
  };
  const imEnd = tokenizer.eosIds[0]!;
  for (const message of messages) {
    if (message.role !== 'assistant') {
      push(tokenizer.encode(renderMessage(message), { addSpecialTokens: false }), 0);
      continue;
    }
    push(tokenizer.encode('<|im_start|>assistant\n', { addSpecialTokens: false }), 0);
    push(tokenizer.encode(message.content, { addSpecialTokens: false }), 1);
    push([imEnd], 1);
    push(tokenizer.encode('\n', { addSpecialTokens: false }), 0);
  }
  return { ids, mask };
}
