// The page's `auto` in the trainer worker: start WASM, start WebGPU where an adapter exists,
// probe both on the run's model (backend_probe.ts), or reuse the verdict remembered for this
// model and device, and leave the faster one active (backend_choice.ts). tfjs runs one backend at
// a time; both stay registered, so switching back is tf.setBackend, and the probe frees its
// tensors on the backend that made them.
import * as tf from '@tensorflow/tfjs';
import type { BackendInfo, BackendName } from '../kernels/backend.ts';
import { type ModelConfig, parseModelConfig } from '../model_files/hf_config.ts';
import { readJson, type ModelSource } from '../model_files/source.ts';
import type { RunConfig } from '../run/config.ts';
import {
  decideBackend,
  failedTiming,
  probeKey,
  type BackendProbe,
  type BackendTiming,
  type ProbedBackend,
} from './backend_choice.ts';
import {
  measureBackend,
  PROBE_BUDGET_MS,
  probeBatch,
  probeModelConfig,
  probeWeights,
} from './backend_probe.ts';

/** What the backend choice reports: what runs, and the probe's verdict when `auto` measured. */
export interface BackendReport extends BackendInfo {
  probe: BackendProbe | null;
}

/** What `auto` needs to choose. */
export interface AutoBackendDeps {
  selectBackend(force: BackendName): Promise<BackendInfo>;
  /** The WebGPU adapter, or null (Node, or a browser without one). */
  webgpuAdapter(): Promise<BackendInfo['adapter']>;
  /**
   * WebGPU's probe (measureBackend) in a worker of its own, terminated when it answers or after
   * `stopAfterMs` (then it rejects): a step cannot be interrupted, and one left running on this
   * thread would go on beside the chosen backend. Absent: probed here, switching backends (Node
   * tests, with the CPU backend standing in).
   */
  webgpuProbe?(
    config: ModelConfig,
    run: RunConfig,
    budgetMs: number,
    stopAfterMs: number,
  ): Promise<BackendTiming>;
}

/**
 * A probe on this thread that has not answered by then has lost its adapter or hung: counted as
 * failed (its loops stop at their own deadline long before).
 */
const HANG_MS = 15_000;
/** The least a backend's loops get, so a slow start still leaves a step to time. */
const LEAST_MS = 200;
/** How long past its budget WebGPU's worker may take to finish the step it is in. */
const GRACE_MS = 300;

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} gave no answer in ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const adapterName = (adapter: BackendInfo['adapter']) =>
  adapter &&
  (adapter.description ||
    [adapter.vendor, adapter.architecture, adapter.device].filter(Boolean).join(' ') ||
    'unnamed adapter');

/**
 * Starts the backend `auto` should run `run`'s model (from `source`) on, and says why; `remembered`
 * holds earlier verdicts by key.
 */
export async function autoBackend(
  deps: AutoBackendDeps,
  source: ModelSource,
  run: RunConfig,
  remembered: Readonly<Record<string, BackendProbe>>,
): Promise<BackendReport> {
  const wasm = await deps.selectBackend('wasm');
  let model: ModelConfig;
  try {
    model = parseModelConfig(await readJson(source, 'config.json'), `${source.name}/config.json`);
  } catch (error) {
    // nothing to probe with: WASM, and loading the model says what is wrong with it
    return { ...wasm, skipped: [`probe: ${(error as Error).message}`], probe: null };
  }
  const adapter = await deps.webgpuAdapter().catch(() => null);
  const key = probeKey(source.name, adapterName(adapter), wasm.threads ?? 1);
  const config = probeModelConfig(model);
  const weights = probeWeights(config);
  const end = performance.now() + PROBE_BUDGET_MS;
  let gpu: BackendInfo | null = null;
  const measure = async (backend: ProbedBackend): Promise<BackendTiming> => {
    // WASM first, with at most half; WebGPU the rest (its start and shader compiles cost more)
    const left = end - performance.now();
    const budget = Math.max(LEAST_MS, backend === 'wasm' ? left / 2 : left);
    if (backend === 'webgpu' && deps.webgpuProbe) {
      const started = performance.now();
      try {
        return await deps.webgpuProbe(config, run, budget, budget + GRACE_MS);
      } catch (error) {
        if ((error as Error).message !== 'out of time') throw error;
        // not one decoding step within the budget: the probe's figure would be over this
        const spent = (performance.now() - started) / probeBatch(run);
        return { ...failedTiming(backend, error), msPerToken: spent, lowerBound: true };
      }
    }
    if (backend === 'webgpu') gpu = await deps.selectBackend('webgpu');
    else await tf.setBackend('wasm');
    return withTimeout(
      measureBackend(backend, config, weights, run, budget),
      HANG_MS,
      `the ${backend} probe`,
    );
  };
  const decision = await decideBackend({
    requested: 'auto',
    key,
    remembered,
    available: adapter ? ['wasm', 'webgpu'] : ['wasm'],
    measure,
  });
  const onWasm = async (probe: BackendProbe | null, skipped: string[] = []) => {
    await tf.setBackend('wasm');
    return { ...wasm, adapter, skipped, probe };
  };
  if (decision.kind !== 'probe') return onWasm(null);
  const { probe } = decision;
  if (probe.chosen === 'wasm') return onWasm(probe);
  try {
    // a remembered verdict has not started WebGPU yet
    gpu ??= await deps.selectBackend('webgpu');
    return { ...gpu, probe };
  } catch (error) {
    const failed = failedTiming('webgpu', error);
    const timings = probe.timings.map((t) => (t.backend === 'webgpu' ? failed : t));
    return onWasm({ ...probe, chosen: 'wasm', timings }, [`webgpu: ${failed.error}`]);
  }
}
