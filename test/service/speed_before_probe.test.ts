// With `auto`, the trainer service measures WASM's speed before WebGPU's probe runs: a software
// adapter's probe leaves the CPU busy after it, and a speed read then made the page's estimate
// 10-20x too pessimistic. The order is what is checked (the speed probe is recorded, not run).
import { describe, expect, it, vi } from 'vitest';

const order: string[] = [];
vi.mock('../../src/service/speed_probe.ts', async (original) => {
  const real = await original<typeof import('../../src/service/speed_probe.ts')>();
  const tf = await import('@tensorflow/tfjs');
  return {
    ...real,
    measureSpeed: async () => {
      order.push(`speed on ${tf.getBackend()}`);
      return { backend: tf.getBackend(), gflops: 40, bandwidthGBs: 20, milliseconds: 1 };
    },
  };
});

describe('auto on a page with a WebGPU adapter', () => {
  it("measures WASM's speed before WebGPU's probe, and keeps it when WASM wins", async () => {
    const { TrainerService } = await import('../../src/service/trainer_service.ts');
    const { selectBackend } = await import('../../src/kernels/backend.ts');
    const { nodeModelSource } = await import('../../src/cli/node_run.ts');
    const { presetConfig } = await import('../../src/run/presets.ts');
    const service = new TrainerService({
      selectBackend: async (force) => {
        order.push(`select ${force}`);
        return selectBackend({ force: 'wasm', threads: 1 });
      },
      webgpuAdapter: async () => ({ vendor: 'google', architecture: 'swiftshader' }) as never,
      webgpuProbe: async () => {
        order.push('webgpu probe');
        // out of time before one step: WASM wins, even when a loaded host makes WASM's own probe
        // run out of its budget too (a finite figure here would then win)
        return {
          backend: 'webgpu',
          msPerToken: 1e6,
          decodeMsPerToken: 1e6,
          trainMsPerToken: 0,
          lowerBound: true,
        };
      },
      createExecutor: async () => ({
        execute: async () => ({ ok: true, stdout: '', stderr: '', timedOut: false }) as never,
        close: async () => {},
      }),
      sourceFor: () => nodeModelSource('demo'),
    });
    const config = presetConfig('default');
    const report = await service.init(
      { backend: 'auto', probe: { model: { kind: 'demo' }, config, remembered: {} } },
      () => {},
    );
    expect(report.probe?.chosen).toBe('wasm');
    const probe = order.indexOf('webgpu probe');
    expect(probe).toBeGreaterThan(0);
    expect(order.slice(0, probe)).toContain('speed on wasm');
    // WASM won: no second measurement after the probe, the one from before is what the page gets
    expect(order.slice(probe).filter((x) => x.startsWith('speed'))).toEqual([]);
    expect(await service.measureSpeed()).toMatchObject({ backend: 'wasm', gflops: 40 });
  }, 60_000);
});
