// CLI commands over the model (docs/architecture.md §8): `logits` (float32 forward, one row per
// position) and `generate` (sample a continuation of a prompt). Both print one JSON object on
// stdout.
import { CausalLM } from '../model/model.ts';
import { directorySource } from '../model_files/node_source.ts';
import { generate } from '../model/sample.ts';
import { loadTokenizer } from '../tokenizer/index.ts';
import { numberOption, requireOption, type CliArgs } from './args.ts';
import { useNodeBackend } from './backend.ts';

/** Parses "1,2,3" into token ids, saying which entry is wrong. */
export function parseIds(text: string): number[] {
  const parts = text.split(',').map((part) => part.trim());
  return parts.map((part, index) => {
    const id = Number(part);
    if (part === '' || !Number.isInteger(id) || id < 0)
      throw new Error(
        `--ids entry ${index} (${JSON.stringify(part)}) is not a non-negative integer; pass e.g. --ids 1,2,3`,
      );
    return id;
  });
}

/** `logits --model DIR --ids 1,2,3` -> {"logits": [[...], ...]}. */
export async function logitsCommand(args: CliArgs): Promise<void> {
  const ids = parseIds(requireOption(args, 'ids'));
  await useNodeBackend(args);
  const model = await CausalLM.load(directorySource(requireOption(args, 'model')));
  const rows = model.logits(ids);
  model.dispose();
  process.stdout.write(
    `{"logits": [${rows.map((row) => `[${Array.from(row).join(', ')}]`).join(', ')}]}\n`,
  );
}

/**
 * `generate --model DIR --prompt TEXT [--max-new-tokens N --temperature T --seed S --chat]`
 * -> {"text": ..., "ids": [...]}: the new tokens only. `--chat` wraps the prompt as one user
 * message with the model's chat template; otherwise the text is encoded as it is.
 */
export async function generateCommand(args: CliArgs): Promise<void> {
  const dir = requireOption(args, 'model');
  const prompt = requireOption(args, 'prompt');
  const maxNewTokens = numberOption(args, 'max-new-tokens', 64);
  const temperature = numberOption(args, 'temperature', 1);
  const seed = numberOption(args, 'seed', 0);
  if (!Number.isInteger(maxNewTokens) || maxNewTokens < 0)
    throw new Error(`--max-new-tokens must be a non-negative integer, got ${maxNewTokens}`);
  if (temperature < 0)
    throw new Error(`--temperature must be >= 0 (0 is greedy), got ${temperature}`);
  await useNodeBackend(args);
  const source = directorySource(dir);
  const tokenizer = await loadTokenizer(source);
  const model = await CausalLM.load(source);
  const promptIds = args.flags.has('chat')
    ? tokenizer.encodeChat([{ role: 'user', content: prompt }], { addGenerationPrompt: true })
    : tokenizer.encode(prompt);
  if (promptIds.length === 0) throw new Error('--prompt encodes to no tokens; pass some text');
  const eosIds = [...new Set([...tokenizer.eosIds, ...model.config.eosTokenIds])];
  const result = await generate(model, [promptIds], { maxNewTokens, temperature, seed, eosIds });
  model.dispose();
  const ids = result.ids[0]!;
  process.stdout.write(
    `${JSON.stringify({ text: tokenizer.decode(ids, { skipSpecialTokens: true }), ids })}\n`,
  );
}
