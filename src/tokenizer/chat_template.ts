// Chat templates: the Jinja program a model ships in tokenizer_config.json (or chat_template.jinja)
// that turns a list of messages into the exact text the model was trained on. We render it with
// @huggingface/jinja in the same environment transformers' apply_chat_template uses: trim_blocks
// and lstrip_blocks on, the special-token strings as variables, raise_exception and strftime_now.
import { Environment, Interpreter, Template } from '@huggingface/jinja';

/**
 * One chat message; the optional fields pass through to templates that use them. No index
 * signature, so the trajectory's plain `Message` records are ChatMessages as they are.
 */
export interface ChatMessage {
  role: string;
  content: string;
  tool_calls?: unknown;
  tool_call_id?: string;
  name?: string;
  reasoning_content?: string;
}

/** Options for rendering a conversation. */
export interface ChatTemplateOptions {
  /**
   * Append the header that opens the assistant's turn (`<|im_start|>assistant\n`). Default false.
   */
  addGenerationPrompt?: boolean;
  /** Tool schemas (JSON-schema objects) for templates that support tools. */
  tools?: unknown[];
  /** Extra template variables, e.g. `{ enable_thinking: false }` for Qwen3. */
  variables?: Record<string, unknown>;
  /**
   * The date `strftime_now` reports (Llama 3 puts "Today Date" in the system turn); default now.
   */
  now?: Date;
}

/**
 * The fallback when a tokenizer ships no chat template: plain ChatML, no default system prompt.
 * Every turn is `<|im_start|>{role}\n{content}<|im_end|>\n`; the generation prompt opens an
 * assistant turn. Models not trained on ChatML will see unfamiliar markup: the loader says so.
 */
export const CHATML_TEMPLATE = [
  '{%- for message in messages %}',
  "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}",
  '{%- endfor %}',
  '{%- if add_generation_prompt %}',
  "{{- '<|im_start|>assistant\\n' }}",
  '{%- endif %}',
].join('\n');

/** A compiled chat template bound to a tokenizer's special-token strings. */
export class ChatTemplate {
  private readonly program: Template;

  /**
   * Parses `source` now so a broken template fails at load time, not mid-run.
   * `specialTokens` maps variable names (bos_token, eos_token, …) to their strings.
   */
  constructor(
    readonly source: string,
    private readonly specialTokens: Record<string, unknown>,
    private readonly origin = 'chat template',
  ) {
    try {
      this.program = new Template(source);
    } catch (error) {
      throw new Error(`${origin} does not parse as Jinja: ${(error as Error).message}`);
    }
  }

  /**
   * Renders `messages` to text exactly as transformers' apply_chat_template(tokenize=False) would.
   */
  render(messages: readonly ChatMessage[], options: ChatTemplateOptions = {}): string {
    if (messages.length === 0)
      throw new Error('cannot render an empty conversation: pass at least one message');
    const variables: Record<string, unknown> = {
      ...this.specialTokens,
      ...options.variables,
      messages, // copied into jinja values, so a template's `set` never touches the caller's objects
      tools: options.tools ?? null,
      add_generation_prompt: options.addGenerationPrompt ?? false,
    };
    try {
      const environment = globalsFor(options.now);
      for (const [key, value] of Object.entries(variables)) environment.set(key, value);
      const result = new Interpreter(environment).run(this.program.parsed).value;
      if (typeof result !== 'string') throw new Error(`rendered to ${typeof result}, not text`);
      return result;
    } catch (error) {
      throw new Error(`${this.origin} failed to render: ${(error as Error).message}`);
    }
  }
}

/**
 * The globals @huggingface/jinja's Template.render installs, built here because it offers no way to
 * replace one: our strftime_now takes a fixed date (reproducible renders) and always speaks
 * English, as Python's C locale does, whatever the browser's locale.
 */
function globalsFor(now: Date | undefined): Environment {
  const environment = new Environment();
  for (const [name, value] of [
    ['true', true],
    ['false', false],
    ['none', null],
    ['True', true],
    ['False', false],
    ['None', null],
  ] as const) {
    environment.set(name, value);
  }
  environment.set('raise_exception', (message: unknown) => {
    throw new Error(`the template raised an exception: ${String(message)}`);
  });
  environment.set('range', pythonRange);
  environment.set('strftime_now', (format: string) => strftime(now ?? new Date(), format));
  return environment;
}

/** Python's range(stop) / range(start, stop[, step]). */
function pythonRange(first: number, second?: number, step = 1): number[] {
  const [start, stop] = second === undefined ? [0, first] : [first, second];
  if (step === 0) throw new Error('range() step must not be zero');
  const values: number[] = [];
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) values.push(i);
  return values;
}

/**
 * The subset of Python's strftime that chat templates use (%Y %m %d %b %B %H %M %%), in English.
 */
export function strftime(date: Date, format: string): string {
  const pad2 = (n: number) => String(n).padStart(2, '0');
  return format.replace(/%[YmdbBHM%]/g, (code) => {
    switch (code) {
      case '%Y':
        return String(date.getFullYear());
      case '%m':
        return pad2(date.getMonth() + 1);
      case '%d':
        return pad2(date.getDate());
      case '%b':
        return date.toLocaleString('en-US', { month: 'short' });
      case '%B':
        return date.toLocaleString('en-US', { month: 'long' });
      case '%H':
        return pad2(date.getHours());
      case '%M':
        return pad2(date.getMinutes());
      default:
        return '%';
    }
  });
}
