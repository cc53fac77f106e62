// The model's one seam for kernel choice: the only module in model/ that asks the kernels (and the
// tfjs backend) whether a fast path serves. Everything else in model/ is written as the reference
// (tfjs ops on any backend) and asks here, by name, where a fast path may take over: each answer
// names the path, 'reference' where none serves (another backend, a switch off, a shape the kernel
// does not take). The paths themselves live beside their callers (fused_block.ts,
// cached_attention.ts, gpu_decoding.ts, half_ops.ts, ...) or in src/kernels/; the switches that
// turn each one off are src/kernels/switches.ts's. test/model/fast_paths.test.ts checks every
// answer against its switches and each fast path against the reference; test/architecture.test.ts
// that no other file in model/ asks the kernels itself.
//
// This file imports only src/kernels/ (no module of model/), so any file of model/ may import it.
import * as tf from '@tensorflow/tfjs';
import {
  causalMatMulActive,
  dotProductActive,
  simdMatMulActive,
} from '../kernels/matmul/kernels.ts';
import { resident16Active } from '../kernels/matmul/weights16.ts';
import { switches } from '../kernels/switches.ts';
import { simdAdamWActive } from '../kernels/tfjs/adamw.ts';
import { decodeAttentionActive } from '../kernels/tfjs/decode_attention.ts';
import { decodeBlockActive } from '../kernels/tfjs/decode_block.ts';
import { simdRmsNormActive } from '../kernels/tfjs/rmsnorm.ts';
import { GpuAdamW } from '../kernels/webgpu/adamw.ts';
import { activeWebGpu, type WebGpuBackendLike } from '../kernels/webgpu/gpu.ts';

/** Where no fast path serves: the tfjs ops, on any backend. */
export type Reference = 'reference';

/** What attention() needs to know of a forward call to choose its path. */
export interface AttentionCall {
  /** The call's KV cache, if any: its layout (kv_cache.ts). */
  cache: { inPlace: boolean } | undefined;
  /** New positions a sequence (1 when decoding). */
  time: number;
  headDim: number;
  differentiable: boolean;
}

