// The row's max and the unnormalized probabilities of one row of logits, exp((z - max) / T), as
// WebAssembly SIMD passes, for sampling (sample.ts). Why: in JavaScript each exp is a Math.exp
// call, ~10 ns here, so drawing one token from a 2000-token vocabulary took ~22 µs, ~6% of a
// batch-8 decoding step of the benchmark model, and a 150k vocabulary would take ~1.5 ms per
// sequence per token. Here four at a time with a polynomial, four vectors in flight, and the max
// four lanes at a time: 2000 logits 6.1 -> 2.7 µs against a JavaScript max and one vector a turn
// (sampleToken 8.3 -> 4.3 µs a row, timed in a loop over 8 rows of 2000).
//
// exp(t) for t = (z - max) * scale <= 0 (simd/exp.ts), clamped to t >= -87 (exp(-87) ~ 1.6e-38,
// still a normal float32; a weight that small is below the float64 resolution of a total >= 1, so
// the clamp changes nothing that is summed). t itself is rounded to float32, so a weight's relative
// error is about |t| * 6e-8: ~1e-6 for a weight of 1e-7 of the largest, less for the weights that
// carry the probability (measured against Math.exp in float64: 2e-6 at worst over a row spanning t
// = -86 .. 0, the row's total within 1e-8). The weights are summed in float64.
import { Body, F32, f32Bits, I32, moduleBytes, V128, V128_ZERO } from '../wasm/assembler.ts';
import { VectorExp } from './exp.ts';

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
  f.get(count).i32(2).i32Shl().i32(HEADER).i32Add().set(end); // HEADER + count * 4
  // the max: four running maxima, then their lanes
  const maxima = Array.from({ length: WAYS }, vector);
  for (const m of maxima)
    f.i32(0xff800000 | 0)
      .i32x4Splat()
      .set(m); // -Infinity
  f.whileLoop(
    () => {
      f.get(at).get(end).i32LtU();
    },
    () => {
      maxima.forEach((m, way) => {
        f.get(m)
          .get(at)
          .v128Load(16 * way)
          .f32x4Pmax()
          .set(m);
      }); // m = pmax(m, z): m < z ? z : m
      f.addConst(at, 16 * WAYS);
    },
  );
  for (let way = 1; way < WAYS; way++)
    f.get(maxima[0]!).get(maxima[way]!).f32x4Pmax().set(maxima[0]!);
  const m = maxima[0]!;
  f.maxAcrossLanes(m);
  f.get(m).f32x4ExtractLane(0).set(scalar);
  f.i32(8).get(scalar).f32Store(); // the max, at 8
  f.get(scalar).f32x4Splat().set(max);
  f.get(scaleBits).f32ReinterpretI32().f32x4Splat().set(scale);
  // the weights, when the max is finite (else the caller falls back to Math.exp)
  f.ifElse(
    () => {
      f.get(scalar).f32Abs().f32Const(Infinity).f32Lt();
    },
    () => {
      // |max| < Infinity
      const exp = new VectorExp(f, -87, 0);
      const ways = Array.from({ length: WAYS }, () => ({ w: vector(), temps: exp.temporaries() }));
      f.v128Const(V128_ZERO).set(acc0).v128Const(V128_ZERO).set(acc1);
      f.i32(HEADER).set(at);
      f.whileLoop(
        () => {
          f.get(at).get(end).i32LtU();
        },
        () => {
          ways.forEach(({ w, temps }, way) => {
            // w = exp(max((z - max) * scale, -87))
            f.get(at)
              .v128Load(16 * way)
              .get(max)
              .f32x4Sub()
              .get(scale)
              .f32x4Mul()
              .set(w);
            exp.apply(w, temps);
          });
          ways.forEach(({ w }, way) => {
            f.get(at)
              .get(w)
              .v128Store(16 * way); // store the weights in place
            // totals in float64: lanes 0-1 and 2-3
            f.get(acc0).get(w).f64x2PromoteLowF32x4().f64x2Add().set(acc0);
            f.get(acc1)
              .get(w)
              .get(w)
              .i8x16Shuffle([8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7])
              .f64x2PromoteLowF32x4()
              .f64x2Add()
              .set(acc1);
          });
          f.addConst(at, 16 * WAYS);
        },
      );
      // total = ((acc0[0] + acc0[1]) + acc1[0]) + acc1[1], stored at 0
      f.i32(0);
      f.get(acc0)
        .f64x2ExtractLane(0)
        .get(acc0)
        .f64x2ExtractLane(1)
        .f64Add()
        .get(acc1)
        .f64x2ExtractLane(0)
        .f64Add()
        .get(acc1)
        .f64x2ExtractLane(1)
        .f64Add();
      f.f64Store();
    },
    () => {},
  );
  return f;
}

/** The module's bytes. */
export function simdSampleModule(): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'weigh', params: 2, body: weighBody() }]);
}

/** The kernel with a memory of its own, grown to the largest row it was given. */
export class SimdWeights {
  private constructor(
    private readonly memory: WebAssembly.Memory,
    private readonly weigh: (count: number, scale: number) => void,
  ) {}

  /** The kernel, or null where the engine lacks WebAssembly SIMD. */
  static create(): SimdWeights | null {
    const bytes = simdSampleModule();
    if (!WebAssembly.validate(bytes)) return null;
    const memory = new WebAssembly.Memory({ initial: 1 });
    const weigh = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } })
      .exports.weigh as (count: number, scale: number) => void;
    return new SimdWeights(memory, weigh);
  }

  /**
   * The row's largest logit (NaN ignored; -Infinity for a row of -Infinity and NaN) and, when it
   * is finite, the weights exp((logits[offset + v] - max) * scale) for v < vocab (float32, valid
   * until the next call) and their sum in float64; null weights when the max is not finite.
   */
  weights(
    logits: Float32Array,
    offset: number,
    vocab: number,
    scale: number,
  ): { max: number; weights: Float32Array | null; total: number } {
    const count = Math.ceil(vocab / 16) * 16;
    const need = HEADER + count * 4;
    if (need > this.memory.buffer.byteLength)
      this.memory.grow(Math.ceil((need - this.memory.buffer.byteLength) / 65536));
    const row = new Float32Array(this.memory.buffer, HEADER, count);
    row.set(logits.subarray(offset, offset + vocab));
    row.fill(-Infinity, vocab); // padding: no effect on the max, weights of exp(-87), below the total's resolution
    this.weigh(count, f32Bits(scale));
    const max = new Float32Array(this.memory.buffer, 8, 1)[0]!;
    if (!Number.isFinite(max)) return { max, weights: null, total: 0 };
    return {
      max,
      weights: row.subarray(0, vocab),
      total: new Float64Array(this.memory.buffer, 0, 1)[0]!,
    };
  }
}
