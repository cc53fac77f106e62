// The trainer worker's API, driven in Node with the real sandbox pool: load a model folder, step
// through the four phases, export a PEFT adapter, and checkpoint -> restore -> continue, which must
// give the same numbers as a run that never stopped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { countParameters } from '../../src/model_files/memory_estimate.ts';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import { selectBackend } from '../../src/kernels/backend.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { parseSafetensors } from '../../src/model_files/safetensors.ts';
import { defaultConfig } from '../../src/run/config.ts';
import { encodeLink } from '../../src/run/link.ts';
import { TrainerService, type ServiceDeps } from '../../src/service/trainer_service.ts';
import { makeModelFolder, PROMPT } from '../helpers/tiny_policy.ts';

describe('TrainerService (the worker API) in Node', () => {
  let dir: string;
  const services: TrainerService[] = [];
  beforeAll(async () => {
    dir = await makeModelFolder();
  }, 300_000);
  afterAll(async () => {
    await Promise.all(services.map((s) => s.close()));
  });

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
    const config = {
      ...defaultConfig(),
      tasks: 'custom' as const,
      customTasks: [{ prompt: PROMPT, expectedOutput: '7' }],
      groupSize: 6,
      maxTurns: 1,
      maxNewTokens: 24,
      lr: 3e-3,
      seed: 11,
    };
    await service.configure(await encodeLink(config));
    const info = await service.loadModel({ kind: 'demo' }, () => {});
    expect(info.trainableParameters).toBeGreaterThan(0);
    expect(info.trainableParameters).toBeLessThan(info.parameters);
    // the header's count is the model's own, as config.json and the memory line count it
    const folderJson = JSON.parse(readFileSync(`${dir}/config.json`, 'utf8'));
    expect(info.parameters).toBe(countParameters(parseModelConfig(folderJson))); // LoRA's not in it
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
    // Step 1 really trained (mixed rewards), and step 2 moved the weights (KL and AdamW momentum),
    // so the equality above means something.
    expect(phases[3]!.metrics!.reward_std).toBeGreaterThan(0);
    const a = await service.checkpoint();
    expect(
      a.tensors.some((tensor, i) => tensor.data.some((v, j) => v !== saved.tensors[i]!.data[j])),
    ).toBe(true);
    const b = await resumed.checkpoint();
    a.tensors.forEach((tensor, i) =>
      expect(Array.from(b.tensors[i]!.data)).toEqual(Array.from(tensor.data)),
    );
    expect(b.metrics.map((m) => m.step)).toEqual([1, 2]);
  }, 300_000);

  it('exports the adapter in PEFT format and refuses a checkpoint of another model', async () => {
    const service = services[0]!;
    const files = await service.exportAdapter();
    // the model here comes from a temporary folder: the adapter names the folder, not its path
    expect(
      JSON.parse(new TextDecoder().decode(files['adapter_config.json'])).base_model_name_or_path,
    ).toMatch(/^service-model-[^/\\]+$/);
    const tensors = parseSafetensors(files['adapter_model.safetensors']!);
    expect(
      [...tensors.entries.keys()].every((name) =>
        name.startsWith('base_model.model.model.layers.'),
      ),
    ).toBe(true);
    const saved = await service.checkpoint();
    saved.tensors[0] = { ...saved.tensors[0]!, shape: [3, 3], data: new Float32Array(9) };
    await expect(service.restore(saved)).rejects.toThrow(/does not fit the loaded model/);
  }, 120_000);
});
