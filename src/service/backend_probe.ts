// One backend's probe for the page's `auto` (backend_choice.ts): how fast the active tfjs backend
// runs this model's work, in well under a second each (PROBE_BUDGET_MS for all of them):
//   decode  a batch decoding step at the run's batch (prompts per step x group size), the median
//           of a few steps after the first (which compiles WebGPU's shaders), per token
//   train   a forward and backward pass of the token log-probs over a micro-batch (two sequences
//           of one prompt's group), the run's LoRA (or full) training, again after that warm-up
//           pass when time allows, per token
// on a cut-down copy of the model: its widths, heads and training mode, but MAX_LAYERS layers, a
// vocabulary of at most MAX_VOCAB and made-up weights, so building it costs milliseconds and
// nothing is downloaded. The figures rank backends for this model; they do not predict a step
// (step_cost.ts does that from speed_probe.ts's measurement).
import * as tf from '@tensorflow/tfjs';
import { tokenLogprobs } from '../model/logprobs.ts';
import { CausalLM } from '../model/model.ts';
import { sumTensors } from '../model/ops.ts';
import type { WeightSource } from '../model/params.ts';
import { expectedShapes } from '../model/random_weights.ts';
import { generate } from '../model/sample.ts';
import type { ModelConfig } from '../model_files/hf_config.ts';
import type { RunConfig } from '../run/config.ts';
import { resolveRun } from '../run/resolve.ts';
import { floatToBf16Bits } from '../model_files/safetensors_write.ts';
import type { BackendTiming, ProbedBackend } from './backend_choice.ts';

/**
 * The whole probe's budget (every backend, set-up included), ms; with the grace a step in flight
 * gets to finish (backend_auto.ts), at most about 2 s.
 */
export const PROBE_BUDGET_MS = 1700;
const MAX_LAYERS = 2;
const MAX_VOCAB = 4096;
const PROMPT_TOKENS = 16;
const DECODE_STEPS = 8;
const TRAIN_TOKENS = 32;
const TRAIN_SEQUENCES = 2;

/** The probe model's config: the run's model, cut down (see above). */
export function probeModelConfig(config: ModelConfig): ModelConfig {
  return {
    ...config,
    numLayers: Math.min(config.numLayers, MAX_LAYERS),
    vocabSize: Math.min(config.vocabSize, MAX_VOCAB),
    maxPositions: Math.max(config.maxPositions, PROMPT_TOKENS + DECODE_STEPS + TRAIN_TOKENS),
  };
}

/**
 * Made-up weights for `config`, built once and shared by every backend's probe: a repeated table of
 * small values (the figures do not depend on the values, and Box-Muller draws of a 0.5B model's
 * layers would take most of the budget). The matrices come as BF16, as hub checkpoints ship them,
 * so each backend runs the path a real model takes: the 16-bit kernels on WASM, the decoding engine
 * and 16-bit products on WebGPU.
 */
export function probeWeights(config: ModelConfig): WeightSource {
  const shapes = expectedShapes(config);
  const table = Float32Array.from({ length: 4096 }, (_, i) =>
    bf16Value(floatToBf16Bits(Math.sin(i * 12.9898) * 0.02)),
  );
  const bitsTable = Uint16Array.from(table, floatToBf16Bits);
  const made = new Map<string, Float32Array>();
  const matrix = (name: string) => shapes.get(name)?.length === 2;
  return {
    has: (name) => shapes.has(name),
    shape: (name) => [...(shapes.get(name) ?? [])],
    dtype: (name) => (matrix(name) ? 'BF16' : 'F32'),
    bits16(name) {
      const shape = shapes.get(name);
      if (!shape || !matrix(name)) throw new Error(`no 16-bit tensor ${name} for this config`);
      const out = new Uint16Array(shape[0]! * shape[1]!);
      for (let i = 0; i < out.length; i += bitsTable.length)
        out.set(bitsTable.subarray(0, Math.min(bitsTable.length, out.length - i)), i);
      return out;
    },
    float32(name) {
      const cached = made.get(name);
      if (cached) return cached;
      const shape = shapes.get(name);
      if (!shape) throw new Error(`no tensor ${name} for this config`);
      const out = new Float32Array(shape.reduce((a, b) => a * b, 1));
      if (name.endsWith('norm.weight')) out.fill(1);
      else if (!name.endsWith('.bias'))
        for (let i = 0; i < out.length; i += table.length)
          out.set(table.subarray(0, Math.min(table.length, out.length - i)), i);
      made.set(name, out);
      return out;
    },
  };
}

