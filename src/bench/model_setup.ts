// The benchmark model's shapes (the first benchmark's Llama: hidden 256, 4 layers, 4 heads, MLP 768, vocab
// 2000) and the small timing helpers that the model benchmark's sections (model_decoding.ts,
// model_training.ts, pytorch_reference.ts, model.ts) share, in one place so each section file
// reads on its own.
import { parseModelConfig } from '../model_files/hf_config.ts';

/** Appends `value` to the list under `key`, starting the list when there is none. */
export function pushTo(lists: Record<string, number[]>, key: string, value: number): void {
  const list = lists[key] ?? [];
  list.push(value);
  lists[key] = list;
}

export const config = parseModelConfig({
  model_type: 'llama',
  vocab_size: 2000,
  hidden_size: 256,
  intermediate_size: 768,
  num_hidden_layers: 4,
  num_attention_heads: 4,
  num_key_value_heads: 4,
  max_position_embeddings: 1024,
});
export const context = 256;

export function log(message: string): void {
  process.stderr.write(`[bench model] ${message}\n`);
}

export async function seconds(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return (performance.now() - start) / 1000;
}

/** The median of some timings (the upper one of an even count). */
export function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}
