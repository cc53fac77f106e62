// Token-in/token-out multi-turn chat. The agent loop never re-tokenizes the conversation: the ids
// the model sampled stay exactly as sampled, and each new turn appends only the ids of the text the
// chat template adds after them. That is sound only if the template is *prefix-stable*: rendering
// the first k messages must be a textual prefix of rendering k+1. This file computes the appended
// ids and detects templates that break the property.
//
// How a ChatML turn ends (Qwen2.5, SmolLM2, our byte tokenizer): the model samples
//   `…content<|im_end|>`            and stops on <|im_end|> (an eos id), while the template renders
//   `…content<|im_end|>\n<|im_start|>user\n…`.
// So the delta after the model's own tokens begins with the "\n" the template puts after
// <|im_end|>. If the model was cut off by max tokens, it never sampled <|im_end|>; the delta then
// begins with `<|im_end|>\n` and closes the turn for it. Either way those ids are chat markup, not
// actions: they get action-mask 0. (Llama 3 ends turns with <|eot_id|> and no newline, so there the
// delta starts directly with the next header.) Qwen3 breaks prefix stability once the model thinks
// (the latest assistant turn keeps its `<think>` block, later renders drop it); Llama 3 `trim`s
// message content, which breaks it when the model ends a turn with whitespace. Both are reported.
import type { ChatMessage, ChatTemplateOptions } from './chat_template.ts';
import type { Tokenizer } from './tokenizer_types.ts';

/** The result of extending a conversation after the model's own turn. */
export type ChatDelta =
  | {
      ok: true;
      /**
       * Ids to append after the sampled ids: closing markup, the new messages, the generation
       * prompt.
       */
      ids: number[];
      /** The text those ids encode. */
      text: string;
      /**
       * The assistant message as the template sees it (content = sampled text without the eos
       * token).
       */
      assistantMessage: ChatMessage;
    }
  | { ok: false; reason: string };

/** Where a conversation stops being prefix-stable. */
export interface PrefixBreak {
  /** The assistant message whose sampled text the later rendering does not reproduce. */
  index: number;
  reason: string;
}

/** Inputs to encodeChatDelta. */
export interface ChatDeltaInput {
  /** The conversation the model was prompted with (rendered with the generation prompt). */
  messages: readonly ChatMessage[];
  /** The ids the model sampled for its turn, ending with an eos id unless it was cut off. */
  generatedIds: readonly number[];
  /** Messages that follow the model's turn, e.g. the sandbox observation as a user message. */
  newMessages: readonly ChatMessage[];
  /** Open the next assistant turn after newMessages. Default true. */
  addGenerationPrompt?: boolean;
  /** Passed to the template (tools, variables, now). */
  templateOptions?: Omit<ChatTemplateOptions, 'addGenerationPrompt'>;
}

/**
 * The ids to append after `generatedIds` so the context equals the rendering of
 * messages + assistant turn + newMessages, tokenizing only the new suffix text.
 * Returns `{ ok: false, reason }` when the template is not prefix-stable for this conversation;
 * the agent loop then drops the trajectory from the update and counts it.
 */
export function encodeChatDelta(tokenizer: Tokenizer, input: ChatDeltaInput): ChatDelta {
  const assistantMessage: ChatMessage = {
    role: 'assistant',
    content: assistantContent(tokenizer, input.generatedIds),
  };
  const delta = deltaText(
    tokenizer,
    input.messages,
    tokenizer.decode(input.generatedIds),
    assistantMessage,
    input.newMessages,
    input.addGenerationPrompt ?? true,
    input.templateOptions ?? {},
  );
  if (typeof delta !== 'string') return { ok: false, reason: delta.reason };
  return {
    ok: true,
    ids: tokenizer.encode(delta, { addSpecialTokens: false }),
    text: delta,
    assistantMessage,
  };
}

