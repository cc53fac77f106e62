// With `auto`, the estimate's speed on WASM is its calibration, not a measurement: a software
// adapter's WebGPU probe leaves the CPU busy after it (a speed read then made the page's estimate
// 10-20x too pessimistic), and a half-second probe on a shared CPU moved the figure by 30% between
// loads. So the service measures nothing on WASM, before the probe or after it (measurements are
// recorded, not run), and gives the calibrated speed for the kernels' threads.
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
  it("measures nothing on WASM: when WASM wins, the estimate counts WASM's calibration", async () => {
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
    expect(order).toContain('webgpu probe');
    expect(order.filter((x) => x.startsWith('speed'))).toEqual([]);
    const { wasmSpeed, REFERENCE_MACHINE } = await import(
      '../../src/model_files/step_calibration.ts'
    );
    const { matmulThreadCount } = await import('../../src/kernels/matmul/kernels.ts');
    const speed = await service.measureSpeed();
    expect(speed).toMatchObject({
      backend: 'wasm',
      basis: 'calibrated',
      reference: REFERENCE_MACHINE,
      ...wasmSpeed(matmulThreadCount()),
    });
    expect(await service.measureSpeed()).toEqual(speed); // the same figure every time
    expect(order.filter((x) => x.startsWith('speed'))).toEqual([]);
  }, 60_000);
});
