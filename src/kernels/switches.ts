// The switches of the fast paths, and the counters that show which path ran.
//
// Each fast path (a SIMD kernel, a fused op, a shortcut over the tfjs ops) can be turned off so a
// test or the bench can compare it with the path it replaces: the ops it must match in numbers,
// and beat in time. All are on by default, and production code never turns one off; only tests and
// src/bench/ call setSwitches. The kernels read `switches` each time they choose a path; in
// src/model/ only the seam does (model/fast_paths.ts).
//
// The counters exist so that tests can prove which path ran (that a product was split over the
// helper threads, that the SIMD transpose served a transpose, ...): production code bumps them
// where the path runs, and tests read them, taking differences before and after.
//
// This file imports nothing: both the kernels and the model read it.

/** One field a fast path: true (the default) runs it; false runs what it replaces (named here). */
export interface KernelSwitches {
  /** The SIMD matmul kernel (matmul/dispatch.ts); off: tf.matMul. */
  simdMatMul: boolean;
  /**
   * The relaxed-SIMD (fused multiply-add) build of the matmul kernel, where the engine has it; off:
   * the linear layers go back to XNNPACK.
   */
  fusedMultiplyAdd: boolean;
  /**
   * The dot-product kernel for products with few rows (decoding); off: those products go to
   * tf.matMul.
   */
  dotProductKernel: boolean;
  /** matMulPair's one-kernel path; off: it adds two products. */
  pairKernel: boolean;
  /** The causal kernel; off: attention's products under a causal mask compute every number. */
  causalSkipping: boolean;
  /** The transposed-A kernel; off: matMulTransposeA transposes first. */
  transposeAKernel: boolean;
  /**
   * Decoding's dot products split over the matmul helper threads; off: they run on the calling
   * thread, the helpers kept running for the large products (a restarted helper runs slower at
   * first).
   */
  dotProductThreads: boolean;
  /** maskedSoftmax's fused SIMD kernels (simd/softmax.ts); off: the tfjs ops. */
  simdSoftmax: boolean;
  /** maskedSoftmax's fused forward alone; off: tf.softmax (the fused gradient stays). */
  simdSoftmaxForward: boolean;
  /**
   * The replacements of tfjs-wasm's Transpose, Identity, Cast, Max and GatherV2
   * (tfjs/overrides.ts); off: tfjs-wasm's kernels.
   */
  tfjsWasmOverrides: boolean;
  /** The SIMD transpose alone; off: tfjs-wasm's Transpose. */
  simdTranspose: boolean;
  /** The fused SwiGLU kernels (tfjs/swiglu.ts); off: the tfjs ops. */
  simdSwiglu: boolean;
  /** The fused RMSNorm kernels (tfjs/rmsnorm.ts); off: the tfjs ops. */
  simdRmsNorm: boolean;
  /** Decoding's attention kernel (tfjs/decode_attention.ts); off: the tfjs route. */
  decodeAttention: boolean;
  /**
   * Decoding's attention block as one kernel (kernels/tfjs/decode_block.ts: RoPE, the cache write,
   * attention); off: the ops and kernels it runs one by one.
   */
  decodeBlock: boolean;
  /**
   * Decoding's MLP gate and up with the SwiGLU, and a block's last product with the residual add
   * and the next norm, each one kernel (matmul/linears16.ts, model/linear.ts); off: the kernels
   * apart.
   */
  fusedDecodeLinears: boolean;
  /** The fused AdamW kernel (tfjs/adamw.ts); off: the tfjs ops. */
  simdAdamW: boolean;
  /** Decoding's SIMD RoPE kernel (model/rope.ts); off: its JavaScript loop. */
  simdRope: boolean;
  /** The one-op LoRA layer (model/linear.ts, model/ops.ts); off: the adapter's ops. */
  loraOp: boolean;
  /** The SIMD sampling weights (simd/sample.ts, model/sample.ts); off: Math.exp. */
  simdSampling: boolean;
  /**
   * Shared-prefix runs (model/logprobs.ts); off: tokenLogprobs ignores sharedPrefix (its columns
   * come back computed, not 0) and the update's micro-batches are by length alone (rl/update.ts
   * microBatches).
   */
  sharedPrefixes: boolean;
  /**
   * The merged LoRA weights for products without a gradient (model/merged_lora.ts); off: the
   * adapter's ops.
   */
  mergedAdapters: boolean;
  /**
   * WebGPU's decoding engine (kernels/webgpu/decoding_engine.ts, model/gpu_decoding.ts) for models
   * whose frozen weights are 16-bit on the GPU; off: the reference decoder's tfjs ops.
   */
  gpuDecoding: boolean;
  /** WebGPU's AdamW over every adapter in one dispatch (kernels/webgpu/adamw.ts); off: tfjs ops. */
  gpuAdamW: boolean;
}

