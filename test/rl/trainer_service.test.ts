// The trainer worker's API, driven in Node with the real sandbox pool: load a model folder, step
// through the four phases, export a PEFT adapter, and checkpoint -> restore -> continue, which must
// give the same numbers as a run that never stopped.
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import { AdamW, defaultAdamWConfig } from '../../src/model/adamw.ts';
import { selectBackend } from '../../src/model/backend.ts';
import { parseConfig as parseModelConfig } from '../../src/model/config.ts';
import { hfWeights } from '../../src/model/export.ts';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model/node_source.ts';
import { randomWeights } from '../../src/model/random_weights.ts';
import { writeSafetensors } from '../../src/model/safetensors_write.ts';
import { parseSafetensors } from '../../src/model/safetensors.ts';
import { defaultConfig } from '../../src/run/config.ts';
import { encodeLink } from '../../src/run/link.ts';
import { SYSTEM_PROMPT } from '../../src/rl/actions.ts';
import { sftStep } from '../../src/rl/sft.ts';
import { TrainerService, type ServiceDeps } from '../../src/rl/trainer_service.ts';
import { loadTokenizer } from '../../src/tokenizer/index.ts';

const tokenizerDir = 'test/fixtures/tokenizers/bytes';
const PROMPT = 'Print the number seven.';
const modelJson = {
  model_type: 'llama', architectures: ['LlamaForCausalLM'], vocab_size: 259, hidden_size: 48, intermediate_size: 96,
  num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, max_position_embeddings: 512,
  rms_norm_eps: 1e-5, rope_theta: 10000, tie_word_embeddings: true, eos_token_id: 258,
};

/** A small model folder whose policy answers with one of three programs (one right): rewards vary. */
async function makeModelFolder(): Promise<string> {
  await selectBackend({ force: 'wasm' });
  const dir = mkdtempSync(join(tmpdir(), 'service-model-'));
  const tokenizer = await loadTokenizer(directorySource(tokenizerDir));
  const model = CausalLM.fromWeights(parseModelConfig(modelJson), randomWeights(parseModelConfig(modelJson), 5), { kind: 'full' });
  const prompt = tokenizer.encodeChat([{ role: 'system', content: SYSTEM_PROMPT }, { role: 'user', content: PROMPT }], { addGenerationPrompt: true });
  const examples = ['7', '5', '3'].map((digit) => {
    const answer = [...tokenizer.encode(`\`\`\`python\nprint(${digit})\n\`\`\``, { addSpecialTokens: false }), tokenizer.eosIds[0]!];
    return { ids: [...prompt, ...answer], mask: [...prompt.map(() => 0), ...answer.map(() => 1)] };
  });
  const optimizer = new AdamW(model.trainableVariables(), { ...defaultAdamWConfig, weightDecay: 0 });
  for (let i = 0; i < 200; i++) if (sftStep(model, optimizer, examples, { learningRate: 1e-2, gradClip: 1 }) < 0.08) break;
  optimizer.dispose();
  writeFileSync(join(dir, 'config.json'), JSON.stringify(modelJson));
  writeFileSync(join(dir, 'model.safetensors'), writeSafetensors(hfWeights(model.params), 'F32'));
  for (const file of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(tokenizerDir, file), join(dir, file));
  model.dispose();
  return dir;
}

describe('TrainerService (the worker API) in Node', () => {
  let dir: string;
  const services: TrainerService[] = [];
  beforeAll(async () => { dir = await makeModelFolder(); }, 300_000);
  afterAll(async () => { await Promise.all(services.map((s) => s.close())); });

  const newService = async () => {
    const deps: ServiceDeps = {
      selectBackend: (force) => selectBackend({ force: force ?? 'wasm' }),
      createExecutor: (options) => createNodeSandboxPool(options),
      sourceFor: () => ({ source: directorySource(dir), origin: 'path' }),
    };
    const service = new TrainerService(deps);
    services.push(service);
    const progress: string[] = [];
    await service.init({ backend: 'wasm', sandboxes: 2 }, (p) => progress.push(p.stage));
    expect(progress).toContain('sandbox');
    const config = { ...defaultConfig(), tasks: 'custom' as const, customTasks: [{ prompt: PROMPT, expectedOutput: '7' }], groupSize: 6, maxTurns: 1, maxNewTokens: 24, lr: 3e-3, seed: 11 };
    await service.configure(await encodeLink(config));
    const info = await service.loadModel({ kind: 'demo' }, () => {});
    expect(info.trainableParameters).toBeGreaterThan(0);
    expect(info.trainableParameters).toBeLessThan(info.parameters);
    return service;
  };

  it('runs the phases in order, then checkpoint -> restore -> continue matches an uninterrupted run', async () => {
    const service = await newService();
    const phases = [];
    for (let i = 0; i < 4; i++) phases.push(await service.runPhase());
    expect(phases.map((p) => p.phase)).toEqual(['rollout', 'reward', 'advantage', 'update']);
    expect(phases[0]!.trajectories).toHaveLength(6);
    expect(phases[2]!.groups![0]!.advantages).toHaveLength(6);
    expect(phases[3]!.metrics!.step).toBe(1);

    const saved = await service.checkpoint();
    expect(saved.step).toBe(1);
    const uninterrupted = await service.runStep(() => {});

    const resumed = await newService();
    await resumed.restore(saved);
    const continued = await resumed.runStep(() => {});
    expect(continued.step).toBe(2);
    expect(continued.reward_mean).toBe(uninterrupted.reward_mean);
    expect(continued.loss).toBeCloseTo(uninterrupted.loss!, 6);
    // The step really trained (mixed rewards, weights moved), so equality above means something.
    expect(uninterrupted.reward_std).toBeGreaterThan(0);
    const a = await service.checkpoint();
    expect(a.tensors.some((tensor, i) => tensor.data.some((v, j) => v !== saved.tensors[i]!.data[j]))).toBe(true);
    const b = await resumed.checkpoint();
    a.tensors.forEach((tensor, i) => expect(Array.from(b.tensors[i]!.data)).toEqual(Array.from(tensor.data)));
    expect(b.metrics.map((m) => m.step)).toEqual([1, 2]);
  }, 300_000);

  it('exports the adapter in PEFT format and refuses a checkpoint of another model', async () => {
    const service = services[0]!;
    const files = await service.exportAdapter();
    const tensors = parseSafetensors(files['adapter_model.safetensors']!);
    expect([...tensors.entries.keys()].every((name) => name.startsWith('base_model.model.model.layers.'))).toBe(true);
    const saved = await service.checkpoint();
    saved.tensors[0] = { ...saved.tensors[0]!, shape: [3, 3], data: new Float32Array(9) };
    await expect(service.restore(saved)).rejects.toThrow(/does not fit the loaded model/);
  }, 120_000);
});
