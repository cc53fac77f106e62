// The committed demo model (public/models/demo/): it loads through the Hugging Face-layout loader,
// its tokenizer round-trips the corpus format token for token, and it has learned that format.
import * as tf from '@tensorflow/tfjs';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenLogprobs } from '../../src/model/logprobs.ts';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { formatObservation, SYSTEM_PROMPT } from '../../src/rl/actions.ts';
import type { Message } from '../../src/rl/types.ts';
import { loadTokenizer, type Tokenizer } from '../../src/tokenizer/index.ts';
import { encodeTranscript } from '../../scripts/demo/tokenizer_files.ts';
import { codeTurn } from '../../scripts/demo/transcripts.ts';
import { searchSystemPrompt, searchTurns } from '../../scripts/demo/transcripts_search.ts';

const DIR = 'public/models/demo';
let model: CausalLM;
let tokenizer: Tokenizer;

/** A transcript in the corpus format (seed task with other numbers, one wrong attempt). */
const transcript: Message[] = [
  { role: 'system', content: SYSTEM_PROMPT },
  {
    role: 'user',
    content: 'Write Python code to compute F(12), with F(0)=0 and F(1)=1. Print only the result.',
  },
  {
    role: 'assistant',
    content: codeTurn('a, b = 0, 1\nfor _ in range(12):\n    a, b = b, a + b\nprint(b)\n'),
  },
  { role: 'user', content: formatObservation('233\n') },
  {
    role: 'assistant',
    content: codeTurn(
      'a, b = 0, 1\nfor _ in range(12):\n    a, b = b, a + b\nprint(a)\n',
      'That printed F(13); print a instead.',
    ),
  },
  { role: 'user', content: formatObservation('144\n') },
  { role: 'assistant', content: 'FINAL ANSWER: 144' },
];

/** A search-first transcript of a search train task, with other numbers. */
const searchTranscript: Message[] = [
  { role: 'system', content: searchSystemPrompt() },
  {
    role: 'user',
    content:
      'Using the standard library, print the number of ways to choose 4 items from 9 when order does not matter.',
  },
  ...searchTurns('number of ways to choose k items from n without order'),
  { role: 'assistant', content: codeTurn('import math\nprint(math.comb(9, 4))\n') },
  { role: 'user', content: formatObservation('126\n') },
  { role: 'assistant', content: 'FINAL ANSWER: 126' },
];

/** Mean cost (nats) of the assistant tokens of a transcript under the committed model. */
function assistantCost(messages: Message[]): number {
  const { ids, mask } = encodeTranscript(tokenizer, messages);
  const logprobs = tf.tidy(() => tokenLogprobs(model, [ids], { temperature: 1 }).arraySync()[0]!);
  let sum = 0;
  let count = 0;
  logprobs.forEach((lp, t) => {
    if (mask[t + 1] === 1) {
      sum -= lp;
      count++;
    }
  });
  return sum / count;
}

beforeAll(async () => {
  await tf.setBackend('cpu');
  model = await CausalLM.load(directorySource(DIR));
  tokenizer = await loadTokenizer(directorySource(DIR));
}, 60_000);
afterAll(() => model?.dispose());

describe('committed demo model', () => {
  it('is a small Llama in the HF layout, under 20 MB in all', () => {
    const files = readdirSync(DIR);
    for (const name of [
      'config.json',
      'model.safetensors',
      'tokenizer.json',
      'tokenizer_config.json',
      'generation_config.json',
      'README.md',
    ])
      expect(files).toContain(name);
    const bytes = files.reduce((sum, name) => sum + statSync(join(DIR, name)).size, 0);
    expect(bytes).toBeLessThan(20 * 2 ** 20);
    expect(model.config.family).toBe('llama');
    expect(model.config.vocabSize).toBe(tokenizer.vocabSize);
  });

  it('ends turns with <|im_end|> and renders ChatML', () => {
    expect(tokenizer.eosIds).toEqual([258]);
    expect(tokenizer.idToToken(258)).toBe('<|im_end|>');
    expect(tokenizer.applyChatTemplate(transcript.slice(0, 2), { addGenerationPrompt: true })).toBe(
      `<|im_start|>system\n${SYSTEM_PROMPT}<|im_end|>\n<|im_start|>user\n${transcript[1]!.content}<|im_end|>\n<|im_start|>assistant\n`,
    );
  });

  it('round-trips the corpus format, and the SFT encoding equals the chat encoding', () => {
    const ids = tokenizer.encodeChat(transcript);
    expect(tokenizer.decode(ids)).toBe(tokenizer.applyChatTemplate(transcript));
    const { ids: sftIds, mask } = encodeTranscript(tokenizer, transcript);
    expect(sftIds).toEqual(ids);
    // mask: exactly the assistant contents and their <|im_end|>
    const maskedText = tokenizer.decode(sftIds.filter((_, i) => mask[i] === 1));
    expect(maskedText).toBe(
      transcript
        .filter((m) => m.role === 'assistant')
        .map((m) => `${m.content}<|im_end|>`)
        .join(''),
    );
    // each turn's context is a token prefix of the next (what the rollout relies on)
    const prompt = tokenizer.encodeChat(transcript.slice(0, 2), { addGenerationPrompt: true });
    expect(ids.slice(0, prompt.length)).toEqual(prompt);
  });

  it('has learned the format: assistant tokens of a fresh transcript cost well under 1 nat each', () => {
    const cost = assistantCost(transcript);
    expect(cost).toBeLessThan(1);
    // and far less than a uniform guess over the vocabulary
    expect(cost).toBeLessThan(Math.log(tokenizer.vocabSize) / 4);
  }, 60_000);

  it('encodes a search transcript for SFT exactly as the chat template renders it', () => {
    const { ids } = encodeTranscript(tokenizer, searchTranscript);
    expect(ids).toEqual(tokenizer.encodeChat(searchTranscript));
  });

  // Only once the committed model was made with a search part (its card then has the section).
  it.runIf(readFileSync(join(DIR, 'README.md'), 'utf8').includes('\n## Search\n'))(
    "has learned the search tool's format: a search transcript's assistant tokens cost under 1 nat each",
    () => {
      expect(assistantCost(searchTranscript)).toBeLessThan(1);
    },
    60_000,
  );
});
