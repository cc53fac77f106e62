// Thin shell: the WebGPU half of the page's `auto` probe (src/service/backend_probe.ts) in a
// worker of its own, so a probe that overruns its budget (a software adapter compiling shaders
// for many seconds) is stopped by terminating the worker, with nothing left on the trainer's
// backend. Started by the trainer worker, once per probe.
import { expose } from 'comlink';
import { selectBackend } from '../src/kernels/backend.ts';
import type { ModelConfig } from '../src/model_files/hf_config.ts';
import type { RunConfig } from '../src/run/config.ts';
import { measureBackend, probeWeights } from '../src/service/backend_probe.ts';

expose({
  async measure(config: ModelConfig, run: RunConfig, budgetMs: number) {
    await selectBackend({ force: 'webgpu' });
    return measureBackend('webgpu', config, probeWeights(config), run, budgetMs);
  },
});
