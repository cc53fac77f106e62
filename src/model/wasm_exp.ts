// exp on four float32 lanes, emitted into a WebAssembly function body (wasm_asm.ts), for the
// kernels that need it (simd_sample.ts's sampling weights, simd_swiglu.ts's sigmoid).
//
// exp(t) for t clamped to [lo, hi] within [-87, 88] (so 2^k below stays a normal float32):
// k = nearest(t log2 e), r = t - k ln2 (ln2 in two parts, Cody-Waite, so r is exact to float32),
// exp(r) by its Taylor polynomial to degree 7 (|r| <= 0.347: truncation < 6e-9 relative), times 2^k
// built in the exponent bits. A few float32 ulps from exp in float64 (tested through its users).
import { type Body, V128 } from './wasm_asm.ts';

/** `local = f32x4.splat(value)`. */
export function splatF32(f: Body, value: number, local: number): void {
  const bits = new DataView(new ArrayBuffer(4));
  bits.setFloat32(0, value, true);
  f.op(0x43, ...new Uint8Array(bits.buffer)).simd(0x13).set(local); // f32.const; f32x4.splat
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
  private readonly r: number;

  constructor(private readonly f: Body, lo: number, hi: number) {
    if (!(lo >= -87 && hi <= 88 && lo < hi)) throw new Error(`VectorExp: clamp [${lo}, ${hi}] outside [-87, 88]`);
    const vector = () => f.local(V128);
    [this.lo, this.hi, this.log2e, this.c1, this.c2, this.k, this.r] = [vector(), vector(), vector(), vector(), vector(), vector(), vector()];
    this.coefficients = Array.from({ length: 8 }, vector); // 1, 1, 1/2, ..., 1/5040
    splatF32(f, lo, this.lo);
    splatF32(f, hi, this.hi);
    splatF32(f, Math.LOG2E, this.log2e);
    splatF32(f, 0.693359375, this.c1); // ln 2 = c1 + c2, c1 with few bits so k * c1 is exact
    splatF32(f, -2.12194440e-4, this.c2);
    let factorial = 1;
    this.coefficients.forEach((local, i) => { if (i > 1) factorial *= i; splatF32(f, 1 / factorial, local); });
  }

  /** local `x` (f32x4) = exp(clamp(x, lo, hi)). */
  apply(x: number): void {
    const { f, k, r, c1, c2 } = this;
    f.get(x).get(this.lo).simd(0xe9).get(this.hi).simd(0xe8).set(r); // t = min(max(x, lo), hi)
    f.get(r).get(this.log2e).simd(0xe6).simd(0x6a).set(k); // k = nearest(t log2 e)
    f.get(r).get(k).get(c1).simd(0xe6).simd(0xe5).get(k).get(c2).simd(0xe6).simd(0xe5).set(r); // r = (t - k c1) - k c2
    // p = c0 + r (c1 + r (... + r c7)), Horner, into x
    f.get(this.coefficients[7]!).set(x);
    for (let i = 6; i >= 0; i--) f.get(x).get(r).simd(0xe6).get(this.coefficients[i]!).simd(0xe4).set(x);
    // times 2^k: (int(k) + 127) << 23 as float bits
    f.get(x).get(k).simd(0xf8).i32(127).simd(0x11).simd(0xae).i32(23).simd(0xab).simd(0xe6).set(x); // i32x4.trunc_sat_f32x4_s; splat; add; shl; f32x4.mul
  }
}
