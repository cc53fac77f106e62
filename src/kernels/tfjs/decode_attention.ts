// Decoding's attention over the in-place KV cache on tfjs-wasm's heap: the kernel of
// simd/decode_attention.ts as a tfjs kernel, decodeAttention() that runs it, and whether it serves.
import * as tf from '@tensorflow/tfjs';
import { f32Bits } from '../wasm/assembler.ts';
import { simdDecodeAttentionModule } from '../simd/decode_attention.ts';
import {
  asWasm,
  byteOffset,
  heapModule,
  registerWasmKernel,
  type WasmBackendLike,
} from './wasm_backend.ts';
import { switches } from '../switches.ts';

type Attend = (...args: number[]) => void;

/** The attend kernel on `backend`'s heap, or null where it cannot run (no relaxed SIMD). */
export function attendFor(backend: WasmBackendLike): Attend | null {
  return (
    (heapModule(backend, 'decodeAttention', simdDecodeAttentionModule)?.attend as
      | Attend
      | undefined) ?? null
  );
}

const KERNEL = 'AgenticRlDecodeAttention';

/** Attributes: cached positions S and the scale of the query (1 / sqrt(hd)). */
interface Attrs {
  length: number;
  scale: number;
}

registerWasmKernel(KERNEL, ({ inputs, attrs }, wasm) => {
  const { query, keys, values, bias } = inputs as Record<
    'query' | 'keys' | 'values' | 'bias',
    tf.TensorInfo
  >;
  const { length: S, scale } = attrs as unknown as Attrs;
  const [B, Hkv, R, hd] = query.shape as [number, number, number, number];
  const capacity = keys.shape[2]!;
  if (
    query.shape.length !== 4 ||
    keys.shape.join() !== values.shape.join() ||
    keys.shape[0] !== B ||
    keys.shape[1] !== Hkv ||
    keys.shape[3] !== hd ||
    hd % 4 !== 0 ||
    !(S >= 1 && S <= capacity) ||
    bias.shape.reduce((a, b) => a * b, 1) !== B * S
  ) {
    throw new Error(
      `decodeAttention: query [${query.shape}], cache [${keys.shape}] and [${values.shape}], bias [${bias.shape}] for ${S} positions do not fit`,
    );
  }
  const out = wasm.makeOutput([B, Hkv, R, hd], 'float32');
  const scratch = wasm.makeOutput([hd + S + 4], 'float32');
  const at = (t: tf.TensorInfo) => byteOffset(wasm, t); // after both allocations: one may grow the heap
  attendFor(wasm)!(
    at(query),
    at(keys),
    at(values),
    at(bias),
    at(out),
    at(scratch),
    B * Hkv,
    Hkv,
    R,
    S,
    capacity,
    hd,
    f32Bits(scale),
  );
  wasm.disposeData(scratch.dataId);
  return out;
});

/**
 * Whether decodeAttention serves a head width of `hd` on the current backend (wasm with relaxed
 * SIMD, hd a multiple of 4).
 */
export function decodeAttentionActive(hd: number): boolean {
  return (
    switches.decodeAttention &&
    hd % 4 === 0 &&
    tf.getBackend() === 'wasm' &&
    attendFor(asWasm(tf.backend())) !== null
  );
}

/**
 * softmax(q K^T / sqrt(hd) + bias) V for query rows `query` (B, Hkv, R, hd), unscaled, against the
 * first S of `capacity` slots of `keys` and `values` (B, Hkv, capacity, hd), with `bias` (B, S)
 * numbers (one mask row a sequence): (B, Hkv, R, hd). Wasm only; no gradient.
 */
export function decodeAttention(
  query: tf.Tensor,
  keys: tf.Tensor,
  values: tf.Tensor,
  bias: tf.Tensor,
  length: number,
  scale: number,
): tf.Tensor4D {
  const attrs: Attrs = { length, scale };
  return tf
    .engine()
    .runKernel(
      KERNEL,
      { query, keys, values, bias },
      attrs as unknown as tf.NamedAttrMap,
    ) as tf.Tensor4D;
}
