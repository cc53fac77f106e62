// Decoding's attention block as one kernel: for one new position a sequence, RoPE on the query and
// key rows, the key and value written into the in-place KV cache, and attention over the cache.
// Why: the same work as tfjs ops was ~10 kernels a layer at one row (reshapes, two RoPE calls,
// the cache's copies, the attention kernel), each call costing more than its arithmetic; at the
// Qwen2.5-0.5B shape the kernels besides the products took ~2.5 ms of a ~29 ms batch-1 token, and
// the JavaScript around them about as much (docs/performance.md).
//
// The same kernels run inside, so the same bits: the SIMD RoPE (simd/rope.ts, one call per sequence
// for its H query heads, one per key head into its cache slot) and the decoding attention
// (simd/decode_attention.ts); the value is copied. Where either is off, the decoder keeps
// the ops (decodeBlockActive).
//
// Shapes: B sequences, H query heads, Hkv key/value heads (g = H / Hkv queries a key head), hd the
// head width, S the cached positions after this one, capacity the cache's slots.
import * as tf from '@tensorflow/tfjs';
import { f32Bits } from '../wasm/assembler.ts';
import { attendFor, decodeAttentionActive } from './decode_attention.ts';
import { kernelCounts, switches } from '../switches.ts';
import { asWasm, byteOffset, registerWasmKernel, wasmMemory } from './wasm_backend.ts';
import { simdRope } from './rope.ts';

const KERNEL = 'AgenticRlDecodeBlock';

/**
 * What decodeBlock needs of the model's in-place KV cache (model/kv_cache.ts KvCache): the slots of
 * `layer` for `shape` ([B, Hkv, 1, hd]) new positions, counted filled, for the kernel to write.
 */
export interface CacheClaim {
  claim(
    layer: number,
    shape: [number, number, number, number],
  ): { keys: tf.Tensor; values: tf.Tensor; length: number };
}

/** Attributes: heads, head width, the slot written (S - 1), S, the query's scale. */
interface Attrs {
  heads: number;
  kvHeads: number;
  headDim: number;
  slot: number;
  scale: number;
}

registerWasmKernel(KERNEL, ({ inputs, attrs }, wasm) => {
  const { q, k, v, cos, sin, keys, values, bias } = inputs as Record<
    'q' | 'k' | 'v' | 'cos' | 'sin' | 'keys' | 'values' | 'bias',
    tf.TensorInfo
  >;
  const size = (t: tf.TensorInfo) => t.shape.reduce((a, b) => a * b, 1);
  const { heads: H, kvHeads: Hkv, headDim: hd, slot, scale } = attrs as unknown as Attrs;
  const [B, capacity] = [q.shape[0]!, keys.shape[2]!];
  const S = slot + 1;
  if (
    q.shape.join() !== [B, H * hd].join() ||
    k.shape.join() !== [B, Hkv * hd].join() ||
    v.shape.join() !== k.shape.join() ||
    size(cos) !== B * hd ||
    size(sin) !== B * hd ||
    keys.shape.join() !== [B, Hkv, capacity, hd].join() ||
    values.shape.join() !== keys.shape.join() ||
    !(S <= capacity) ||
    size(bias) !== B * S
  ) {
    throw new Error(
      `decodeBlock: q [${q.shape}], k [${k.shape}], v [${v.shape}], cache [${keys.shape}], bias [${bias.shape}] for slot ${slot} do not fit`,
    );
  }
  const out = wasm.makeOutput([B, H * hd], 'float32');
  const rotated = wasm.makeOutput([B, H * hd], 'float32');
  const scratch = wasm.makeOutput([hd + S + 4], 'float32');
  // byte offsets after every allocation: one may grow the heap
  const at = (t: tf.TensorInfo) => byteOffset(wasm, t);
  const [qAt, kAt, vAt, cAt, sAt] = [at(q), at(k), at(v), at(cos), at(sin)];
  const [keysAt, valuesAt, rAt] = [at(keys), at(values), at(rotated)];
  const rope = simdRope(wasm)!;
  const half = hd / 2;
  const floats = new Float32Array(wasmMemory(wasm)!.buffer);
  for (let b = 0; b < B; b++) {
    const [c, s] = [cAt + 4 * b * hd, sAt + 4 * b * hd];
    rope(qAt + 4 * b * H * hd, c, s, rAt + 4 * b * H * hd, half, H, 4 * hd);
    for (let j = 0; j < Hkv; j++) {
      const row = (b * Hkv + j) * hd; // this head's numbers in k and v
      const cell = ((b * Hkv + j) * capacity + slot) * hd; // its slot in the cache
      rope(kAt + 4 * row, c, s, keysAt + 4 * cell, half, 1, 0);
      floats.copyWithin(valuesAt / 4 + cell, vAt / 4 + row, vAt / 4 + row + hd);
    }
  }
  attendFor(wasm)!(
    rAt,
    keysAt,
    valuesAt,
    at(bias),
    at(out),
    at(scratch),
    B * Hkv,
    Hkv,
    H / Hkv,
    S,
    capacity,
    hd,
    f32Bits(scale),
  );
  wasm.disposeData(rotated.dataId);
  wasm.disposeData(scratch.dataId);
  kernelCounts.decodeBlocks++; // tests: that the block ran
  return out;
});

/**
 * Whether decodeBlock serves a head width of `hd` here: wasm with the decoding attention kernel
 * and the SIMD RoPE (half the head a multiple of 4), both switched on.
 */
export function decodeBlockActive(hd: number): boolean {
  return (
    switches.decodeBlock &&
    switches.simdRope &&
    (hd / 2) % 4 === 0 &&
    decodeAttentionActive(hd) &&
    simdRope(asWasm(tf.backend())) !== null
  );
}

/**
 * Attention for one new position a sequence: q (B, H * hd), k and v (B, Hkv * hd) as the
 * projections give them (Qwen3's head norms applied), RoPE's tables `cos` and `sin` (B rows of
 * hd), `bias` the mask over the S positions after this one (B * S numbers). Writes the rotated key
 * and the value into `cache`'s layer `layer` and returns the context rows (B, H * hd), the query
 * scaled by `scale`. No gradient.
 */
export function decodeBlock(
  cache: CacheClaim,
  layer: number,
  rows: { q: tf.Tensor; k: tf.Tensor; v: tf.Tensor },
  tables: { cos: tf.Tensor; sin: tf.Tensor },
  bias: tf.Tensor,
  shape: { heads: number; kvHeads: number; headDim: number; scale: number },
): tf.Tensor2D {
  const B = rows.q.shape[0]!;
  const { keys, values, length } = cache.claim(layer, [B, shape.kvHeads, 1, shape.headDim]);
  const attrs: Attrs = { ...shape, slot: length - 1 };
  return tf
    .engine()
    .runKernel(
      KERNEL,
      { ...rows, ...tables, keys, values, bias },
      attrs as unknown as tf.NamedAttrMap,
    ) as tf.Tensor2D;
}
