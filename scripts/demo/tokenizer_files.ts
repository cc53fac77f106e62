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
 * those ids (and the <|im_end|> that ends the turn) get mask 1, everything else mask 0. With a
 * `copyWeight` other than 1, learned tokens that copy from the user's messages (the task, the
 * observations; not the system prompt, which is the same in every transcript) get that weight
 * (`weighCopies`).
 */
export function encodeTranscript(
  tokenizer: Tokenizer,
  messages: readonly Message[],
  copyWeight = 1,
): SftExample {
  const ids: number[] = [];
  const mask: number[] = [];
  const given: boolean[] = [];
  const push = (piece: number[], m: number, source = false) => {
    ids.push(...piece);
    mask.push(...piece.map(() => m));
    given.push(...piece.map(() => source));
  };
  const imEnd = tokenizer.eosIds[0]!;
  for (const message of messages) {
    if (message.role !== 'assistant') {
      push(
        tokenizer.encode(renderMessage(message), { addSpecialTokens: false }),
        0,
        message.role !== 'system',
      );
      continue;
    }
    push(tokenizer.encode('<|im_start|>assistant\n', { addSpecialTokens: false }), 0);
    push(tokenizer.encode(message.content, { addSpecialTokens: false }), 1);
    push([imEnd], 1);
    push(tokenizer.encode('\n', { addSpecialTokens: false }), 0);
  }
  return weighCopies({ ids, mask }, copyWeight, given);
}

/**
 * Weighs the learned tokens that copy from what the model was given: a learned token that, with the
 * token before it, appears earlier in the sequence as two given tokens (`given`, by default every
 * token of mask 0) gets `weight` times its mask. These are the tokens an induction head
 * writes (a name the prompt made up, the call's values, the printed answer in FINAL ANSWER), the
 * ones a small model gets wrong on a task it never saw. The loss multiplies by the mask, so a
 * weight above 1 spends more of each step on copying; 1 leaves the example as it was.
 */
export function weighCopies(
  example: SftExample,
  weight: number,
  given: readonly boolean[] = example.mask.map((m) => m === 0),
): SftExample {
  if (weight === 1) return example;
  const { ids } = example;
  const pairs = new Set<number>();
  const mask = example.mask.slice();
  for (let i = 1; i < ids.length; i++) {
    const pair = ids[i - 1]! * 1_048_576 + ids[i]!;
    if (example.mask[i]! > 0 && pairs.has(pair)) mask[i] = example.mask[i]! * weight;
    if (given[i] && given[i - 1]) pairs.add(pair);
  }
  return { ids, mask };
}

/** The share of an example set's learned tokens that `weighCopies` weighed (any weight but 1). */
export function copyShare(examples: readonly SftExample[]): number {
  let copies = 0;
  let learned = 0;
  for (const { mask } of examples)
    for (const m of mask) {
      if (m > 0) learned++;
      if (m > 0 && m !== 1) copies++;
    }
  return copies / Math.max(1, learned);
}
