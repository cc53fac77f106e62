// `auto` in the trainer service's init path (src/service/backend_auto.ts), in Node: the plain
// JavaScript CPU backend stands in for WebGPU (Node has none), so the probe really starts two
// tfjs backends, switches between them and must leave the chosen one active with no tensor left
// behind. The real WebGPU (Chromium's software adapter) is in test/e2e/page.test.ts.
import * as tf from '@tensorflow/tfjs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BackendInfo, selectBackend } from '../../src/kernels/backend.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { autoBackend } from '../../src/service/backend_auto.ts';
import { PROBE_BUDGET_MS } from '../../src/service/backend_probe.ts';

const demo = directorySource(join(import.meta.dirname, '..', '..', 'public', 'models', 'demo'));
// a small batch: plain JavaScript takes seconds over the default run's 18 sequences
const run = presetConfig('default', { promptsPerStep: 1, groupSize: 4 });
const adapter = {
  vendor: 'test',
  architecture: 'cpu',
  device: '',
  description: 'CPU standing in for WebGPU',
  isFallback: true,
};

/** The service's deps, with 'webgpu' started as the CPU backend (or failing, when told). */
function deps(gpu: 'cpu' | 'broken') {
  return {
    selectBackend: async (force: string): Promise<BackendInfo> => {
      if (force === 'wasm') return selectBackend({ force: 'wasm', threads: 'auto' });
      if (gpu === 'broken') throw new Error('requestDevice failed');
      return { ...(await selectBackend({ force: 'cpu' })), adapter };
    },
    webgpuAdapter: async () => adapter,
  };
}

describe('auto backend in the trainer service', () => {
  it('probes both backends within its budget, keeps the faster active and leaks nothing', async () => {
    await selectBackend({ force: 'wasm', threads: 'auto' });
    const before = tf.memory();
    const start = performance.now();
    const report = await autoBackend(deps('cpu'), demo, run, {});
    const wall = performance.now() - start;
    const probe = report.probe!;
    console.log(
      `probe ${probe.milliseconds.toFixed(0)} ms: ${probe.timings.map((t) => `${t.backend} ${t.msPerToken?.toFixed(3)} ms/token (decode ${t.decodeMsPerToken?.toFixed(3)}, train ${t.trainMsPerToken?.toFixed(3)})`).join('; ')}`,
    );
    expect(probe.timings.map((t) => t.backend)).toEqual(['wasm', 'webgpu']);
    for (const t of probe.timings) expect(t.msPerToken).toBeGreaterThan(0);
    // the SIMD kernels beat plain JavaScript, as WASM beats a software adapter in Chromium
    expect(probe.chosen).toBe('wasm');
    expect(report.name).toBe('wasm');
    expect(tf.getBackend()).toBe('wasm');
    // loops stop at the budget; a step already started finishes (generous: a busy 2-core VM
    // stretches a step)
    expect(wall).toBeLessThan(PROBE_BUDGET_MS + 10_000);
    const after = tf.memory();
    expect(after.numTensors).toBe(before.numTensors);
    expect(after.numBytes).toBe(before.numBytes);

    // the remembered verdict: no probe, the same choice, at once
    const again = await autoBackend(deps('cpu'), demo, run, { [probe.key]: probe });
    expect(again.probe).toEqual({ ...probe, remembered: true });
    expect(tf.getBackend()).toBe('wasm');
  });

  it('falls back to WASM when WebGPU cannot start, and when a remembered WebGPU no longer can', async () => {
    const report = await autoBackend(deps('broken'), demo, run, {});
    expect(report.name).toBe('wasm');
    expect(report.probe?.chosen).toBe('wasm');
    expect(report.probe?.timings[1]?.error).toBe('requestDevice failed');

    const stale = { ...report.probe!, chosen: 'webgpu' as const };
    const fallback = await autoBackend(deps('broken'), demo, run, { [stale.key]: stale });
    expect(fallback.name).toBe('wasm');
    expect(fallback.probe?.chosen).toBe('wasm');
    expect(fallback.skipped).toEqual(['webgpu: requestDevice failed']);
    expect(tf.getBackend()).toBe('wasm');
  });

  it('starts WASM when the model has no readable config.json (loading it then says why)', async () => {
    const missing = directorySource(join(import.meta.dirname, 'no-such-model'));
    const report = await autoBackend(deps('cpu'), missing, run, {});
    expect(report.name).toBe('wasm');
    expect(report.probe).toBeNull();
    expect(report.skipped[0]).toMatch(/^probe: /);
  });
});
