// VectorExp (kernels/simd/exp.ts), the exp inside the sampling weights and the SwiGLU kernels, on
// its own: bit for bit against the algorithm it implements, emulated in JavaScript with Math.fround
// at every float32 operation (clamp, k = nearest-even(t log2 e), Cody-Waite r, degree-7 Horner,
// times 2^k), within a few ulps of exp in float64, and NaN in gives NaN out.
import { describe, expect, it } from 'vitest';
import { Body, I32, moduleBytes, V128 } from '../../../src/kernels/wasm/assembler.ts';
import { VectorExp } from '../../../src/kernels/simd/exp.ts';

const f = Math.fround;

/** exp(x) as the kernel computes it, each float32 operation rounded by Math.fround. */
function emulated(x: number, lo: number, hi: number): number {
  if (Number.isNaN(x)) return NaN;
  const t = Math.min(Math.max(f(x), lo), hi);
  const y = f(t * f(Math.LOG2E));
  let k = Math.round(y); // ties: Math.round goes up, the kernel to even
  if (k - y === 0.5 && k % 2 !== 0) k -= 1;
  const r = f(f(t - f(k * f(0.693359375))) - f(k * f(-2.1219444e-4)));
  const coefficients = [1, 1, 1 / 2, 1 / 6, 1 / 24, 1 / 120, 1 / 720, 1 / 5040].map(f);
  let p = coefficients[7]!;
  for (let i = 6; i >= 0; i--) p = f(f(p * r) + coefficients[i]!);
  return f(p * 2 ** k);
}

/** exp(count floats at byte 0, in place), clamped to [lo, hi]. */
function kernel(lo: number, hi: number): { memory: WebAssembly.Memory; run(count: number): void } {
  const body = new Body(1);
  const at = body.local(I32);
  const x = body.local(V128);
  const exp = new VectorExp(body, lo, hi);
  body.i32(0).set(at);
  body.whileLoop(
    () => {
      body.get(at).get(0).i32(2).i32Shl().i32LtU();
    },
    () => {
      // at < count * 4
      body.get(at).v128Load().set(x);
      exp.apply(x);
      body.get(at).get(x).v128Store();
      body.addConst(at, 16);
    },
  );
  const memory = new WebAssembly.Memory({ initial: 4 });
  const instance = new WebAssembly.Instance(
    new WebAssembly.Module(moduleBytes([{ name: 'exp', params: 1, body }])),
    { env: { memory } },
  );
  return { memory, run: instance.exports.exp as (count: number) => void };
}

describe('VectorExp', () => {
  // a sweep of t, the clamp bounds and past them, and t where t log2 e lies on a half (k's tie)
  const inputs = (): Float32Array => {
    const values: number[] = [];
    for (let t = -95; t <= 95; t += 0.0137) values.push(t);
    for (let n = -125; n <= 126; n++)
      values.push((n + 0.5) / Math.LOG2E, f((n + 0.5) / Math.LOG2E) * (1 + 2 ** -23));
    values.push(0, -0, -87, 88, -87.5, 88.5, 1e-30, -1e-30, 1e30, -1e30, Infinity, -Infinity);
    while (values.length % 4 !== 0) values.push(0);
    return Float32Array.from(values);
  };

  it.each([
    [-87, 88],
    [-87, 0],
  ])(
    'clamped to [%i, %i]: the emulated algorithm bit for bit, exp in float64 within 4 ulps',
    (lo, hi) => {
      const xs = inputs();
      const { memory, run } = kernel(lo, hi);
      const view = new Float32Array(memory.buffer, 0, xs.length);
      view.set(xs);
      run(xs.length);
      for (let i = 0; i < xs.length; i++) {
        const x = xs[i]!;
        expect([x, view[i]]).toEqual([x, emulated(x, lo, hi)]);
        const want = Math.exp(Math.min(Math.max(x, lo), hi));
        expect(Math.abs(view[i]! - want)).toBeLessThanOrEqual(4 * 2 ** -23 * want);
      }
    },
  );

  it('passes NaN through', () => {
    const { memory, run } = kernel(-87, 88);
    const view = new Float32Array(memory.buffer, 0, 4);
    view.set([NaN, 1, NaN, -1]);
    run(4);
    expect(Number.isNaN(view[0]!) && Number.isNaN(view[2]!)).toBe(true);
    expect(view[1]).toBeCloseTo(Math.E, 5);
  });
});