/** The number a BF16 bit pattern stands for. */
function bf16Value(bits: number): number {
  return new Float32Array(new Uint32Array([bits << 16]).buffer)[0]!;
}

/** The sequences a decoding step of the run carries: prompts per step x group size. */
export function probeBatch(run: RunConfig): number {
  const { trainer } = resolveRun(run);
  return Math.max(1, trainer.promptsPerStep * trainer.rollout.groupSize);
}

/** Token ids 1..vocab-1 that vary by row and column. */
function rows(count: number, length: number, vocab: number, salt: number): number[][] {
  return Array.from({ length: count }, (_, b) =>
    Array.from({ length }, (_, t) => 1 + ((b * 131 + t * 17 + salt) % (vocab - 1))),
  );
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/**
 * Measures `backend` (the active tfjs backend) on the probe model; stops its loops at `budgetMs`
 * (a step already started runs to its end). Frees every tensor it made.
 */
export async function measureBackend(
  backend: ProbedBackend,
  config: ModelConfig,
  weights: WeightSource,
  run: RunConfig,
  budgetMs: number,
): Promise<BackendTiming> {
  const deadline = performance.now() + budgetMs;
  const resolved = resolveRun(run);
  const batch = probeBatch(run);
  const trainSequences = Math.max(
    1,
    Math.min(resolved.trainer.rollout.groupSize, run.microBatchSize, TRAIN_SEQUENCES),
  );
  // tidy: a probe runs on every page load, so nothing made while building may outlive it
  let model!: CausalLM;
  tf.tidy(() => {
    model = CausalLM.fromWeights(config, weights, resolved.training);
  });
  try {
    // decode: the time of each step after the first, read as the step's tokens come back
    const stamps: number[] = [];
    const start = performance.now();
    await generate(model, rows(batch, PROMPT_TOKENS, config.vocabSize, 0), {
      maxNewTokens: DECODE_STEPS,
      temperature: run.temperature > 0 ? run.temperature : 1,
      eosIds: [],
      shouldStop: (index, generated) => {
        if (index === 0 && stamps.length < generated.length) stamps.push(performance.now());
        return performance.now() > deadline;
      },
    });
    const steps = stamps.slice(1).map((t, i) => t - stamps[i]!);
    // out of time after one step: that step, compilation and prefill included, is the figure
    const stepMs = steps.length > 0 ? median(steps) : (stamps[0] ?? performance.now()) - start;
    const decodeMsPerToken = stepMs / batch;
    // out of time already (a slow backend, or one whose set-up ate the budget): what it has is a
    // lower bound, which never wins (backend_choice.ts)
    if (performance.now() > deadline)
      return {
        backend,
        msPerToken: decodeMsPerToken,
        decodeMsPerToken,
        trainMsPerToken: null,
        lowerBound: true,
      };

    // train: a forward and backward pass, timed again when the warm-up left time
    const ids = rows(trainSequences, TRAIN_TOKENS, config.vocabSize, 7);
    const variables = [...model.trainableVariables().values()];
    const pass = async () => {
      const t0 = performance.now();
      const { value, grads } = tf.variableGrads(
        () => tf.neg(tf.sum(tokenLogprobs(model, ids, { temperature: 1 }))) as tf.Scalar,
        variables,
      );
      // one read after every gradient: the backend has then finished all of them
      const total = tf.tidy(() =>
        sumTensors([value, ...Object.values(grads).map((g) => tf.sum(g))]),
      );
      await total.data();
      tf.dispose([value, total, ...Object.values(grads)]);
      return performance.now() - t0;
    };
    let trainMs = await pass();
    if (performance.now() + trainMs < deadline) trainMs = await pass();
    const trainMsPerToken = trainMs / (trainSequences * TRAIN_TOKENS);
    return {
      backend,
      msPerToken: decodeMsPerToken + trainMsPerToken,
      decodeMsPerToken,
      trainMsPerToken,
    };
  } finally {
    model.dispose();
  }
}
