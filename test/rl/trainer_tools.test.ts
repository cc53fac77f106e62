// A run's `tools` reach the rollout through the trainer (issue 32): config -> trainerSettings ->
// Trainer -> rollout, which renders the system prompt from them. A tiny random model and a fake
// sandbox: only the first message of each episode is looked at.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../src/kernels/backend.ts';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { CausalLM } from '../../src/model/model.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { SYSTEM_PROMPT, systemPrompt } from '../../src/rl/actions.ts';
import { Trainer } from '../../src/rl/trainer.ts';
import type { RunConfig } from '../../src/run/config.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { trainerSettings } from '../../src/service/settings.ts';
import type { CodeExecutor } from '../../src/env/types.ts';
import type { Task } from '../../src/tasks/task.ts';
import { loadTokenizer, type Tokenizer } from '../../src/tokenizer/index.ts';

const modelConfig = parseModelConfig({
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

const task: Task = {
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

const executor: CodeExecutor = {
  execute: async () => ({ ok: true, observation: '', timedOut: false, error: null }),
};

describe('the trainer passes the config tools to the rollout', () => {
  let tokenizer: Tokenizer;
  let model: CausalLM;
  beforeAll(async () => {
    await selectBackend({ force: 'wasm' });
    tokenizer = await loadTokenizer(directorySource('test/fixtures/tokenizers/bytes'));
    model = CausalLM.fromWeights(modelConfig, randomWeights(modelConfig, 1), { kind: 'full' });
  });
  afterAll(() => model?.dispose());

  /** The system message of the first rollout of a trainer built from `config`. */
  async function systemMessage(config: RunConfig): Promise<string> {
    const settings = trainerSettings(config);
    const trainer = new Trainer(
      { model, tokenizer, executor, reference: null },
      { ...settings, tasks: [task], evalTasks: [], promptsPerStep: 1 },
    );
    try {
      const report = await trainer.runPhase();
      expect(report.phase).toBe('rollout');
      return report.trajectories[0]!.messages[0]!.content;
    } finally {
      trainer.dispose();
    }
  }

  const small = { groupSize: 2, maxTurns: 1, maxNewTokens: 2, klCoef: 0, evalEvery: 0 };

  it('the default run keeps the prompt of before tools', async () => {
    const config = presetConfig('default', small);
    expect(trainerSettings(config).tools).toEqual(['execute_code', 'finish']);
    expect(await systemMessage(config)).toBe(SYSTEM_PROMPT);
  });

  it('a run with search tells the model about search', async () => {
    const tools: RunConfig['tools'] = ['execute_code', 'search', 'finish'];
    const config = presetConfig('default', { ...small, tools });
    expect(trainerSettings(config).tools).toEqual(tools);
    const prompt = await systemMessage(config);
    expect(prompt).toBe(systemPrompt(tools));
    expect(prompt).toMatch(/SEARCH: <what it should do>/);
  });
});
