// `npm run bench -- --only model`: decoding and training speed of the tfjs model on WASM, with the
// shapes of the first benchmark: a Llama with hidden 256, 4 layers, 4 heads, MLP 768, vocab 2000.
//   decode_cached_tok_s / decode_uncached_tok_s  batch 1, context grown from 1 to 256 tokens (the
//                                                first cached call after the warm-up)
//   decode_cached_steady_tok_s                   the same, the median of 5 later calls
//   decode_token_ms, decode_token_products_ms,   one cached step at 1-8 tokens of context, its 29
//   decode_token_overhead_ms                     products alone, and the difference: the per-token
//                                                fixed cost (token_overhead.ts)
//   decode_batch1_tok_s / decode_batch8_tok_s    total new tokens per second, 16-token prompts
//                                                (few-row products split over model_threads)
//   decode_batch{1,8}_1thread_tok_s              the same with those products on the calling thread
//   decode_batch{1,8}_xnnpack_tok_s              the same with the linear layers' few-row products
//                                                on XNNPACK instead of the dot-product kernel
//   decode_lora_batch{1,8}_tok_s                 the same model with LoRA adapters (rank 8, every
//                                                projection, as the page trains), on merged weights
//   decode_lora_ops_batch{1,8}_tok_s             the same through the adapters' own ops
//   train_step_ms                                full-parameter step on 4 x 128 predicted tokens,
//                                                with the kernel's large products on every core (up
//                                                to 4; model_threads), as the page runs
//   train_step_1thread_ms                        the same step on one thread
//   train_step_tfjs_matmul_ms                    the same step with attention on tf.matMul instead
//                                                of our SIMD kernel
//   (src/kernels/matmul/dispatch.ts) train_step_no_fma_ms                         the step with the
//                                                kernel's relaxed-SIMD build off, so the linear
//                                                layers run on XNNPACK (`npm run bench` turns
//                                                relaxed SIMD on, as Chromium has it; plain Node 20
// has it off) and, when Debian's python3 with torch is there, PyTorch's time for the same step
// (scripts/bench/pytorch_train_step.py; its speed depends on the BLAS libblas.so.3 points to),
// alternated with ours in rounds (train_step_vs_pytorch: the median of the rounds' ratios):
//   pytorch_train_step_ms                        torch on 1 thread, OpenBLAS's products on every
//                                                core (its default, and PyTorch's fastest here;
//                                                pytorch_blas_threads: OpenBLAS's pool)
//   pytorch_train_step_1core_ms                  the same with OPENBLAS_NUM_THREADS=1, against
//                                                train_step_1thread_ms
// and what this CPU lets decoding's products reach (roofline.ts: fma_peak_gflops, step_products_*),
// which bounds decode_batch8_vs_batch1.
//
// The sections are model_decoding.ts, model_training.ts and pytorch_reference.ts; this file runs
// them in order and derives the ratios.
import {
  fusedMultiplyAddActive,
  matmulThreadCount,
  useMatmulThreads,
} from '../kernels/matmul/kernels.ts';
import { withSwitches } from '../kernels/switches.ts';
import { selectBackend } from '../kernels/backend.ts';
import { config, log } from './model_setup.ts';
import { decoding } from './model_decoding.ts';
import { training, trainingAgainst } from './model_training.ts';
import { pytorchServer } from './pytorch_reference.ts';
import { roofline } from './roofline.ts';

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
    ...Object.fromEntries(
      Object.entries(decode).map(([key, value]) => [
        key,
        key.startsWith('decode_token_') ? Math.round(value * 1000) / 1000 : round(value),
      ]),
    ),
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
    pytorch_blas_threads: torch?.blasThreads ?? null,
    train_step_vs_pytorch: roundOrNull(main.ratio),
    ...(one?.theirs
      ? {
          pytorch_train_step_1core_ms: round(one.theirs),
          train_step_1thread_vs_pytorch_1core: roundOrNull(one.ratio),
        }
      : {}),
  };
}
