// Test harness page for test/e2e/webgpu_trainer.test.ts: the whole trainer on a forced backend, as
// the trainer worker runs it (TrainerService over the demo model and the real Pyodide pool),
// checkpoints saved to and resumed from IndexedDB across backends, one update on a fixed batch
// (where the two backends' samples differ), and the kernels' fallbacks (webgpu_fallbacks.ts).
import * as tf from '@tensorflow/tfjs';
import { createBrowserSandboxPool } from '../../../src/env/browser_pool.ts';
import type { SandboxPool } from '../../../src/env/pool.ts';
import { selectBackend, type BackendName } from '../../../src/kernels/backend.ts';
import { gpuErrors } from '../../../src/kernels/webgpu/gpu.ts';
import { AdamW, clipScale, defaultAdamWConfig, globalNorm } from '../../../src/model/adamw.ts';
import { urlSource } from '../../../src/model_files/url_source.ts';
import { defaultConfig, type RunConfig } from '../../../src/run/config.ts';
import { encodeLink } from '../../../src/run/link.ts';
import { batchGradients, referenceLogprobs, type PackedSequence } from '../../../src/rl/update.ts';
import type { StepMetrics } from '../../../src/rl/types.ts';
import {
  type CheckpointStore,
  indexedDbCheckpointStore,
} from '../../../src/service/checkpoint_store.ts';
import { loadPolicy } from '../../../src/service/session.ts';
import { resolveRun } from '../../../src/run/resolve.ts';
import type { TrainerCheckpoint } from '../../../src/service/trainer_api.ts';
import { TrainerService } from '../../../src/service/trainer_service.ts';
import { fallbacks } from './webgpu_fallbacks.ts';

const wasmPaths = new URL('./tfjs-wasm', location.href).href;
const demo = () => urlSource(new URL('./models/demo', location.href).href, 'demo');

/**
 * The test's run: one seed task a step, G 2, one turn of 32 tokens, 2 PPO epochs over
 * micro-batches of one sequence; the format reward so that rewards vary from the first step.
 */
function runConfig(seed: number): RunConfig {
  return {
    ...defaultConfig(),
    tasks: 'seed',
    promptsPerStep: 1,
    groupSize: 2,
    maxTurns: 1,
    maxNewTokens: 32,
    ppoEpochs: 2,
    microBatchSize: 1,
    evalEvery: 0,
    seed,
    rewards: { output_match: 1, tests: 1, final_answer: 0, format: 1 },
  };
}

// One sandbox pool for every service of the page: each Pyodide start costs seconds.
let pool: SandboxPool | null = null;
let store: CheckpointStore | null = null;
// The last service, kept for the next call on its backend: init() measures the device's speed,
// seconds on the software adapter.
let open: { backend: BackendName; trainer: TrainerService } | null = null;

/** A TrainerService on `backend` with the demo model freshly loaded for the test's run. */
async function service(backend: BackendName, seed: number): Promise<TrainerService> {
  if (open?.backend === backend) {
    await selectBackend({ force: backend, wasmPaths });
    await open.trainer.reset(); // fresh adapters and optimizer, step 0
    return open.trainer;
  }
  await open?.trainer.close();
  pool ??= await createBrowserSandboxPool({ size: 2, firstReady: 1 });
  const shared = pool;
  const trainer = new TrainerService({
    selectBackend: () => selectBackend({ force: backend, wasmPaths }),
    createExecutor: async () => ({
      execute: (code, options) => shared.execute(code, options),
      judge: (code, tests, options) => shared.judge(code, tests, options),
      close: async () => {}, // the page's pool outlives the service
    }),
    sourceFor: () => ({ source: demo(), origin: 'demo' }),
  });
  await trainer.init({ backend, sandboxes: 2 }, () => {});
  await trainer.configure(await encodeLink(runConfig(seed)), { reload: false });
  await trainer.loadModel({ kind: 'demo' }, () => {});
  open = { backend, trainer };
  return trainer;
}

type Step = Pick<
  StepMetrics,
  'step' | 'reward_mean' | 'reward_std' | 'loss' | 'grad_norm' | 'kl' | 'update_skipped'
> & { seconds: number; numTensors: number };

const stepOf = (m: StepMetrics, seconds: number): Step => ({
  step: m.step,
  reward_mean: m.reward_mean,
  reward_std: m.reward_std,
  loss: m.loss,
  grad_norm: m.grad_norm,
  kl: m.kl,
  update_skipped: m.update_skipped,
  seconds,
  numTensors: tf.memory().numTensors,
});

/** Runs `steps` steps of `trainer`, keeping each step's samples; `after` runs after each. */
async function runSteps(
  trainer: TrainerService,
  steps: number,
  after: (step: number) => Promise<void>,
) {
  const out: (Step & { samples: PackedSequence[] })[] = [];
  for (let i = 0; i < steps; i++) {
    const started = performance.now();
    let samples: PackedSequence[] = [];
    const metrics = await trainer.runStep((report) => {
      if (report.phase === 'advantage')
        samples = report.trajectories.map((t) => ({
          ids: t.ids,
          actionMask: t.actionMask,
          advantage: t.advantage,
          oldLogprobs: t.oldLogprobs,
        }));
    });
    out.push({ ...stepOf(metrics, (performance.now() - started) / 1000), samples });
    await after(metrics.step);
  }
  return out;
}

