// The Tokenizer interface every other part codes against, in a file of its own so that
// chat_delta.ts (which tokenizer.ts uses to probe templates) can name it without a cycle.
import type { ChatMessage, ChatTemplateOptions } from './chat_template.ts';

/** A loaded tokenizer with its chat template and special ids. */
export interface Tokenizer {
  /** Where it came from (the model source's name). */
  readonly name: string;
  /**
   * Text to ids. `addSpecialTokens` (default true, as in transformers) lets the post-processor add
   * e.g. BOS.
   */
  encode(text: string, options?: { addSpecialTokens?: boolean }): number[];
  /** Ids to text; `skipSpecialTokens` (default false) drops special tokens such as `<|im_end|>`. */
  decode(ids: readonly number[], options?: { skipSpecialTokens?: boolean }): string;
  /** Renders a conversation with the model's chat template (text, not ids). */
  applyChatTemplate(messages: readonly ChatMessage[], options?: ChatTemplateOptions): string;
  /**
   * Renders and encodes a conversation without adding special tokens (the template already has
   * them).
   */
  encodeChat(messages: readonly ChatMessage[], options?: ChatTemplateOptions): number[];
  /** Beginning-of-sequence id, null when the model has none (Qwen). */
  readonly bosId: number | null;
  /**
   * Ids that end generation: tokenizer_config eos_token first, then generation_config
   * eos_token_id(s).
   */
  readonly eosIds: readonly number[];
  /** Padding id, null when none is configured. */
  readonly padId: number | null;
  /**
   * One more than the largest token id, added tokens included (config.json's vocab_size may be
   * larger).
   */
  readonly vocabSize: number;
  /** The token string of `id`, or undefined outside the vocabulary. */
  idToToken(id: number): string | undefined;
  /** The id of a token string (e.g. "<|im_end|>"), or undefined if it is not one token. */
  tokenToId(token: string): number | undefined;
  /** Whether `id` is a special (added, control) token. */
  isSpecial(id: number): boolean;
  /** The Jinja source of the chat template in use (the model's, or the ChatML fallback). */
  readonly chatTemplate: string;
  /** Things a person should know about this tokenizer (fallback template, missing config, …). */
  readonly warnings: readonly string[];
}
