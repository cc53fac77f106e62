// The speed the page's estimate counts (src/service/speed_probe.ts): the probe's positive figures
// within its time budget where it runs (WebGPU, the CPU backend), WASM's calibration without a
// measurement; read once by the trainer service's init() and then at once.
import { describe, expect, it } from 'vitest';
import { selectBackend } from '../../src/kernels/backend.ts';
import { matmulThreadCount } from '../../src/kernels/matmul/kernels.ts';
import { wasmSpeed } from '../../src/model_files/step_calibration.ts';
import { deviceSpeed, measureSpeed, PROBE_BUDGET_MS } from '../../src/service/speed_probe.ts';

describe('speed probe', () => {
  it('measures GFLOP/s and GB/s on wasm within its budget', async () => {
    await selectBackend({ force: 'wasm', threads: 'auto' });
    const started = performance.now();
    const speed = await measureSpeed();
    const wall = performance.now() - started;
    expect(speed.backend).toBe('wasm');
    expect(speed.gflops).toBeGreaterThan(0.5);
    expect(speed.gflops).toBeLessThan(10_000);
    expect(speed.bandwidthGBs).toBeGreaterThan(0.5);
    expect(speed.bandwidthGBs).toBeLessThan(10_000);
    // the loops stop at the budget; warm-up and one 64 MiB fill come on top (~0.2 s on a quiet
    // machine; the bound leaves a busy one room)
    expect(speed.milliseconds).toBeLessThan(PROBE_BUDGET_MS + 5000);
    expect(wall).toBeLessThan(PROBE_BUDGET_MS + 5000);
    expect(PROBE_BUDGET_MS).toBeLessThanOrEqual(1000);
  });

  it('measures on the cpu backend too', async () => {
    await selectBackend({ force: 'cpu' });
    const speed = await measureSpeed(100);
    expect(speed.backend).toBe('cpu');
    expect(speed.milliseconds).toBeLessThan(100 + 5000);
    expect(speed.gflops).toBeGreaterThan(0);
    expect(speed.bandwidthGBs).toBeGreaterThan(0);
    expect(await deviceSpeed(100)).toMatchObject({ backend: 'cpu', basis: 'probe' });
  });

  it("is WASM's calibration on WASM, for the kernels' threads, the same on every call", async () => {
    await selectBackend({ force: 'wasm', threads: 'auto' });
    const speed = await deviceSpeed();
    expect(speed).toMatchObject({ basis: 'calibrated', milliseconds: 0 });
    expect(speed).toMatchObject(wasmSpeed(matmulThreadCount()));
    expect(await deviceSpeed()).toEqual(speed);
  });

  it("is measured by the trainer service's init, before the sandbox starts, and read at once", async () => {
    // imported here: the service brings the whole model, which the probe itself does not need
    const { TrainerService } = await import('../../src/service/trainer_service.ts');
    const order: string[] = [];
    const service = new TrainerService({
      selectBackend: async () => {
        order.push('backend');
        return selectBackend({ force: 'wasm' });
      },
      createExecutor: async () => {
        order.push('sandbox');
        return {
          execute: async () => ({ ok: true, stdout: '', stderr: '', timedOut: false }) as never,
          close: async () => {},
        };
      },
      sourceFor: () => {
        throw new Error('no model in this test');
      },
    });
    await service.init({ backend: 'wasm' }, () => {});
    expect(order).toEqual(['backend', 'sandbox']);
    const speed = await service.measureSpeed();
    expect(await service.measureSpeed()).toBe(speed); // init read it: the same figures, kept
    expect(speed.basis).toBe('calibrated');
    expect(speed.backend).toBe('wasm');
    expect(speed.gflops).toBeGreaterThan(0);
    expect(speed.bandwidthGBs).toBeGreaterThan(0);
  });
});
