// The model benchmark's decoding section (model.ts lists its metrics): cached and uncached decoding
// at batch 1, batched decoding with the few-row products on the dot-product kernel (split over the
// helper threads, or on one thread) or on XNNPACK, and decoding with LoRA adapters, merged or
// through their ops. Separate from training (model_training.ts): the two share only the model.
import * as tf from '@tensorflow/tfjs';
import { dotProductActive, matmulThreadCount } from '../kernels/matmul/kernels.ts';
import { setSwitches } from '../kernels/switches.ts';
import { defaultLoraConfig } from '../model/lora.ts';
import { decoderForward, outputLogits } from '../model/decoder.ts';
import { maskBias } from '../model/kv_cache.ts';
import { CausalLM } from '../model/model.ts';
import { randomWeights } from '../model/random_weights.ts';
import { generate, type GenerateOptions } from '../model/sample.ts';
import { config, context, log, median, pushTo, seconds } from './model_setup.ts';
import { tokenOverhead } from './token_overhead.ts';

/** Last-position logits by a full forward pass over all ids (decoding without a cache). */
async function uncachedStep(model: CausalLM, ids: number[]): Promise<void> {
  const T = ids.length;
  const logits = tf.tidy(() => {
    const hidden = decoderForward(
      model,
      {
        ids: Int32Array.from(ids),
        batch: 1,
        time: T,
        positions: ids.map((_, t) => t),
        maskBias: maskBias(1, T, T, (_b, i, j) => j <= i),
      },
      model.forwardMode(false),
    );
    return outputLogits(model.params, tf.slice(hidden, [T - 1, 0], [1, config.hiddenSize]));
  });
  await logits.data();
  logits.dispose();
}

/**
 * Four short generations (batch 1, 8, 1, 8; 64 tokens): the kernels, and the helper threads, whose
 * code runs slower for their first thousands of products.
 */
async function warmUp(
  model: CausalLM,
  options: Omit<GenerateOptions, 'maxNewTokens'>,
): Promise<void> {
  for (const batch of [1, 8, 1, 8])
    await generate(
      model,
      Array.from({ length: batch }, (_, b) => [1 + b, 2, 3]),
      { ...options, maxNewTokens: 64 },
    );
}

/** Tokens per second of one cached decoding call at batch 1, context grown from 1 to 256. */
async function cachedRate(
  model: CausalLM,
  options: Omit<GenerateOptions, 'maxNewTokens'>,
): Promise<number> {
  const time = await seconds(() =>
    generate(model, [[1]], { ...options, maxNewTokens: context - 1 }),
  );
  return (context - 1) / time;
}

export async function decoding(): Promise<Record<string, number>> {
  const model = CausalLM.fromWeights(config, randomWeights(config, 1));
  const options = { temperature: 1, seed: 0, eosIds: [] as number[] };
  await warmUp(model, options);
  log('cached decoding, 1 -> 256 tokens');
  const cached = await cachedRate(model, options);
  log('uncached decoding, every 8th context length from 8 to 256');
  const lengths = Array.from({ length: context / 8 }, (_, i) => 8 * (i + 1));
  let total = 0;
  for (const length of lengths)
    total += await seconds(() =>
      uncachedStep(
        model,
        Array.from({ length }, (_, t) => (t * 7) % 2000),
      ),
    );
  const uncached = lengths.length / total; // mean cost per token over the growth
  // modes: the dot-product kernel split over the helper threads (as the page runs), the same on
  // one thread, and XNNPACK for the few-row products (one thread: it has no helpers)
  const helpers = matmulThreadCount() - 1;
  const modes = dotProductActive() ? ['dot', ...(helpers > 0 ? ['one'] : []), 'xnn'] : ['xnn'];
  log(
    `batched decoding, 16-token prompts, 64 new tokens (median of 5, batch 1 and 8 interleaved; ${modes.join(', ')})`,
  );
  const prompt = (b: number) => Array.from({ length: 16 }, (_, t) => (b * 31 + t * 7) % 2000);
  const times: Record<string, number[]> = {};
  for (let round = 0; round < 5; round++) {
    for (const mode of modes) {
      setSwitches({ dotProductKernel: mode !== 'xnn', dotProductThreads: mode !== 'one' }); // the helpers keep running: a restarted one is slow at first
      pushTo(
        times,
        `${mode}1`,
        await seconds(() => generate(model, [prompt(0)], { ...options, maxNewTokens: 64 })),
      );
      pushTo(
        times,
        `${mode}8`,
        await seconds(() =>
          generate(
            model,
            Array.from({ length: 8 }, (_, b) => prompt(b)),
            { ...options, maxNewTokens: 64 },
          ),
        ),
      );
    }
    setSwitches({ dotProductKernel: true, dotProductThreads: true });
  }
  const rate = (key: string, batch: number) => (batch * 64) / median(times[key]!);
  const main = modes[0]!;
  model.dispose();
  const lora = await loraDecoding(prompt, options);
  const late = await lateFigures(options);
  return {
    decode_cached_tok_s: cached,
    ...late,
    decode_uncached_tok_s: uncached,
    decode_batch1_tok_s: rate(`${main}1`, 1),
    decode_batch8_tok_s: rate(`${main}8`, 8),
    ...(times.one1
      ? {
          decode_batch1_1thread_tok_s: rate('one1', 1),
          decode_batch8_1thread_tok_s: rate('one8', 8),
        }
      : {}),
    ...(main === 'dot'
      ? {
          decode_batch1_xnnpack_tok_s: rate('xnn1', 1),
          decode_batch8_xnnpack_tok_s: rate('xnn8', 8),
        }
      : {}),
    ...lora,
  };
}