export const fastPaths = {
  /**
   * RMSNorm over rows of `width` (linear.ts rmsNorm): 'simd' one SIMD pass on wasm
   * (kernels/simd/rmsnorm.ts, with its one-pass backward).
   */
  norm(width: number): 'simd' | Reference {
    return simdRmsNormActive(width) ? 'simd' : 'reference';
  },

  /**
   * A decoder block without a gradient (fused_block.ts): 'fused' runs each residual add with the
   * norm after it as one kernel (the same bits), the norm then carried to the next block.
   */
  block(width: number, differentiable: boolean): 'fused' | Reference {
    return !differentiable && fastPaths.norm(width) === 'simd' ? 'fused' : 'reference';
  },

  /**
   * Attention for a forward call (decoder.ts): over an in-place cache (wasm decoding,
   * cached_attention.ts), one position a sequence without a gradient as one kernel with RoPE and
   * the cache write ('decode-block', kernels/tfjs/decode_block.ts), or after RoPE as one kernel
   * ('decode-attention', kernels/tfjs/decode_attention.ts), else the strided products that read
   * the cache in place ('cache-products'); with a concatenated cache or none, the reference.
   */
  attention(
    call: AttentionCall,
  ): 'decode-block' | 'decode-attention' | 'cache-products' | Reference {
    if (!call.cache?.inPlace) return 'reference';
    if (call.time === 1 && !call.differentiable && decodeBlockActive(call.headDim))
      return 'decode-block';
    if (call.time === 1 && !call.differentiable && decodeAttentionActive(call.headDim))
      return 'decode-attention';
    return 'cache-products';
  },

  /**
   * Attention's P V product over an in-place cache under a causal mask: 'causal' skips what the
   * mask makes zero (kernels/matmul/kernels.ts causal kernel).
   */
  causalProducts(): 'causal' | Reference {
    return causalMatMulActive() ? 'causal' : 'reference';
  },

  /**
   * The KV cache's layout (kv_cache.ts): 'in-place' preallocated storage written row by row,
   * which only wasm's SIMD kernels read; the reference concatenates.
   */
  kvCache(): 'in-place' | 'concat' {
    return simdMatMulActive() ? 'in-place' : 'concat';
  },

  /**
   * Where frozen 16-bit weights are kept (model.ts, half_weight.ts): the dot store on wasm, GPU
   * buffers on webgpu; 'float32' where no 16-bit kernel serves.
   */
  weights16(): 'wasm' | 'webgpu' | 'float32' {
    if (tf.getBackend() === 'webgpu') return 'webgpu';
    return resident16Active() ? 'wasm' : 'float32';
  },

  /**
   * Decoding's linears on 16-bit resident weights (linear.ts): 'fused' gives the MLP's gate and
   * up with the SwiGLU, and a block's last product with the residual add and the next norm, one
   * kernel each (kernels/matmul/linears16.ts), where that kernel takes the rows.
   */
  decodeLinears(): 'fused' | Reference {
    return switches.fusedDecodeLinears ? 'fused' : 'reference';
  },

  /** A LoRA layer under a gradient on a frozen weight without bias (linear.ts): one op (ops.ts). */
  loraLayer(): 'one-op' | Reference {
    return switches.loraOp ? 'one-op' : 'reference';
  },

  /**
   * A LoRA layer without a gradient (merged_lora.ts): 'merged' one dot product on the merged
   * weight's transposed copy. `shapeFits` is asked first: the kernel's check may set up the dot
   * store.
   */
  mergedAdapters(shapeFits: () => boolean): 'merged' | Reference {
    if (!switches.mergedAdapters || tf.engine().isTapeOn() || tf.engine().state.gradientDepth > 0)
      return 'reference';
    return shapeFits() && dotProductActive() ? 'merged' : 'reference';
  },

  /**
   * RoPE on x (B, heads, T, hd) with tables (B, 1, T, hd) (rope.ts): 'wasm' one pass over the heap
   * (or its kernel under a gradient).
   */
  rope(x: tf.Tensor, cos: tf.Tensor): 'wasm' | Reference {
    return tf.getBackend() === 'wasm' && x.rank === 4 && cos.rank === 4 && cos.shape[1] === 1
      ? 'wasm'
      : 'reference';
  },

  /**
   * log-sum-exp of logits chunks (ops.ts): 'softmax' through tf.softmax (wasm: XNNPACK's, faster
   * than tfjs-wasm's exp).
   */
  logSumExp(): 'softmax' | Reference {
    return tf.getBackend() === 'wasm' ? 'softmax' : 'reference';
  },

  /**
   * A shared prefix of a batch's sequences (logprobs.ts): 'shared' runs it once (decoder.ts
   * ForwardInput.prefix); the reference runs every sequence whole.
   */
  sharedPrefixes(): 'shared' | Reference {
    return switches.sharedPrefixes ? 'shared' : 'reference';
  },

  /** Token sampling's unnormalized probabilities (sample_token.ts): 'simd' kernels/simd/sample.ts. */
  sampling(): 'simd' | Reference {
    return switches.simdSampling ? 'simd' : 'reference';
  },

  /** AdamW's step per variable and the gradients' norm (adamw.ts): 'simd' the fused kernel. */
  adamW(): 'simd' | Reference {
    return simdAdamWActive() ? 'simd' : 'reference';
  },

  /**
   * AdamW over every variable in one dispatch (kernels/webgpu/adamw.ts), or null where it does not
   * serve (another backend, a variable not float32, switched off). Ask gpuActive() before each use:
   * the backend may have changed since.
   */
  gpuAdamW(variables: Map<string, tf.Variable>): GpuAdamW | null {
    const backend = switches.gpuAdamW ? activeWebGpu() : null;
    const float32 = [...variables.values()].every((v) => v.dtype === 'float32');
    return backend && float32 && variables.size > 0 ? new GpuAdamW(backend, variables) : null;
  },

  /** Whether WebGPU is the active backend (a GPU fast path made earlier may run). */
  gpuActive(): boolean {
    return tf.getBackend() === 'webgpu';
  },

  /**
   * generate()'s decoding steps (sample.ts): 'webgpu' the engine (gpu_decoding.ts), where the
   * model's frozen weights are 16-bit on the GPU; else the reference decoder (decoding.ts).
   */
  decoding(): 'webgpu' | Reference {
    return switches.gpuDecoding && tf.getBackend() === 'webgpu' ? 'webgpu' : 'reference';
  },

  /** tfjs's WebGPU backend for a GPU fast path to build on, or null off webgpu. */
  webGpu(): WebGpuBackendLike | null {
    return activeWebGpu();
  },

  /** The device's buffer limits on webgpu (vocab_split.ts), else null. */
  gpuLimits(): Record<string, number | undefined> | null {
    if (tf.getBackend() !== 'webgpu') return null;
    return (
      (tf.backend() as { device?: { limits?: Record<string, number | undefined> } }).device
        ?.limits ?? {}
    );
  },
};
