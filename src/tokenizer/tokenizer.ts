// The tokenizer every other part codes against: text <-> ids with a model's own tokenizer.json
// (@huggingface/tokenizers), its chat template, and the special ids generation stops on.
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { readJson, type ModelSource } from '../model_files/source.ts';
import { findPrefixBreak, PROBE_CONVERSATION } from './chat_delta.ts';
import { CHATML_TEMPLATE, ChatTemplate } from './chat_template.ts';
import type { Tokenizer } from './tokenizer_types.ts';

export type { ChatMessage, ChatTemplateOptions } from './chat_template.ts';
export type { Tokenizer } from './tokenizer_types.ts';

/** tokenizer_config.json fields we read; special tokens are strings or AddedToken objects. */
interface TokenizerConfig {
  bos_token?: SpecialToken;
  eos_token?: SpecialToken;
  pad_token?: SpecialToken;
  unk_token?: SpecialToken;
  additional_special_tokens?: SpecialToken[];
  chat_template?: string | { name: string; template: string }[];
  [field: string]: unknown;
}
type SpecialToken = string | { content: string } | null;

/** The JSON files a tokenizer is built from, already parsed. */
export interface TokenizerFiles {
  tokenizerJson: unknown;
  tokenizerConfig?: Record<string, unknown> | null;
  /** generation_config.json, for extra eos ids. */
  generationConfig?: Record<string, unknown> | null;
  /** A chat template given separately (chat_template.jinja); wins over tokenizer_config's. */
  chatTemplate?: string | null;
}

/**
 * Reads tokenizer.json, tokenizer_config.json and, when present, chat_template.jinja and
 * generation_config.json.
 */
export async function loadTokenizer(source: ModelSource): Promise<Tokenizer> {
  if (!(await source.has('tokenizer.json'))) {
    throw new Error(
      `${source.name} has no tokenizer.json. This project needs the Hugging Face "fast" tokenizer file; ` +
        'models that ship only tokenizer.model or vocab.json + merges.txt are not supported. ' +
        'Fix: pick a model repo or folder that contains tokenizer.json.',
    );
  }
  const tokenizerJson = await readJson(source, 'tokenizer.json');
  const optional = async <T>(path: string, read: () => Promise<T>): Promise<T | null> =>
    (await source.has(path)) ? read() : null;
  const [tokenizerConfig, generationConfig, chatTemplate] = await Promise.all([
    optional('tokenizer_config.json', () =>
      readJson<Record<string, unknown>>(source, 'tokenizer_config.json'),
    ),
    optional('generation_config.json', () =>
      readJson<Record<string, unknown>>(source, 'generation_config.json'),
    ),
    optional('chat_template.jinja', async () =>
      new TextDecoder().decode(await source.readFile('chat_template.jinja')),
    ),
  ]);
  return createTokenizer(source.name, {
    tokenizerJson,
    tokenizerConfig,
    generationConfig,
    chatTemplate,
  });
}

/** Builds a Tokenizer from already-parsed files (for tests and embedded tokenizers). */
export function createTokenizer(name: string, files: TokenizerFiles): Tokenizer {
  const warnings: string[] = [];
  if (!files.tokenizerConfig)
    warnings.push(
      `${name} has no tokenizer_config.json: no special-token roles and no chat template.`,
    );
  const config = (files.tokenizerConfig ?? {}) as TokenizerConfig;
  if (
    typeof files.tokenizerJson !== 'object' ||
    files.tokenizerJson === null ||
    !('model' in files.tokenizerJson)
  ) {
    throw new Error(
      `${name}/tokenizer.json is not a Hugging Face tokenizer file (no "model" field). Fix: re-download it.`,
    );
  }
  let hf: HfTokenizer;
  try {
    hf = new HfTokenizer(files.tokenizerJson, config);
  } catch (error) {
    throw new Error(
      `${name}/tokenizer.json could not be loaded: ${(error as Error).message}. Fix: re-download it, or use a model with a supported tokenizer (BPE, WordPiece, Unigram).`,
    );
  }

  const idOf = (role: string, token: SpecialToken | undefined): number | null => {
    const text = tokenText(token);
    if (text === null) return null;
    const id = hf.token_to_id(text);
    if (id === undefined)
      throw new Error(
        `${name}: tokenizer_config.json names ${role} ${JSON.stringify(text)}, which is not in tokenizer.json's vocabulary. Fix: the files are from different models; re-download both.`,
      );
    return id;
  };
  const bosId = idOf('bos_token', config.bos_token);
  const padId = idOf('pad_token', config.pad_token);
  const eosIds = unique([
    idOf('eos_token', config.eos_token),
    ...generationEosIds(name, files.generationConfig),
  ]);
  if (eosIds.length === 0)
    warnings.push(
      `${name} defines no eos token: generation stops only at max tokens or a stop string.`,
    );

  const addedTokens = hf.get_added_tokens_decoder();
  const specialIds = new Set(
    [...addedTokens].filter(([, token]) => token.special).map(([id]) => id),
  );
  let vocabSize = 0;
  for (const id of hf.get_vocab(true).values()) vocabSize = Math.max(vocabSize, id + 1);

  const templateSource = pickChatTemplate(name, config, files.chatTemplate ?? null, warnings);
  const template = new ChatTemplate(
    templateSource,
    specialTokenVariables(config),
    `chat template of ${name}`,
  );

  const tokenizer: Tokenizer = {
    name,
    encode: (text, options) =>
      hf.encode(text, { add_special_tokens: options?.addSpecialTokens ?? true }).ids,
    // The library refuses an empty list; an empty turn (only an eos was sampled) is ordinary here.
    decode: (ids, options) =>
      ids.length === 0
        ? ''
        : hf.decode([...ids], { skip_special_tokens: options?.skipSpecialTokens ?? false }),
    applyChatTemplate: (messages, options) => template.render(messages, options),
    encodeChat: (messages, options) =>
      hf.encode(template.render(messages, options), { add_special_tokens: false }).ids,
    bosId,
    eosIds,
    padId,
    vocabSize,
    idToToken: (id) => hf.id_to_token(id),
    tokenToId: (token) => hf.token_to_id(token),
    isSpecial: (id) => specialIds.has(id),
    chatTemplate: templateSource,
    warnings,
  };
  warnings.push(...probeTemplate(tokenizer));
  return tokenizer;
}

