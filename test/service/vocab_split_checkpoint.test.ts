// A full fine-tuning run whose embedding is split by vocabulary (src/model/vocab_split.ts, the buffer
// limit set low): the trainer service's checkpoint holds one tensor and one pair of AdamW moments
// per chunk, and checkpoint -> restore -> continue gives the numbers of a run that never stopped.
// The sandbox is a fake that "runs" a program by echoing the digit it prints, so rewards vary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeExecutor } from '../../src/env/types.ts';
import { selectBackend } from '../../src/kernels/backend.ts';
import { setBufferLimitBytes } from '../../src/model/vocab_split.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { defaultConfig } from '../../src/run/config.ts';
import { encodeLink } from '../../src/run/link.ts';
import { TrainerService, type ServiceDeps } from '../../src/service/trainer_service.ts';
import { makeModelFolder, PROMPT } from '../helpers/tiny_policy.ts';

/** The policy's (48, 259) float32 embedding is 49.7 KB: chunks of 88, 88 and 83 tokens. */
const LIMIT = 20 * 1024;

const echoDigit: CodeExecutor = {
  execute: async (code) => ({
    observation: `${/print\((\d)\)/.exec(code)?.[1] ?? ''}\n`,
    ok: true,
    error: null,
    timedOut: false,
  }),
};

describe('full-mode checkpoints of a split embedding', () => {
  let dir: string;
  const services: TrainerService[] = [];
  beforeAll(async () => {
    dir = await makeModelFolder();
    setBufferLimitBytes(LIMIT);
  }, 300_000);
  afterAll(async () => {
    setBufferLimitBytes(null);
    await Promise.all(services.map((s) => s.close()));
  });

  const newService = async () => {
    const deps: ServiceDeps = {
      selectBackend: () => selectBackend({ force: 'wasm' }),
      createExecutor: async () => ({ ...echoDigit, close: async () => {} }) as never,
      sourceFor: () => ({ source: directorySource(dir), origin: 'path' }),
    };
    const service = new TrainerService(deps);
    services.push(service);
    await service.init({ backend: 'wasm', sandboxes: 1 }, () => {});
    const config = {
      ...defaultConfig(),
      tasks: 'custom' as const,
      customTasks: [{ prompt: PROMPT, expectedOutput: '7' }],
      finetune: 'full' as const,
      groupSize: 6,
      maxTurns: 1,
      maxNewTokens: 24,
      lr: 3e-3,
      seed: 11,
    };
    await service.configure(await encodeLink(config));
    await service.loadModel({ kind: 'demo' }, () => {});
    return service;
  };

  it('saves one tensor and one pair of moments per chunk; restore -> continue matches', async () => {
    const service = await newService();
    const first = await service.runStep(() => {});
    expect(first.reward_std).toBeGreaterThan(0); // mixed rewards: the step really trained
    const saved = await service.checkpoint();
    const chunks = saved.tensors.filter((t) => t.name.startsWith('model.embed_tokens.weight'));
    expect(chunks.map((t) => [t.name, t.shape])).toEqual([
      ['model.embed_tokens.weight#0', [48, 88]],
      ['model.embed_tokens.weight#1', [48, 88]],
      ['model.embed_tokens.weight#2', [48, 83]],
    ]);
    const moments = saved.optimizer.moments.map((m) => m.name);
    for (const { name } of chunks) expect(moments).toContain(name);
    const uninterrupted = await service.runStep(() => {});

    const resumed = await newService();
    await resumed.restore(saved);
    const continued = await resumed.runStep(() => {});
    expect(continued.step).toBe(2);
    expect(continued.reward_mean).toBe(uninterrupted.reward_mean);
    expect(continued.loss).toBeCloseTo(uninterrupted.loss!, 6);
    const [a, b] = [await service.checkpoint(), await resumed.checkpoint()];
    expect(b.tensors.map((t) => t.name)).toEqual(a.tensors.map((t) => t.name));
    a.tensors.forEach((tensor, i) =>
      expect(Array.from(b.tensors[i]!.data), tensor.name).toEqual(Array.from(tensor.data)),
    );
    // and the chunks moved: the embedding trained
    expect(a.tensors[0]!.data.some((v, j) => v !== saved.tensors[0]!.data[j])).toBe(true);
  }, 300_000);
});
