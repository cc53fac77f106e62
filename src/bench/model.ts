// `npm run bench -- --only model`: decoding and training speed of the tfjs model on WASM, with the
// shapes of issue 2: a Llama with hidden 256, 4 layers, 4 heads, MLP 768, vocab 2000.
//   decode_cached_tok_s / decode_uncached_tok_s  batch 1, context grown from 1 to 256 tokens
//   decode_batch1_tok_s / decode_batch8_tok_s    total new tokens per second, 16-token prompts
//                                                (few-row products split over model_threads)
//   decode_batch{1,8}_1thread_tok_s              the same with those products on the calling thread
//   decode_batch{1,8}_xnnpack_tok_s              the same with the linear layers' few-row products
//                                                on XNNPACK instead of the dot-product kernel
//   decode_lora_batch{1,8}_tok_s                 the same model with LoRA adapters (rank 8, every
//                                                projection, as the page trains), on merged weights
//   decode_lora_ops_batch{1,8}_tok_s             the same through the adapters' own ops
//   train_step_ms                                full-parameter step on 4 x 128 predicted tokens, with
//                                                the kernel's large products on every core (up to 4;
//                                                model_threads), as the page runs
//   train_step_1thread_ms                        the same step on one thread
//   train_step_tfjs_matmul_ms                    the same step with attention on tf.matMul instead
//                                                of our SIMD kernel (src/kernels/matmul_dispatch.ts)
//   train_step_no_fma_ms                         the step with the kernel's relaxed-SIMD build off,
//                                                so the linear layers run on XNNPACK (`npm run bench`
//                                                turns relaxed SIMD on, as Chromium has it; plain
//                                                Node 20 has it off)
// and, when Debian's python3 with torch is there, PyTorch's time for the same step
// (scripts/bench/pytorch_train_step.py; its speed depends on the BLAS libblas.so.3 points to),
// alternated with ours in rounds (train_step_vs_pytorch: the median of the rounds' ratios):
//   pytorch_train_step_ms                        torch on 1 thread, OpenBLAS's products on every
//                                                core (its default, and PyTorch's fastest here)
//   pytorch_train_step_1core_ms                  the same with OPENBLAS_NUM_THREADS=1, against
//                                                train_step_1thread_ms
// and what this CPU lets decoding's products reach (roofline.ts: fma_peak_gflops, step_products_*),
// which bounds decode_batch8_vs_batch1.
import * as tf from '@tensorflow/tfjs';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { AdamW, clipScale, globalNorm } from '../model/adamw.ts';
import {
  dotProductActive,
  fusedMultiplyAddActive,
  matmulThreadCount,
  useMatmulThreads,
} from '../kernels/matmul_dispatch.ts';
import { setSwitches, withSwitches } from '../kernels/switches.ts';
import { defaultLoraConfig } from '../model/lora.ts';
import { selectBackend } from '../kernels/backend.ts';
import { parseModelConfig } from '../model_files/hf_config.ts';
import { decoderForward, outputLogits } from '../model/decoder.ts';
import { maskBias } from '../model/kv_cache.ts';
import { tokenLogprobs } from '../model/logprobs.ts';
import { CausalLM } from '../model/model.ts';
import { randomWeights } from '../model/random_weights.ts';
import { generate, type GenerateOptions } from '../model/sample.ts';
import { roofline } from './roofline.ts';

/** Appends `value` to the list under `key`, starting the list when there is none. */
function pushTo(lists: Record<string, number[]>, key: string, value: number): void {
  const list = lists[key] ?? [];
  list.push(value);
  lists[key] = list;
}

const config = parseModelConfig({
  model_type: 'llama',
  vocab_size: 2000,
  hidden_size: 256,
  intermediate_size: 768,
  num_hidden_layers: 4,
  num_attention_heads: 4,
  num_key_value_heads: 4,
  max_position_embeddings: 1024,
});
const context = 256;

function log(message: string): void {
  process.stderr.write(`[bench model] ${message}\n`);
}

async function seconds(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return (performance.now() - start) / 1000;
}

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

