// The row's max and the unnormalized probabilities of one row of logits, exp((z - max) / T), as
// WebAssembly SIMD passes, for sampling (sample.ts). Why: in JavaScript each exp is a Math.exp call,
// ~10 ns here, so drawing one token from a 2000-token vocabulary took ~22 µs, ~6% of a batch-8
// decoding step of the benchmark model, and a 150k vocabulary would take ~1.5 ms per sequence per
// token. Here four at a time with a polynomial, four vectors in flight, and the max four lanes at
// a time: 2000 logits 6.1 -> 2.7 µs against a JavaScript max and one vector a turn (sampleToken
// 8.3 -> 4.3 µs a row, timed in a loop over 8 rows of 2000).
//
// exp(t) for t = (z - max) * scale <= 0 (simd_exp.ts), clamped to t >= -87 (exp(-87) ~ 1.6e-38,
// still a normal float32; a weight that small is below the float64 resolution of a total >= 1, so
// the clamp changes nothing that is summed). t itself is rounded to float32,
// so a weight's relative error is about |t| * 6e-8: ~1e-6 for a weight of 1e-7 of the largest,
// less for the weights that carry the probability (measured against Math.exp in float64: 2e-6 at
// worst over a row spanning t = -86 .. 0, the row's total within 1e-8). The weights are summed in
// float64.
import { Body, F32, f32Bits, I32, moduleBytes, uleb, V128 } from './assembler.ts';
import { VectorExp } from './simd_exp.ts';

const ALIGN4 = 2;
const HEADER = 16; // bytes before the row: the total (f64) at 0, the row's max (f32) at 8
const WAYS = 4; // vectors a turn of the weights' loop: 4 exps in flight, their chains overlapped

/**
 * Emits `weigh(count, scaleBits)` for the row of `count` floats at HEADER (count % 16 == 0): its
 * max at 8, ignoring NaN as JavaScript's `z > max` does (pmax with the running max first); then,
 * when that max is finite, the weights exp(max((z - max) * scale, -87)) in place and their total
 * at 0, accumulated vector by vector in order (lanes 0-1 into one f64x2 sum, 2-3 into another).
 */
