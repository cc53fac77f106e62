// exp on four float32 lanes, emitted into a WebAssembly function body (wasm/assembler.ts), for the
// kernels that need it (simd/sample.ts's sampling weights, simd/swiglu.ts's sigmoid).
//
// exp(t) for t clamped to [lo, hi] within [-87, 88] (so 2^k below stays a normal float32): k =
// nearest(t log2 e), r = t - k ln2 (ln2 in two parts, Cody-Waite, so r is exact to float32), exp(r)
// by its Taylor polynomial to degree 7 (|r| <= 0.347: truncation < 6e-9 relative), times 2^k built
// in the exponent bits. A few float32 ulps from exp in float64 (test/kernels/simd/exp.test.ts).
//
// Written for the instructions x64 has: V8 lowers f32x4.min/max (NaN and -0 rules) and
// i32x4.trunc_sat_f32x4_s to ~8 instructions each, while pmin/pmax are one (NaN still comes
// through: x is their first operand) and k comes from adding 1.5 * 2^23 (the sum's rounding is
// nearest-even, as f32x4.nearest's, and its low mantissa bits are k, ready to shift into an
// exponent). Same bits as the direct sequence, ~1.5x as fast (the SwiGLU forward at 128 x 768: 2.9
// -> 1.9 ns a number; in a training step of the bench model its kernels went 1.14 -> 0.77 ms,
// gradient 1.36 -> 0.98).
import { type Body, V128 } from '../wasm/assembler.ts';

/** `local = f32x4.splat(value)`. */
export function splatF32(f: Body, value: number, local: number): void {
  f.f32Const(value).f32x4Splat().set(local);
}

/** The constants of exp as locals of one body (splatted once, before the loop), and the emitter. */
export class VectorExp {
  private readonly lo: number;
  private readonly hi: number;
  private readonly log2e: number;
  private readonly c1: number;
  private readonly c2: number;
  private readonly coefficients: number[];
  private readonly k: number;
  private readonly kr: number;
  private readonly r: number;
  private readonly magic: number;
  private readonly one: number;

  constructor(
    private readonly f: Body,
    lo: number,
    hi: number,
  ) {
    if (!(lo >= -87 && hi <= 88 && lo < hi))
      throw new Error(`VectorExp: clamp [${lo}, ${hi}] outside [-87, 88]`);
    const vector = () => f.local(V128);
    [this.lo, this.hi, this.log2e, this.c1, this.c2] = [
      vector(),
      vector(),
      vector(),
      vector(),
      vector(),
    ];
    [this.k, this.kr, this.r, this.magic, this.one] = [
      vector(),
      vector(),
      vector(),
      vector(),
      vector(),
    ];
    this.coefficients = Array.from({ length: 8 }, vector); // 1, 1, 1/2, ..., 1/5040
    splatF32(f, lo, this.lo);
    splatF32(f, hi, this.hi);
    splatF32(f, Math.LOG2E, this.log2e);
    splatF32(f, 0.693359375, this.c1); // ln 2 = c1 + c2, c1 with few bits so k * c1 is exact
    splatF32(f, -2.1219444e-4, this.c2);
    splatF32(f, 12582912, this.magic); // 1.5 * 2^23: kr = y + magic holds nearest(y) in its low bits
    f.i32(127 << 23)
      .i32x4Splat()
      .set(this.one); // the bits of 1.0
    let factorial = 1;
    this.coefficients.forEach((local, i) => {
      if (i > 1) factorial *= i;
      splatF32(f, 1 / factorial, local);
    });
  }

  /**
   * Fresh locals for apply()'s intermediate values, so several exps can be in flight in one loop
   * iteration (each is a chain of ~20 dependent operations; interleaved, the CPU overlaps them).
   */
  temporaries(): { k: number; kr: number; r: number } {
    return { k: this.f.local(V128), kr: this.f.local(V128), r: this.f.local(V128) };
  }

  /**
   * local `x` (f32x4) = exp(clamp(x, lo, hi)), with `temps` (from temporaries()) or the instance's
   * own.
   */
  apply(x: number, temps?: { k: number; kr: number; r: number }): void {
    const { f, c1, c2 } = this;
    const { k, kr, r } = temps ?? { k: this.k, kr: this.kr, r: this.r };
    f.get(x).get(this.lo).f32x4Pmax().get(this.hi).f32x4Pmin().set(r); // t = pmin(pmax(x, lo), hi): NaN stays NaN
    f.get(r).get(this.log2e).f32x4Mul().get(this.magic).f32x4Add().set(kr); // kr = t log2 e + 1.5 * 2^23
    f.get(kr).get(this.magic).f32x4Sub().set(k); // k = nearest(t log2 e), exactly
    f.get(r).get(k).get(c1).f32x4Mul().f32x4Sub().get(k).get(c2).f32x4Mul().f32x4Sub().set(r); // r = (t - k c1) - k c2
    // p = c0 + r (c1 + r (... + r c7)), Horner, into x
    f.get(this.coefficients[7]!).set(x);
    for (let i = 6; i >= 0; i--)
      f.get(x).get(r).f32x4Mul().get(this.coefficients[i]!).f32x4Add().set(x);
    // times 2^k: kr's bits are (150 << 23) + 2^22 + k, so kr << 23 is k << 23 (mod 2^32); plus
    // 1.0's bits
    f.get(x).get(kr).i32(23).i32x4Shl().get(this.one).i32x4Add().f32x4Mul().set(x);
  }
}
