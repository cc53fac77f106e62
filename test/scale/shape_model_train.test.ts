// A real architecture at a size CI can train: SmolLM2-135M's exact shapes (vocabulary 49152, width
// 576, 9 heads of 64 over 3 key heads, MLP 1536) cut to 2 layers, 35M parameters, written as a BF16
// checkpoint by cli make-shape-model. It loads as a run loads it (LoRA; frozen weights 16-bit in
// the dot store) and trains 2 GRPO steps through the real sandbox: tensors stay steady from one
// step to the next, and the WebAssembly memories' peak (heap_usage.ts) is what memory_estimate.ts
// says within ±25%. (This file runs in a worker of its own, so the memories start with it.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, describe, expect, it } from 'vitest';
import { writeShapeModel } from '../../src/cli/shape_model_command.ts';
import { openConfigSandbox } from '../../src/cli/node_run.ts';
import { selectBackend } from '../../src/kernels/backend.ts';
import { heapUsage } from '../../src/kernels/heap_usage.ts';
import { halfWeights } from '../../src/model/params.ts';
import { estimateMemory } from '../../src/model_files/memory_estimate.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { resolveRun } from '../../src/run/resolve.ts';
import { createTrainer, loadPolicy } from '../../src/service/session.ts';

const dir = mkdtempSync(join(tmpdir(), 'shape-model-'));

describe('a SmolLM2-135M-shaped model, 2 layers', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('trains 2 GRPO steps with frozen 16-bit weights, steady tensors, the heap peak as estimated', async () => {
    const written = await writeShapeModel({ preset: 'smollm2-135m', dir, layers: 2 });
    expect(written.parameters).toBeGreaterThan(30e6);
    await selectBackend({ force: 'wasm', threads: 'auto' });
    const config = presetConfig('default', {
      model: dir,
      tasks: 'seed',
      steps: 2,
      evalEvery: 0,
      groupSize: 4,
      promptsPerStep: 2,
      maxTurns: 2,
      maxNewTokens: 48,
    });
    const executor = await openConfigSandbox(config);
    const policy = await loadPolicy(directorySource(dir), config, 'path');
    try {
      // every matrix (2 layers x 7, and the tied embedding) 16-bit, none float32
      expect(halfWeights(policy.model.params)).toHaveLength(15);
      const trainer = createTrainer(policy, executor, config);
      const first = await trainer.runStep();
      const tensors = tf.memory().numTensors; // after the first step's AdamW moments
      const second = await trainer.runStep();
      expect(tf.memory().numTensors).toBe(tensors);
      for (const metrics of [first, second]) {
        expect(Number.isFinite(metrics.loss)).toBe(true);
        expect(metrics.generated_tokens_mean).toBeGreaterThan(0);
      }
      const peak = heapUsage().total;
      const estimate = estimateMemory(policy.model.config, {
        ...resolveRun(config).memoryShape,
        fileBytesPerParameter: 2,
      }).totalBytes;
      expect(estimate / peak).toBeGreaterThan(0.75);
      expect(estimate / peak).toBeLessThan(1.25);
      trainer.dispose();
    } finally {
      policy.dispose();
      await executor.close();
    }
  }, 600_000);
});
