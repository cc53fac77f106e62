// The fused multiply-add ceiling of one core: a loop of independent relaxed-SIMD multiply-adds with
// no memory traffic, WebAssembly's peak on this core (bench/roofline.ts times it).
import { Body, I32, moduleBytes, V128 } from '../wasm/assembler.ts';

/** Independent multiply-add chains a loop step: more than the FMA latency times the pipes. */
export const FMA_CHAINS = 10;

/**
 * `fma(n)`: n steps of FMA_CHAINS independent 4-lane multiply-adds on an operand loaded from byte
 * 16 (so the engine cannot fold it away), every chain summed and stored at 0 (so none is dropped).
 */
export function fmaPeakModule(): Uint8Array<ArrayBuffer> {
  const f = new Body(1);
  const n = f.local(I32);
  const acc = Array.from({ length: FMA_CHAINS }, () => f.local(V128));
  const x = f.local(V128);
  f.i32(16).v128Load(0, 4).set(x); // an operand the engine cannot fold away
  f.i32(0).set(n);
  f.whileLoop(f.lessThan(n, 0), () => {
    for (const a of acc) f.get(x).get(x).get(a).f32x4RelaxedMadd().set(a);
    f.addConst(n, 1);
  });
  for (let i = 1; i < acc.length; i++) f.get(acc[0]!).get(acc[i]!).f32x4Add().set(acc[0]!); // every chain is used
  f.i32(0).get(acc[0]!).v128Store(0, 4);
  return moduleBytes([{ name: 'fma', params: 1, body: f }]);
}
