// Chat template rendering against golden renderings made by Python Jinja2 (the engine transformers
// uses) for our *-style templates, the byte tokenizer's ChatML and the real Qwen3 template.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChatTemplate, CHATML_TEMPLATE, strftime } from '../../src/tokenizer/index.ts';
import { BYTES_DIR, goldenChat, QWEN3_DIR, readJsonFile, TEMPLATES_DIR } from './helpers.ts';

const chatml = { eos_token: '<|im_end|>', pad_token: '<|endoftext|>' };
const qwen3Config = readJsonFile(join(QWEN3_DIR, 'tokenizer_config.json'));
const templates: Record<string, ChatTemplate> = {
  bytes: new ChatTemplate(
    readJsonFile(join(BYTES_DIR, 'tokenizer_config.json')).chat_template as string,
    chatml,
  ),
  'qwen2.5-style': new ChatTemplate(
    readFileSync(join(TEMPLATES_DIR, 'qwen2.5-style.jinja'), 'utf8'),
    chatml,
  ),
  'smollm2-style': new ChatTemplate(
    readFileSync(join(TEMPLATES_DIR, 'smollm2-style.jinja'), 'utf8'),
    chatml,
  ),
  'llama3-style': new ChatTemplate(
    readFileSync(join(TEMPLATES_DIR, 'llama3-style.jinja'), 'utf8'),
    { bos_token: '<|begin_of_text|>', eos_token: '<|eot_id|>' },
  ),
  qwen3: new ChatTemplate(qwen3Config.chat_template as string, {
    eos_token: qwen3Config.eos_token,
    pad_token: qwen3Config.pad_token,
    additional_special_tokens: qwen3Config.additional_special_tokens,
  }),
};
// The golden script pins strftime_now to this local date-time.
const now = new Date(goldenChat.now);

describe('ChatTemplate', () => {
  it('covers every template with golden cases', () => {
    expect(new Set(goldenChat.cases.map((c) => c.template))).toEqual(
      new Set(Object.keys(templates)),
    );
    expect(goldenChat.cases.length).toBeGreaterThanOrEqual(30);
  });

  for (const golden of goldenChat.cases) {
    const { add_generation_prompt: addGenerationPrompt, tools, ...variables } = golden.options;
    const label = `${golden.template} / ${golden.conversation} / generation prompt ${addGenerationPrompt}${tools ? ' / tools' : ''}`;
    it(`renders like Python Jinja2: ${label}`, () => {
      const render = () =>
        templates[golden.template]!.render(golden.messages, {
          addGenerationPrompt,
          tools,
          variables,
          now,
        });
      if (golden.error !== undefined) {
        expect(render).toThrow(golden.error);
      } else {
        expect(render()).toBe(golden.text);
      }
    });
  }

  it('puts the given date into Llama-style system turns', () => {
    const text = templates['llama3-style']!.render([{ role: 'user', content: 'hi' }], {
      now: new Date(2024, 0, 5),
    });
    expect(text).toContain('Today: 05 Jan 2024\n');
    expect(text.startsWith('<|begin_of_text|><|start_header_id|>system')).toBe(true);
  });

  it('formats dates like Python strftime in the C locale', () => {
    const date = new Date(2025, 8, 3, 7, 4);
    expect(strftime(date, '%d %b %Y')).toBe('03 Sep 2025');
    expect(strftime(date, '%B %m/%d %H:%M 100%%')).toBe('September 09/03 07:04 100%');
  });

  it('renders the ChatML fallback like the byte tokenizer template', () => {
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'yo' },
    ];
    const fallback = new ChatTemplate(CHATML_TEMPLATE, chatml);
    expect(fallback.render(messages, { addGenerationPrompt: true })).toBe(
      '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nyo<|im_end|>\n<|im_start|>assistant\n',
    );
    expect(fallback.render(messages)).toBe(templates.bytes!.render(messages));
  });

  it('does not let a template mutate the caller messages', () => {
    const messages = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q' },
    ];
    templates['llama3-style']!.render(messages, { now });
    expect(messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q' },
    ]);
  });

  it('explains templates that do not parse or cannot render', () => {
    expect(() => new ChatTemplate('{% for m in messages %}', {}, 'chat template of demo')).toThrow(
      /chat template of demo does not parse as Jinja/,
    );
    expect(() => templates.bytes!.render([])).toThrow(/empty conversation/);
    expect(() =>
      templates['llama3-style']!.render([{ role: 'assistant', content: 'x' }], { now }),
    ).toThrow(
      /failed to render: the template raised an exception: Conversation roles must alternate/,
    );
  });
});