function weighBody(): Body {
  const f = new Body(2);
  const [count, scaleBits] = [0, 1];
  const at = f.local(I32);
  const end = f.local(I32);
  const vector = () => f.local(V128);
  const [max, scale, acc0, acc1] = [vector(), vector(), vector(), vector()];
  const scalar = f.local(F32);
  f.i32(HEADER).set(at);
  f.get(count).i32(2).op(0x74).i32(HEADER).op(0x6a).set(end); // HEADER + count * 4
  // the max: four running maxima, then their lanes
  const maxima = Array.from({ length: WAYS }, vector);
  for (const m of maxima) f.i32(0xff800000 | 0).simd(0x11).set(m); // -Infinity
  f.whileLoop(() => { f.get(at).get(end).op(0x49); }, () => {
    maxima.forEach((m, way) => { f.get(m).get(at).simd(0x00, ALIGN4, ...uleb(16 * way)).simd(0xeb).set(m); }); // m = pmax(m, z): m < z ? z : m
    f.addConst(at, 16 * WAYS);
  });
  for (let way = 1; way < WAYS; way++) f.get(maxima[0]!).get(maxima[way]!).simd(0xeb).set(maxima[0]!);
  const m = maxima[0]!;
  f.maxAcrossLanes(m);
  f.get(m).simd(0x1f, 0).set(scalar);
  f.i32(8).get(scalar).op(0x38, ALIGN4, 0); // f32.store the max
  f.get(scalar).simd(0x13).set(max); // splat
  f.get(scaleBits).op(0xbe).simd(0x13).set(scale); // f32.reinterpret_i32; splat
  // the weights, when the max is finite (else the caller falls back to Math.exp)
  f.ifElse(() => { f.get(scalar).op(0x8b).op(0x43, 0x00, 0x00, 0x80, 0x7f).op(0x5d); }, () => { // |max| < Infinity (f32.abs, f32.const, f32.lt)
    const exp = new VectorExp(f, -87, 0);
    const ways = Array.from({ length: WAYS }, () => ({ w: vector(), temps: exp.temporaries() }));
    f.simd(0x0c, ...Array<number>(16).fill(0)).set(acc0).simd(0x0c, ...Array<number>(16).fill(0)).set(acc1);
    f.i32(HEADER).set(at);
    f.whileLoop(() => { f.get(at).get(end).op(0x49); }, () => {
      ways.forEach(({ w, temps }, way) => { // w = exp(max((z - max) * scale, -87))
        f.get(at).simd(0x00, ALIGN4, ...uleb(16 * way)).get(max).simd(0xe5).get(scale).simd(0xe6).set(w);
        exp.apply(w, temps);
      });
      ways.forEach(({ w }, way) => {
        f.get(at).get(w).simd(0x0b, ALIGN4, ...uleb(16 * way)); // store the weights in place
        // totals in float64: lanes 0-1 and 2-3
        f.get(acc0).get(w).simd(0x5f).simd(0xf0).set(acc0); // f64x2.promote_low_f32x4; f64x2.add
        f.get(acc1).get(w).get(w).simd(0x0d, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7).simd(0x5f).simd(0xf0).set(acc1);
      });
      f.addConst(at, 16 * WAYS);
    });
    // total = ((acc0[0] + acc0[1]) + acc1[0]) + acc1[1], stored at 0
    f.i32(0);
    f.get(acc0).simd(0x21, 0).get(acc0).simd(0x21, 1).op(0xa0).get(acc1).simd(0x21, 0).op(0xa0).get(acc1).simd(0x21, 1).op(0xa0);
    f.op(0x39, 3, 0); // f64.store
  }, () => {});
  return f;
}

/** The module's bytes. */
export function simdSampleModule(): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'weigh', params: 2, body: weighBody() }]);
}

/** The kernel with a memory of its own, grown to the largest row it was given. */
export class SimdWeights {
  private constructor(private readonly memory: WebAssembly.Memory, private readonly weigh: (count: number, scale: number) => void) {}

  /** The kernel, or null where the engine lacks WebAssembly SIMD. */
  static create(): SimdWeights | null {
    const bytes = simdSampleModule();
    if (!WebAssembly.validate(bytes)) return null;
    const memory = new WebAssembly.Memory({ initial: 1 });
    const weigh = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports.weigh as (count: number, scale: number) => void;
    return new SimdWeights(memory, weigh);
  }

  /**
   * The row's largest logit (NaN ignored; -Infinity for a row of -Infinity and NaN) and, when it
   * is finite, the weights exp((logits[offset + v] - max) * scale) for v < vocab (float32, valid
   * until the next call) and their sum in float64; null weights when the max is not finite.
   */
  weights(logits: Float32Array, offset: number, vocab: number, scale: number): { max: number; weights: Float32Array | null; total: number } {
    const count = Math.ceil(vocab / 16) * 16;
    const need = HEADER + count * 4;
    if (need > this.memory.buffer.byteLength) this.memory.grow(Math.ceil((need - this.memory.buffer.byteLength) / 65536));
    const row = new Float32Array(this.memory.buffer, HEADER, count);
    row.set(logits.subarray(offset, offset + vocab));
    row.fill(-Infinity, vocab); // padding: no effect on the max, weights of exp(-87), below the total's resolution
    this.weigh(count, f32Bits(scale));
    const max = new Float32Array(this.memory.buffer, 8, 1)[0]!;
    if (!Number.isFinite(max)) return { max, weights: null, total: 0 };
    return { max, weights: row.subarray(0, vocab), total: new Float64Array(this.memory.buffer, 0, 1)[0]! };
  }
}