/**
 * Renders a small multi-turn conversation once, so template problems show at load time as warnings.
 */
function probeTemplate(tokenizer: Tokenizer): string[] {
  try {
    const broken = findPrefixBreak(tokenizer, PROBE_CONVERSATION, { now: new Date(0) });
    return broken === null
      ? []
      : [
          `the chat template of ${tokenizer.name} is not prefix-stable (${broken.reason}); ` +
            'multi-turn trajectories whose context changes between turns are dropped from training.',
        ];
  } catch (error) {
    return [
      `the chat template of ${tokenizer.name} cannot render a system/user/assistant conversation: ${(error as Error).message}`,
    ];
  }
}

/**
 * chat_template.jinja, else tokenizer_config's (string, or the named list where "default" wins),
 * else ChatML.
 */
function pickChatTemplate(
  name: string,
  config: TokenizerConfig,
  separate: string | null,
  warnings: string[],
): string {
  if (separate !== null && separate.trim() !== '') return separate;
  const fromConfig = config.chat_template;
  if (typeof fromConfig === 'string' && fromConfig.trim() !== '') return fromConfig;
  if (Array.isArray(fromConfig) && fromConfig.length > 0) {
    const chosen = fromConfig.find((t) => t.name === 'default') ?? fromConfig[0];
    if (chosen && typeof chosen.template === 'string') return chosen.template;
  }
  warnings.push(
    `${name} ships no chat template; using plain ChatML (<|im_start|>role\\ncontent<|im_end|>). ` +
      'A model not trained on ChatML will see unfamiliar markup.',
  );
  return CHATML_TEMPLATE;
}

/** The variables transformers passes to a chat template: the special-token strings that are set. */
function specialTokenVariables(config: TokenizerConfig): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const key of ['bos_token', 'eos_token', 'pad_token', 'unk_token'] as const) {
    const text = tokenText(config[key]);
    if (text !== null) variables[key] = text;
  }
  const additional = (config.additional_special_tokens ?? [])
    .map(tokenText)
    .filter((t): t is string => t !== null);
  if (additional.length > 0) variables.additional_special_tokens = additional;
  return variables;
}

/** generation_config.json's eos_token_id: a number, a list of numbers, or absent. */
function generationEosIds(
  name: string,
  generationConfig: Record<string, unknown> | null | undefined,
): number[] {
  const value = generationConfig?.eos_token_id;
  if (value === undefined || value === null) return [];
  const ids = Array.isArray(value) ? value : [value];
  if (!ids.every((id) => Number.isInteger(id) && (id as number) >= 0)) {
    throw new Error(
      `${name}/generation_config.json: eos_token_id must be an id or a list of ids, got ${JSON.stringify(value)}`,
    );
  }
  return ids as number[];
}

function tokenText(token: SpecialToken | undefined): string | null {
  if (token === undefined || token === null) return null;
  if (typeof token === 'string') return token;
  return typeof token.content === 'string' ? token.content : null;
}

function unique(ids: (number | null)[]): number[] {
  return [...new Set(ids.filter((id): id is number => id !== null))];
}