/** Largest |a - b| over two checkpoints' weights and optimizer moments (-1: names differ). */
function checkpointDiff(a: TrainerCheckpoint, b: TrainerCheckpoint): number {
  const pairs: [Float32Array, Float32Array][] = [];
  if (
    a.tensors.length !== b.tensors.length ||
    a.optimizer.moments.length !== b.optimizer.moments.length
  )
    return -1;
  a.tensors.forEach((t, i) => pairs.push([t.data, b.tensors[i]!.data]));
  a.optimizer.moments.forEach((m, i) => {
    pairs.push([m.m, b.optimizer.moments[i]!.m], [m.v, b.optimizer.moments[i]!.v]);
  });
  let diff = 0;
  for (const [x, y] of pairs) {
    if (x.length !== y.length) return -1;
    for (let j = 0; j < x.length; j++) diff = Math.max(diff, Math.abs(x[j]! - y[j]!));
  }
  return diff;
}

const harness = {
  /**
   * `steps` GRPO steps on `backend`, from a fresh model or from the checkpoint `resumeKey` in
   * IndexedDB (then with the largest difference between the checkpoint and the state restored
   * from it); after step `saveAt` the checkpoint goes to IndexedDB under the run id `backend`.
   * tf.memory().numTensors is read after each step.
   */
  async train(
    backend: BackendName,
    seed: number,
    steps: number,
    saveAt: number,
    resumeKey: string | null = null,
  ) {
    store ??= await indexedDbCheckpointStore(indexedDB);
    const trainer = await service(backend, seed);
    let resumed: { step: number; optimizerStep: number; maxDiff: number; tensors: number } | null =
      null;
    if (resumeKey) {
      const saved = await store.load(resumeKey);
      await trainer.restore(saved);
      const restored = await trainer.checkpoint();
      resumed = {
        step: restored.step,
        optimizerStep: restored.optimizer.step,
        maxDiff: checkpointDiff(saved, restored),
        tensors: restored.tensors.length,
      };
    }
    let saved: { key: string; step: number; optimizerStep: number } | null = null;
    const run = await runSteps(trainer, steps, async (step) => {
      if (step !== saveAt) return;
      const checkpoint = await trainer.checkpoint();
      const entry = { runId: backend, savedAt: Date.now(), reason: 'manual' as const };
      const summary = await store!.save(
        { ...entry, model: { kind: 'demo' }, modelName: 'demo' },
        checkpoint,
      );
      saved = { key: summary.key, step: checkpoint.step, optimizerStep: checkpoint.optimizer.step };
    });
    return { backend: tf.getBackend(), resumed, steps: run, saved, gpuErrors: { ...gpuErrors } };
  },

  /**
   * One update's first epoch on a fixed batch, as the trainer runs it (reference log-probs with the
   * adapters off, micro-batched gradients, global norm, clipped AdamW): loss, norm, gradients and
   * the weights after the step, flattened in variable order.
   */
  async fixedBatch(backend: BackendName, seed: number, batch: PackedSequence[]) {
    await selectBackend({ force: backend, wasmPaths });
    const config = runConfig(seed);
    const policy = await loadPolicy(demo(), config, 'demo');
    const options = { ...resolveRun(config).trainer.update, maxTokens: config.maxNewTokens };
    const ref = await referenceLogprobs(policy.model, policy.reference, batch, options);
    const result = await batchGradients(policy.model, batch, ref, options);
    const norm = await globalNorm(result.grads);
    const variables = policy.model.trainableVariables();
    const optimizer = new AdamW(variables, { ...defaultAdamWConfig, learningRate: config.lr });
    optimizer.apply(result.grads, config.lr, clipScale(norm, 0.5 * norm)); // clipping takes part
    const flat = async (tensors: tf.Tensor[]) =>
      (await Promise.all(tensors.map(async (t) => Array.from(await t.data())))).flat();
    const names = [...variables.keys()];
    const out = {
      backend: tf.getBackend(),
      loss: result.loss,
      kl: result.kl,
      gradNorm: norm,
      grads: await flat(names.map((n) => result.grads[n]!)),
      weights: await flat(names.map((n) => variables.get(n)!)),
    };
    Object.values(result.grads).forEach((g) => g.dispose());
    optimizer.dispose();
    policy.dispose();
    return out;
  },

  async fallbacks(backend: BackendName) {
    await selectBackend({ force: backend, wasmPaths });
    return fallbacks();
  },
};

(window as unknown as { trainerHarness: typeof harness }).trainerHarness = harness;
document.getElementById('state')!.textContent = 'ready';
