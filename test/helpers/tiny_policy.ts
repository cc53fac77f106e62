// A small model folder (HF layout, byte tokenizer) whose policy, after a little SFT, answers
// "Print the number seven." with one of three programs, one of them right: rewards vary from the
// first step, so tests of training code see real advantages. Built in a temp folder per run.
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdamW, defaultAdamWConfig } from '../../src/model/adamw.ts';
import { selectBackend } from '../../src/kernels/backend.ts';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { hfWeights } from '../../src/model/hf_weights.ts';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { writeSafetensors } from '../../src/model_files/safetensors_write.ts';
import { SYSTEM_PROMPT } from '../../src/rl/actions.ts';
import { sftStep } from '../../src/rl/sft.ts';
import { loadTokenizer } from '../../src/tokenizer/index.ts';

const tokenizerDir = 'test/fixtures/tokenizers/bytes';
/** The one task's prompt; its expected output is 7. */
export const PROMPT = 'Print the number seven.';
const modelJson = {
  model_type: 'llama',
  architectures: ['LlamaForCausalLM'],
  vocab_size: 259,
  hidden_size: 48,
  intermediate_size: 96,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  max_position_embeddings: 512,
  rms_norm_eps: 1e-5,
  rope_theta: 10000,
  tie_word_embeddings: true,
  eos_token_id: 258,
};

/** A small model folder whose policy answers with one of three programs (one right): rewards vary. */
export async function makeModelFolder(): Promise<string> {
  await selectBackend({ force: 'wasm' });
  const dir = mkdtempSync(join(tmpdir(), 'service-model-'));
  const tokenizer = await loadTokenizer(directorySource(tokenizerDir));
  const model = CausalLM.fromWeights(
    parseModelConfig(modelJson),
    randomWeights(parseModelConfig(modelJson), 5),
    { kind: 'full' },
  );
  const prompt = tokenizer.encodeChat(
    [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: PROMPT },
    ],
    { addGenerationPrompt: true },
  );
  const examples = ['7', '5', '3'].map((digit) => {
    const answer = [
      ...tokenizer.encode(`\`\`\`python\nprint(${digit})\n\`\`\``, { addSpecialTokens: false }),
      tokenizer.eosIds[0]!,
    ];
    return { ids: [...prompt, ...answer], mask: [...prompt.map(() => 0), ...answer.map(() => 1)] };
  });
  const optimizer = new AdamW(model.trainableVariables(), {
    ...defaultAdamWConfig,
    weightDecay: 0,
  });
  for (let i = 0; i < 200; i++)
    if (sftStep(model, optimizer, examples, { learningRate: 1e-2, gradClip: 1 }) < 0.08) break;
  optimizer.dispose();
  writeFileSync(join(dir, 'config.json'), JSON.stringify(modelJson));
  writeFileSync(join(dir, 'model.safetensors'), writeSafetensors(hfWeights(model.params), 'F32'));
  for (const file of ['tokenizer.json', 'tokenizer_config.json'])
    copyFileSync(join(tokenizerDir, file), join(dir, file));
  model.dispose();
  return dir;
}