/**
 * Figures that eb03784's bench (the commit `--compare` checks cached decoding against) does not
 * have, measured last and on a model of their own, so every figure it does have is taken in the
 * same order and process state as there (the per-token overhead's product steps put 29 weight
 * copies in the dot store, and more calls warm the process up further):
 *   decode_cached_steady_tok_s  cached decoding 1 -> 256 tokens as decode_cached_tok_s, the median
 *                               of 5 calls after one more: what minutes of rollouts run, where
 *                               decode_cached_tok_s is the first such call after the warm-up and
 *                               carries whatever the process has not yet compiled or grown (V8
 *                               still optimizes the per-token JavaScript in the first calls after
 *                               the warm-up: performance.md (r))
 *   decode_token_*_ms           token_overhead.ts
 */
async function lateFigures(
  options: Omit<GenerateOptions, 'maxNewTokens'>,
): Promise<Record<string, number>> {
  const model = CausalLM.fromWeights(config, randomWeights(config, 1));
  await warmUp(model, options);
  log('cached decoding, 1 -> 256 tokens, 6 calls (the median of the last 5)');
  const rates: number[] = [];
  for (let call = 0; call < 6; call++) {
    const rate = await cachedRate(model, options);
    if (call > 0) rates.push(rate);
  }
  log('one cached step at 1-8 tokens of context, and its products alone (in turns)');
  const overhead = await tokenOverhead(model);
  model.dispose();
  return { decode_cached_steady_tok_s: median(rates), ...overhead };
}

/**
 * Batched decoding (batch 1 and 8, as above) of the model with LoRA adapters (rank 8 on every
 * projection, as the page trains, B nonzero): on the merged weights, decoding's default
 * (decode_lora_batch*_tok_s), and through the adapter's five ops a projection
 * (decode_lora_ops_batch*_tok_s). Median of 3 rounds, alternated.
 */
async function loraDecoding(
  prompt: (b: number) => number[],
  options: Omit<GenerateOptions, 'maxNewTokens'>,
): Promise<Record<string, number>> {
  const model = CausalLM.fromWeights(config, randomWeights(config, 1), {
    kind: 'lora',
    lora: { ...defaultLoraConfig, seed: 1 },
  });
  let seed = 1;
  for (const variable of model.trainableVariables().values())
    tf.tidy(() => variable.assign(tf.randomNormal(variable.shape, 0, 0.02, 'float32', seed++)));
  log(
    'batched decoding with LoRA adapters: merged weights, and the adapter ops (median of 3, alternated)',
  );
  const times: Record<string, number[]> = {};
  for (let round = 0; round < 4; round++) {
    for (const merged of [true, false]) {
      setSwitches({ mergedAdapters: merged });
      for (const batch of [1, 8]) {
        const time = await seconds(() =>
          generate(
            model,
            Array.from({ length: batch }, (_, b) => prompt(b)),
            { ...options, maxNewTokens: 64 },
          ),
        );
        if (round > 0)
          pushTo(
            times,
            `decode_lora${merged ? '' : '_ops'}_batch${batch}_tok_s`,
            (batch * 64) / time,
          ); // round 0 warms up
      }
    }
  }
  setSwitches({ mergedAdapters: true });
  model.dispose();
  return Object.fromEntries(Object.entries(times).map(([key, rates]) => [key, median(rates)]));
}
