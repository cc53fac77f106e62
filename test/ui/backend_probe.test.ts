// The page's side of `auto` (src/ui/state/run_setup.ts) against the fake trainer: the probe's
// verdict reaches the header's view-model and the settings store, the next page reuses it, a
// manual backend asks for no probe, and another model under `auto` is chosen for again.
import { describe, expect, it } from 'vitest';
import { defaultConfig, type RunConfig } from '../../src/run/config.ts';
import { type BackendProbe, probeKey } from '../../src/service/backend_choice.ts';
import { backendProbeDetails, backendProbeText } from '../../src/ui/state/format.ts';
import { RunController } from '../../src/ui/state/run_controller.ts';
import { FakeTrainer } from './fake_trainer.ts';

const verdict: BackendProbe = {
  key: probeKey('demo', 'google swiftshader', 2),
  chosen: 'wasm',
  timings: [
    { backend: 'wasm', msPerToken: 0.7, decodeMsPerToken: 0.3, trainMsPerToken: 0.4 },
    {
      backend: 'webgpu',
      msPerToken: 81,
      decodeMsPerToken: null,
      trainMsPerToken: null,
      lowerBound: true,
      error: 'out of time',
    },
  ],
  milliseconds: 1900,
  remembered: false,
};

function page(store: Map<string, string>) {
  const trainer = new FakeTrainer({ probe: verdict });
  const controller = new RunController({
    trainer,
    proxy: (f) => f,
    checkpoints: null,
    settings: { get: (k) => store.get(k) ?? null, set: (k, v) => store.set(k, v) },
  });
  return { trainer, controller };
}

const config = (overrides: Partial<RunConfig> = {}): RunConfig => ({
  ...defaultConfig(),
  ...overrides,
});

describe('auto backend on the page', () => {
  it('shows the verdict, remembers it, and the next visit reuses it', async () => {
    const store = new Map<string, string>();
    const first = page(store);
    expect(await first.controller.start(config())).toBe(true);
    expect(first.controller.backend?.name).toBe('wasm');
    expect(first.controller.backendProbe).toEqual(verdict);
    expect(backendProbeText(verdict)).toBe('— chosen: 0.7 ms/token vs WebGPU over 81 ms/token');
    expect(backendProbeDetails(verdict)).toMatch(
      /WASM: 0\.3 ms\/token decoding \+ 0\.4 training\nWebGPU: out of time before one decoding step ended/,
    );
    expect(JSON.parse(store.get('backendProbes')!)).toEqual({ [verdict.key]: verdict });

    const second = page(store);
    await second.controller.start(config());
    expect(second.controller.backendProbe).toEqual({ ...verdict, remembered: true });
  });

  it('asks for no probe when the backend is chosen by hand, and chooses again for another model', async () => {
    const manual = page(new Map());
    await manual.controller.start(config({ backend: 'wasm' }));
    expect(manual.controller.backendProbe).toBeNull();

    const auto = page(new Map());
    await auto.controller.start(config());
    expect(
      await auto.controller.applyConfig(config({ model: 'HuggingFaceTB/SmolLM2-135M-Instruct' })),
    ).toBe(true);
    expect(auto.trainer.calls.slice(-3)).toEqual([
      'chooseBackend:HuggingFaceTB/SmolLM2-135M-Instruct',
      'configure',
      'loadModel:HuggingFaceTB/SmolLM2-135M-Instruct',
    ]);
  });
});
