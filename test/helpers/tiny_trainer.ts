// What the trainer tests share: a one-layer byte-vocabulary Llama (random weights, fast on any
// backend) and a custom task whose answer is a fixed line.
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import type { Task } from '../../src/tasks/task.ts';

/** One layer, hidden 16, the byte tokenizer's 259 ids, EOS 258. */
export const TINY_BYTE_MODEL = parseModelConfig({
  model_type: 'llama',
  vocab_size: 259,
  hidden_size: 16,
  intermediate_size: 32,
  num_hidden_layers: 1,
  num_attention_heads: 2,
  num_key_value_heads: 2,
  max_position_embeddings: 512,
  tie_word_embeddings: true,
  eos_token_id: 258,
});

/** `Print 7.`: output_match only. */
export const PRINT_SEVEN: Task = {
  id: 'custom/seven',
  source: 'custom',
  prompt: 'Print 7.',
  expectedOutput: '7',
  tests: null,
  family: 'numbers',
  kind: 'print',
  difficulty: 1,
  split: 'train',
  solution: null,
};