async function decoding(): Promise<Record<string, number>> {
  const model = CausalLM.fromWeights(config, randomWeights(config, 1));
  const options = { temperature: 1, seed: 0, eosIds: [] as number[] };
  // warm up: kernels, and the helper threads, whose code runs slower for their first thousands of
  // products
  for (const batch of [1, 8, 1, 8])
    await generate(
      model,
      Array.from({ length: batch }, (_, b) => [1 + b, 2, 3]),
      { ...options, maxNewTokens: 64 },
    );
  log('cached decoding, 1 -> 256 tokens');
  const cached =
    (context - 1) /
    (await seconds(() => generate(model, [[1]], { ...options, maxNewTokens: context - 1 })));
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
  return {
    decode_cached_tok_s: cached,
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

/** The median of some timings (the upper one of an even count). */
export function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

/**
 * A full-parameter training step of the benchmark's model, made once and run as often as asked
 * (milliseconds each).
 */
function trainingStep(): { step(): Promise<number>; dispose(): void } {
  const model = CausalLM.fromWeights(config, randomWeights(config, 1), { kind: 'full' });
  const variables = model.trainableVariables();
  const names = [...variables.keys()];
  const list = [...variables.values()];
  const optimizer = new AdamW(variables);
  const ids = Array.from({ length: 4 }, (_, b) =>
    Array.from({ length: 129 }, (_, t) => (b * 131 + t * 17) % 2000),
  );
  const step = () =>
    seconds(async () => {
      const { value, grads } = tf.variableGrads(
        () => tf.neg(tf.mean(tokenLogprobs(model, ids, { temperature: 1 }))) as tf.Scalar,
        list,
      );
      const named: Record<string, tf.Tensor> = {};
      list.forEach((variable, i) => (named[names[i]!] = grads[variable.name]!));
      // clipping as the trainer does it (update.ts): the norm read back, the factor given to AdamW
      optimizer.apply(named, undefined, clipScale(await globalNorm(named), 1));
      await value.data();
      tf.dispose([value, ...Object.values(grads)]);
    });
  return {
    step: async () => 1000 * (await step()),
    dispose: () => {
      optimizer.dispose();
      model.dispose();
    },
  };
}

/** Median milliseconds of a training step (3 after one that warms up kernels and allocations). */
async function training(): Promise<number> {
  const trainer = trainingStep();
  const times: number[] = [];
  for (let step = 0; step < 4; step++) {
    const time = await trainer.step();
    if (step > 0) times.push(time);
  }
  trainer.dispose();
  return median(times);
}

/**
 * PyTorch's step (scripts/bench/pytorch_train_step.py --serve), asked for steps on demand; null
 * without python3 and torch.
 */
async function pytorchServer(
  env: Record<string, string>,
): Promise<{ steps(count: number): Promise<number[]>; blas: string | null; close(): void } | null> {
  const script = join(
    dirname(fileURLToPath(import.meta.url)),
    '..',
    '..',
    'scripts',
    'bench',
    'pytorch_train_step.py',
  );
  if (!existsSync('/usr/bin/python3')) return null;
  const child = spawn('/usr/bin/python3', [script, '--threads', '1', '--serve'], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.on('error', () => {}); // a PyTorch that died: next() says so with its stderr
  const exited = new Promise<string>((resolve) =>
    child.once('close', (code, signal) =>
      resolve(signal ? `python3 ended by ${signal}` : `python3 exited with code ${code}`),
    ),
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    if (line.done) {
      const how = await exited; // and all of its stderr read
      throw new Error(stderr.trim().split('\n').at(-1) || how);
    }
    return JSON.parse(line.value) as unknown;
  };
  try {
    const about = (await next()) as { blas: string | null };
    return {
      blas: about.blas,
      steps: async (count) => {
        child.stdin.write(`3 ${count}\n`); // 3 steps unmeasured: PyTorch's first ones after idling are slow
        return (await next()) as number[];
      },
      close: () => child.kill(),
    };
  } catch (error) {
    log(`PyTorch reference unavailable: ${(error as Error).message}`);
    child.kill();
    return null;
  }
}

/**
 * Our step against PyTorch's, alternated in rounds of 6 steps each so both see the same machine
 * (these VMs' speed drifts by tens of percent within minutes), each side's round after steps of its
 * own to warm up: medians of each side's steps and the median of the rounds' ratios. PyTorch
 * without a server: our steps alone.
 */
async function trainingAgainst(
  torch: Awaited<ReturnType<typeof pytorchServer>>,
  rounds = 4,
): Promise<{ ours: number; theirs: number | null; ratio: number | null }> {
  const trainer = trainingStep();
  await trainer.step(); // warm-up: kernels, allocations, the transposed weight copies
  await trainer.step();
  const ours: number[] = [];
  const theirs: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < (torch ? rounds : 1); round++) {
    await trainer.step(); // as PyTorch's round gets
    const mine: number[] = [];
    for (let i = 0; i < 6; i++) mine.push(await trainer.step());
    ours.push(...mine);
    if (!torch) break;
    let other: number[];
    try {
      other = await torch.steps(6);
    } catch (error) {
      log(`PyTorch reference stopped (${(error as Error).message}); our steps alone from here`);
      break;
    }
    theirs.push(...other);
    ratios.push(median(mine) / median(other));
    log(
      `  round ${round + 1}: ours ${mine.map(Math.round).join(', ')} ms; PyTorch ${other.map(Math.round).join(', ')} ms`,
    );
  }
  trainer.dispose();
  return {
    ours: median(ours),
    theirs: ratios.length ? median(theirs) : null,
    ratio: ratios.length ? median(ratios) : null,
  };
}

/** The model section of `npm run bench`. */
export async function benchModel(): Promise<Record<string, unknown>> {
  // every core (up to 4) for the kernel's large products, as the page and the CLI run
  const backend = await selectBackend({ force: 'wasm', threads: 'auto' });
  const fused = fusedMultiplyAddActive();
  log("roofline: the FMA peak, one decoding step's products at batch 1 and 8");
  const ceiling = await roofline(config, backend.threads! - 1);
  const decode = await decoding();
  // PyTorch as it is fastest here: one torch thread, OpenBLAS's products on every core (its
  // default)
  const torch = await pytorchServer({});
  log(
    `training step (${backend.threads} threads)${torch ? ", alternated with PyTorch's (/usr/bin/python3, torch 1 thread, OpenBLAS every core)" : ''}`,
  );
  const main = await trainingAgainst(torch);
  torch?.close();
  let one: Awaited<ReturnType<typeof trainingAgainst>> | null = null;
  if (matmulThreadCount() > 1) {
    const torchOneCore = await pytorchServer({ OPENBLAS_NUM_THREADS: '1' });
    log(
      `training step on one thread${torchOneCore ? ", alternated with PyTorch's on one core (OPENBLAS_NUM_THREADS=1)" : ''}`,
    );
    await useMatmulThreads(0);
    one = await trainingAgainst(torchOneCore);
    torchOneCore?.close();
    await useMatmulThreads(backend.threads! - 1);
  }
  let noFmaMs: number | null = null;
  if (fused) {
    log('training step without the relaxed-SIMD build (linear layers on XNNPACK)');
    noFmaMs = await withSwitches({ fusedMultiplyAdd: false }, training);
  }
  log('training step, attention on tf.matMul');
  const tfjsMatmulMs = await withSwitches({ simdMatMul: false }, training);
  const round = (x: number) => Math.round(x * 10) / 10;
  const roundOrNull = (x: number | null | undefined) => (x == null ? null : round(x));
  return {
    model_backend: backend.name,
    model_threads: backend.threads,
    model_relaxed_simd: fused,
    ...Object.fromEntries(Object.entries(decode).map(([key, value]) => [key, round(value)])),
    ...Object.fromEntries(Object.entries(ceiling).map(([key, value]) => [key, round(value)])),
    decode_cached_vs_uncached: round(decode.decode_cached_tok_s! / decode.decode_uncached_tok_s!),
    decode_batch8_vs_batch1: round(decode.decode_batch8_tok_s! / decode.decode_batch1_tok_s!),
    decode_lora_merged_vs_ops_batch1: round(
      decode.decode_lora_batch1_tok_s! / decode.decode_lora_ops_batch1_tok_s!,
    ),
    decode_lora_merged_vs_ops_batch8: round(
      decode.decode_lora_batch8_tok_s! / decode.decode_lora_ops_batch8_tok_s!,
    ),
    ...(decode.decode_batch8_1thread_tok_s
      ? {
          decode_batch8_vs_batch1_1thread: round(
            decode.decode_batch8_1thread_tok_s / decode.decode_batch1_1thread_tok_s!,
          ),
        }
      : {}),
    ...(decode.decode_batch8_xnnpack_tok_s
      ? {
          decode_batch8_vs_batch1_xnnpack: round(
            decode.decode_batch8_xnnpack_tok_s / decode.decode_batch1_xnnpack_tok_s!,
          ),
        }
      : {}),
    train_step_ms: round(main.ours),
    ...(one
      ? {
          train_step_1thread_ms: round(one.ours),
          train_step_threads_speedup: round(one.ours / main.ours),
        }
      : {}),
    train_step_tfjs_matmul_ms: round(tfjsMatmulMs),
    ...(noFmaMs !== null ? { train_step_no_fma_ms: round(noFmaMs) } : {}),
    train_step_simd_speedup: round(tfjsMatmulMs / main.ours),
    pytorch_train_step_ms: roundOrNull(main.theirs),
    pytorch_blas: torch?.blas ?? null,
    train_step_vs_pytorch: roundOrNull(main.ratio),
    ...(one?.theirs
      ? {
          pytorch_train_step_1core_ms: round(one.theirs),
          train_step_1thread_vs_pytorch_1core: roundOrNull(one.ratio),
        }
      : {}),
  };
}
