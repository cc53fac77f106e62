// A run's `tools` reach the episode loop through the trainer: config -> resolveRun ->
// Trainer -> runEpisodes, which renders the system prompt from them. A tiny random model and a fake
// sandbox: only the first message of each episode is looked at.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../src/kernels/backend.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { CausalLM } from '../../src/model/model.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { SYSTEM_PROMPT, systemPrompt } from '../../src/rl/actions.ts';
import { Trainer } from '../../src/training/trainer.ts';
import type { RunConfig } from '../../src/run/config.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { resolveRun } from '../../src/run/resolve.ts';
import type { CodeExecutor } from '../../src/env/types.ts';
import type { Task } from '../../src/tasks/task.ts';
import { loadTokenizer, type Tokenizer } from '../../src/tokenizer/index.ts';
import { PRINT_SEVEN, TINY_BYTE_MODEL } from '../helpers/tiny_trainer.ts';

const modelConfig = TINY_BYTE_MODEL;

const task: Task = PRINT_SEVEN;

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
    const settings = resolveRun(config).trainer;
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

  it('the default run has the two-tool prompt the demo model was trained on', async () => {
    const config = presetConfig('default', small);
    expect(resolveRun(config).trainer.rollout.tools).toEqual(['execute_code', 'finish']);
    expect(await systemMessage(config)).toBe(SYSTEM_PROMPT);
  });

  it('a run with search tells the model about search', async () => {
    const tools: RunConfig['tools'] = ['execute_code', 'search', 'finish'];
    const config = presetConfig('default', { ...small, tools });
    expect(resolveRun(config).trainer.rollout.tools).toEqual(tools);
    const prompt = await systemMessage(config);
    expect(prompt).toBe(systemPrompt(tools));
    expect(prompt).toMatch(/SEARCH: <what it should do>/);
  });
});
