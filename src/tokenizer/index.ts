// The tokenizer package: load a model's tokenizer, render chat, extend a conversation token by
// token.
export {
  loadTokenizer,
  createTokenizer,
  type Tokenizer,
  type TokenizerFiles,
} from './tokenizer.ts';
export {
  ChatTemplate,
  CHATML_TEMPLATE,
  strftime,
  type ChatMessage,
  type ChatTemplateOptions,
} from './chat_template.ts';
export {
  encodeChatDelta,
  assistantContent,
  findPrefixBreak,
  PROBE_CONVERSATION,
  type ChatDelta,
  type ChatDeltaInput,
  type PrefixBreak,
} from './chat_delta.ts';
