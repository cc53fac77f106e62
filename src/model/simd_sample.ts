// The unnormalized probabilities of one row of logits, exp((z - max) / T), as a WebAssembly SIMD
// pass, for sampling (sample.ts). Why: in JavaScript each exp is a Math.exp call, ~10 ns here, so
// drawing one token from a 2000-token vocabulary took ~22 µs, ~6% of a batch-8 decoding step of the
// benchmark model, and a 150k vocabulary would take ~1.5 ms per sequence per token. Here four at a
// time with a polynomial: ~0.5 ns each.
//
// exp(t) for t = (z - max) * scale <= 0 (wasm_exp.ts), clamped to t >= -87 (exp(-87) ~ 1.6e-38,
// still a normal float32; a weight that small is below the float64 resolution of a total >= 1, so
// the clamp changes nothing that is summed). t itself is rounded to float32,
// so a weight's relative error is about |t| * 6e-8: ~1e-6 for a weight of 1e-7 of the largest,
// less for the weights that carry the probability (measured against Math.exp in float64: 2e-6 at
// worst over a row spanning t = -86 .. 0, the row's total within 1e-8). The weights are summed in
// float64.
import { Body, F32, f32Bits, I32, moduleBytes, V128 } from './wasm_asm.ts';
import { VectorExp } from './wasm_exp.ts';

const ALIGN4 = 2;
const HEADER = 16; // bytes before the row: the total (f64) at 0

/** Emits `weigh(count, maxBits, scaleBits)`: the row of `count` floats at HEADER (count % 4 == 0) in place, total at 0. */
function weighBody(): Body {
  const f = new Body(3);
  const [count, maxBits, scaleBits] = [0, 1, 2];
  const at = f.local(I32);
  const end = f.local(I32);
  const vector = () => f.local(V128);
  const [max, scale, w, acc0, acc1] = [vector(), vector(), vector(), vector(), vector()];
  const scalar = f.local(F32);
  f.get(maxBits).op(0xbe).set(scalar).get(scalar).simd(0x13).set(max); // f32.reinterpret_i32; splat
  f.get(scaleBits).op(0xbe).set(scalar).get(scalar).simd(0x13).set(scale);
  const exp = new VectorExp(f, -87, 0);
  f.simd(0x0c, ...Array<number>(16).fill(0)).set(acc0).simd(0x0c, ...Array<number>(16).fill(0)).set(acc1);
  f.i32(HEADER).set(at);
  f.get(count).i32(2).op(0x74).i32(HEADER).op(0x6a).set(end); // HEADER + count * 4
  f.whileLoop(() => { f.get(at).get(end).op(0x49); }, () => {
    // w = exp(max((z - max) * scale, -87))
    f.get(at).simd(0x00, ALIGN4, 0).get(max).simd(0xe5).get(scale).simd(0xe6).set(w);
    exp.apply(w);
    f.get(at).get(w).simd(0x0b, ALIGN4, 0); // store the weights in place
    // totals in float64: lanes 0-1 and 2-3
    f.get(acc0).get(w).simd(0x5f).simd(0xf0).set(acc0); // f64x2.promote_low_f32x4; f64x2.add
    f.get(acc1).get(w).get(w).simd(0x0d, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7).simd(0x5f).simd(0xf0).set(acc1);
    f.addConst(at, 16);
  });
  // total = ((acc0[0] + acc0[1]) + acc1[0]) + acc1[1], stored at 0
  f.i32(0);
  f.get(acc0).simd(0x21, 0).get(acc0).simd(0x21, 1).op(0xa0).get(acc1).simd(0x21, 0).op(0xa0).get(acc1).simd(0x21, 1).op(0xa0);
  f.op(0x39, 3, 0); // f64.store
  return f;
}

/** The module's bytes. */
export function simdSampleModule(): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'weigh', params: 3, body: weighBody() }]);
}


/** The kernel with a memory of its own, grown to the largest row it was given. */
export class SimdWeights {
  private constructor(private readonly memory: WebAssembly.Memory, private readonly weigh: (count: number, max: number, scale: number) => void) {}

  /** The kernel, or null where the engine lacks WebAssembly SIMD. */
  static create(): SimdWeights | null {
    const bytes = simdSampleModule();
    if (!WebAssembly.validate(bytes)) return null;
    const memory = new WebAssembly.Memory({ initial: 1 });
    const weigh = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports.weigh as (count: number, max: number, scale: number) => void;
    return new SimdWeights(memory, weigh);
  }

  /**
   * exp((logits[offset + v] - max) * scale) for v < vocab (float32, valid until the next call) and
   * their sum in float64. `max` must be the row's largest logit (so every weight is <= 1).
   */
  weights(logits: Float32Array, offset: number, vocab: number, max: number, scale: number): { weights: Float32Array; total: number } {
    const count = Math.ceil(vocab / 4) * 4;
    const need = HEADER + count * 4;
    if (need > this.memory.buffer.byteLength) this.memory.grow(Math.ceil((need - this.memory.buffer.byteLength) / 65536));
    const row = new Float32Array(this.memory.buffer, HEADER, count);
    row.set(logits.subarray(offset, offset + vocab));
    row.fill(-3e38, vocab); // padding: weights of exp(-87), below the total's resolution
    this.weigh(count, f32Bits(max), f32Bits(scale));
    return { weights: row.subarray(0, vocab), total: new Float64Array(this.memory.buffer, 0, 1)[0]! };
  }
}