/** The assistant message content for sampled ids: their text, without one trailing eos token. */
export function assistantContent(tokenizer: Tokenizer, generatedIds: readonly number[]): string {
  const last = generatedIds[generatedIds.length - 1];
  const body =
    last !== undefined && tokenizer.eosIds.includes(last)
      ? generatedIds.slice(0, -1)
      : generatedIds;
  return tokenizer.decode(body);
}

/**
 * Checks a finished conversation the way the agent loop builds it: for every assistant message i,
 * the prompt it was sampled from (messages before i, with the generation prompt) followed by its
 * content and the eos token must be a textual prefix of the next context (the prompt of the next
 * assistant turn, or the whole conversation); a final assistant turn needs no check. Returns the
 * first break, or null if there is none.
 * This is "rendering messages[0..k] is a prefix of rendering messages[0..k+1]" with each assistant
 * turn taken as the model sampled it, which is the property token-in/token-out needs.
 */
export function findPrefixBreak(
  tokenizer: Tokenizer,
  messages: readonly ChatMessage[],
  options: Omit<ChatTemplateOptions, 'addGenerationPrompt'> = {},
): PrefixBreak | null {
  const eosId = tokenizer.eosIds[0];
  const eosText = eosId === undefined ? '' : tokenizer.decode([eosId]);
  const assistantAt = messages.flatMap((message, i) => (message.role === 'assistant' ? [i] : []));
  for (const [n, i] of assistantAt.entries()) {
    const nextAssistant = assistantAt[n + 1];
    const following = messages.slice(i + 1, nextAssistant ?? messages.length);
    // Nothing is appended after a final assistant turn, so nothing has to survive a re-render.
    if (following.length === 0) continue;
    const message = messages[i]!;
    const delta = deltaText(
      tokenizer,
      messages.slice(0, i),
      message.content + eosText,
      message,
      following,
      nextAssistant !== undefined,
      options,
    );
    if (typeof delta !== 'string') return { index: i, reason: delta.reason };
  }
  return null;
}

/**
 * The text the template adds after `generatedText` when the conversation continues with
 * `assistantMessage` and `newMessages`, or the reason it cannot (the rendering rewrote the past).
 */
function deltaText(
  tokenizer: Tokenizer,
  messages: readonly ChatMessage[],
  generatedText: string,
  assistantMessage: ChatMessage,
  newMessages: readonly ChatMessage[],
  addGenerationPrompt: boolean,
  options: Omit<ChatTemplateOptions, 'addGenerationPrompt'>,
): string | { reason: string } {
  // What the model actually saw and produced, as text: its prompt, then its own tokens verbatim.
  const seen =
    tokenizer.applyChatTemplate(messages, { ...options, addGenerationPrompt: true }) +
    generatedText;
  const next = tokenizer.applyChatTemplate([...messages, assistantMessage, ...newMessages], {
    ...options,
    addGenerationPrompt,
  });
  if (!next.startsWith(seen)) {
    return {
      reason: `the chat template renders the model's turn differently once the conversation goes on: ${describeMismatch(seen, next)}`,
    };
  }
  return next.slice(seen.length);
}

/** A probe conversation with one tool round trip, for checking a template at load time. */
export const PROBE_CONVERSATION: readonly ChatMessage[] = [
  { role: 'system', content: 'You solve tasks by writing Python.' },
  { role: 'user', content: 'Print 1+1.' },
  { role: 'assistant', content: '<think>\nEasy.\n</think>\n\n```python\nprint(1+1)\n```' },
  { role: 'user', content: 'Output:\n2' },
  { role: 'assistant', content: 'The answer is 2.' },
];

/** Where two texts first differ, with a little context, for error messages. */
function describeMismatch(expectedPrefix: string, actual: string): string {
  let i = 0;
  while (i < expectedPrefix.length && i < actual.length && expectedPrefix[i] === actual[i]) i++;
  const show = (s: string) => JSON.stringify(s.slice(Math.max(0, i - 20), i + 30));
  return `at character ${i}, expected ${show(expectedPrefix)} but the longer rendering has ${show(actual)}`;
}