const live: KernelSwitches = {
  simdMatMul: true,
  fusedMultiplyAdd: true,
  dotProductKernel: true,
  pairKernel: true,
  causalSkipping: true,
  transposeAKernel: true,
  dotProductThreads: true,
  simdSoftmax: true,
  simdSoftmaxForward: true,
  tfjsWasmOverrides: true,
  simdTranspose: true,
  simdSwiglu: true,
  simdRmsNorm: true,
  decodeAttention: true,
  decodeBlock: true,
  fusedDecodeLinears: true,
  simdAdamW: true,
  simdRope: true,
  loraOp: true,
  simdSampling: true,
  sharedPrefixes: true,
  mergedAdapters: true,
  gpuDecoding: true,
  gpuAdamW: true,
};

/** The switches now (read by the kernels); change them with setSwitches. */
export const switches: Readonly<KernelSwitches> = live;

/**
 * Sets the switches named in `changes` and returns their previous values, so that
 * `setSwitches(previous)` restores them.
 */
export function setSwitches(changes: Partial<KernelSwitches>): Partial<KernelSwitches> {
  const previous: Partial<KernelSwitches> = {};
  for (const key of Object.keys(changes) as (keyof KernelSwitches)[]) {
    const value = changes[key];
    if (value === undefined) continue;
    if (!(key in live)) throw new Error(`setSwitches: no switch ${key}`);
    previous[key] = live[key];
    live[key] = value;
  }
  return previous;
}

/**
 * Runs `fn` with `changes` set, and restores the previous values when it returns, throws or (async)
 * settles.
 */
export function withSwitches<T>(changes: Partial<KernelSwitches>, fn: () => T): T {
  const previous = setSwitches(changes);
  let result: T;
  try {
    result = fn();
  } catch (error) {
    setSwitches(previous);
    throw error;
  }
  if (result instanceof Promise) return result.finally(() => setSwitches(previous)) as T;
  setSwitches(previous);
  return result;
}

/**
 * Counts of fast-path events in this process (tests: that the path is the one taken). Production
 * code bumps them; tests read them before and after.
 */
export const kernelCounts = {
  /** Products run as pairs, one on each thread (matmul/backward_pairs.ts). */
  pairedProducts: 0,
  /** Transposes done by the SIMD kernel (tfjs/overrides.ts). */
  simdTransposes: 0,
  /** Row maxima taken by the SIMD kernel (tfjs/overrides.ts). */
  simdMaxes: 0,
  /**
   * Products split over the matmul helper threads since useMatmulThreads last started them
   * (matmul/threads.ts; reset there).
   */
  splitProducts: 0,
  /**
   * Queued blocks of split products the calling thread ran itself since useMatmulThreads last
   * started helpers (reset there).
   */
  takenOver: 0,
  /** Decoding attention blocks run as one kernel (kernels/tfjs/decode_block.ts). */
  decodeBlocks: 0,
  /** linears16 calls ended by the SwiGLU or a residual add and norm (matmul/linears16.ts). */
  fusedLinears16: 0,
};
