// The speed probe the page runs when it opens (src/service/speed_probe.ts): positive figures within
// its time budget, measured once by the trainer service's init() and then read at once.
import { describe, expect, it } from 'vitest';
import { selectBackend } from '../../src/kernels/backend.ts';
import { measureSpeed, PROBE_BUDGET_MS } from '../../src/service/speed_probe.ts';

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
    expect(await service.measureSpeed()).toBe(speed); // init measured it: the same figures, kept
    expect(speed.backend).toBe('wasm');
    expect(speed.gflops).toBeGreaterThan(0);
    expect(speed.bandwidthGBs).toBeGreaterThan(0);
  });
});
