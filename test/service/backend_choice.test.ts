// `auto`'s rules (src/service/backend_choice.ts) with made-up timings: the faster backend wins, a
// failed probe loses to WASM, a manual choice skips the probe, and a remembered verdict is reused
// for its own model and device only.
import { describe, expect, it } from 'vitest';
import {
  type BackendProbe,
  type BackendTiming,
  decideBackend,
  fasterBackend,
  type ProbedBackend,
  probeKey,
  rememberedProbes,
  rememberProbe,
} from '../../src/service/backend_choice.ts';
import { backendProbeText } from '../../src/ui/state/format.ts';

const timing = (backend: ProbedBackend, msPerToken: number): BackendTiming => ({
  backend,
  msPerToken,
  decodeMsPerToken: msPerToken / 2,
  trainMsPerToken: msPerToken / 2,
});

/** A measure that reports fixed figures (a string: it throws that), and counts its calls. */
function fakeMeasure(figures: Record<ProbedBackend, number | string>) {
  const calls: ProbedBackend[] = [];
  return {
    calls,
    measure: async (backend: ProbedBackend) => {
      calls.push(backend);
      const figure = figures[backend];
      if (typeof figure === 'string') throw new Error(figure);
      return timing(backend, figure);
    },
  };
}

const key = probeKey('demo', 'SwiftShader Device', 2);
const both: ProbedBackend[] = ['wasm', 'webgpu'];

describe('auto backend choice', () => {
  it('picks the faster backend by measurement', async () => {
    for (const [wasm, webgpu, expected] of [
      [0.7, 4.1, 'wasm'],
      [3.2, 0.4, 'webgpu'],
    ] as const) {
      const { calls, measure } = fakeMeasure({ wasm, webgpu });
      const decision = await decideBackend({
        requested: 'auto',
        key,
        remembered: {},
        available: both,
        measure,
      });
      expect(calls).toEqual(['wasm', 'webgpu']);
      expect(decision.kind).toBe('probe');
      if (decision.kind !== 'probe') return;
      expect(decision.probe.chosen).toBe(expected);
      expect(decision.probe.remembered).toBe(false);
      expect(decision.probe.timings.map((t) => t.msPerToken)).toEqual([wasm, webgpu]);
    }
  });

  it('falls back to WASM when the WebGPU probe fails (throws, or loses its adapter)', async () => {
    const { measure } = fakeMeasure({ wasm: 5, webgpu: 'GPU device was lost' });
    const decision = await decideBackend({
      requested: 'auto',
      key,
      remembered: {},
      available: both,
      measure,
    });
    if (decision.kind !== 'probe') throw new Error(`expected a probe, got ${decision.kind}`);
    expect(decision.probe.chosen).toBe('wasm');
    expect(decision.probe.timings[1]).toMatchObject({
      backend: 'webgpu',
      msPerToken: null,
      error: 'GPU device was lost',
    });
    expect(backendProbeText(decision.probe)).toBe('— chosen: 5 ms/token vs WebGPU failed');
    // and when no figure came back at all, or not a finite one
    expect(fasterBackend([])).toBe('wasm');
    expect(fasterBackend([timing('webgpu', Number.NaN), timing('wasm', 9)])).toBe('wasm');
  });

  it('never probes a manual choice', async () => {
    const { calls, measure } = fakeMeasure({ wasm: 9, webgpu: 1 });
    for (const requested of ['wasm', 'webgpu', 'cpu'] as const) {
      const decision = await decideBackend({
        requested,
        key,
        remembered: {},
        available: both,
        measure,
      });
      expect(decision).toEqual({ kind: 'manual', backend: requested });
    }
    expect(calls).toEqual([]);
  });

  it('does not probe where WASM is the only backend', async () => {
    const { calls, measure } = fakeMeasure({ wasm: 1, webgpu: 1 });
    const decision = await decideBackend({
      requested: 'auto',
      key: probeKey('demo', null, 2),
      remembered: {},
      available: ['wasm'],
      measure,
    });
    expect(decision).toEqual({ kind: 'only', backend: 'wasm' });
    expect(calls).toEqual([]);
  });

  it('reuses the verdict remembered for this model and device, and only for them', async () => {
    const store = new Map<string, string>();
    const settings = { get: (k: string) => store.get(k) ?? null, set: store.set.bind(store) };
    const first = await decideBackend({
      requested: 'auto',
      key,
      remembered: rememberedProbes(settings),
      available: both,
      measure: fakeMeasure({ wasm: 0.7, webgpu: 4.1 }).measure,
    });
    if (first.kind !== 'probe') throw new Error('expected a probe');
    rememberProbe(settings, first.probe);

    // the same model and device: no probe, the same verdict, marked as remembered
    const again = fakeMeasure({ wasm: 9, webgpu: 1 });
    const second = await decideBackend({
      requested: 'auto',
      key: probeKey('demo', 'SwiftShader Device', 2),
      remembered: rememberedProbes(settings),
      available: both,
      measure: again.measure,
    });
    expect(again.calls).toEqual([]);
    expect(second).toEqual({ kind: 'probe', probe: { ...first.probe, remembered: true } });
    if (second.kind === 'probe')
      expect(backendProbeText(second.probe)).toBe(
        '— chosen: 0.7 ms/token vs WebGPU 4.1 ms/token (remembered)',
      );

    // another model, another adapter, another thread count: measured afresh
    for (const other of [
      probeKey('HuggingFaceTB/SmolLM2-135M-Instruct', 'SwiftShader Device', 2),
      probeKey('demo', 'NVIDIA GeForce RTX 4090', 2),
      probeKey('demo', 'SwiftShader Device', 4),
    ]) {
      const fresh = fakeMeasure({ wasm: 9, webgpu: 1 });
      const decision = await decideBackend({
        requested: 'auto',
        key: other,
        remembered: rememberedProbes(settings),
        available: both,
        measure: fresh.measure,
      });
      expect(fresh.calls).toEqual(['wasm', 'webgpu']);
      if (decision.kind === 'probe') expect(decision.probe.chosen).toBe('webgpu');
    }

    // a manual choice still wins over a remembered verdict
    const manual = await decideBackend({
      requested: 'webgpu',
      key,
      remembered: rememberedProbes(settings),
      available: both,
      measure: again.measure,
    });
    expect(manual).toEqual({ kind: 'manual', backend: 'webgpu' });
  });

  it('keeps the newest verdicts and survives a store that holds nonsense', () => {
    const store = new Map<string, string>([['backendProbes', '{not json']]);
    const settings = { get: (k: string) => store.get(k) ?? null, set: store.set.bind(store) };
    expect(rememberedProbes(settings)).toEqual({});
    expect(rememberedProbes(undefined)).toEqual({});
    const probe = (model: string): BackendProbe => ({
      key: probeKey(model, 'gpu', 1),
      chosen: 'wasm',
      timings: [timing('wasm', 1), timing('webgpu', 2)],
      milliseconds: 900,
      remembered: false,
    });
    for (let i = 0; i < 25; i++) rememberProbe(settings, probe(`model-${i}`));
    const kept = Object.keys(rememberedProbes(settings));
    expect(kept).toHaveLength(20);
    expect(kept.at(-1)).toBe(probeKey('model-24', 'gpu', 1));
    expect(kept).not.toContain(probeKey('model-4', 'gpu', 1));
  });
});
