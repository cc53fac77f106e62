// The SIMD RoPE kernel's module: x cos + rotate_half(x) sin (model/rope.ts) for rows of x that share
// one row of the tables, as f32x4 multiplies and one add or subtract, so the ops' rounding. Run on
// tfjs-wasm's heap by tfjs/rope.ts (and inside tfjs/decode_block.ts).
import { Body, I32, moduleBytes, V128 } from '../wasm/assembler.ts';

/**
 * `rope(x, c, s, out, half, rows, stride)`: for `rows` rows of x spaced `stride` bytes apart (and
 * of out likewise), all using the table rows c and s: out = [x1 c1 - x2 s1, x2 c2 + x1 s2] with x1,
 * x2 the halves (half floats each, a multiple of 4). f32x4 multiplies and one add or subtract: the
 * ops' rounding, so the ops' bits.
 */
function ropeBody(): Body {
  const f = new Body(7);
  const [px, pc, ps, pout, half, rows, stride] = [0, 1, 2, 3, 4, 5, 6];
  const [row, at, halfBytes] = [f.local(I32), f.local(I32), f.local(I32)];
  const [x1, x2] = [f.local(V128), f.local(V128)];
  const load = (base: number, second: boolean) => {
    f.get(base).get(at).i32Add();
    if (second) f.get(halfBytes).i32Add();
    f.v128Load();
  };
  const address = (base: number, second: boolean) => {
    f.get(base).get(at).i32Add();
    if (second) f.get(halfBytes).i32Add();
  };
  f.get(half).i32(2).i32Shl().set(halfBytes);
  f.i32(0).set(row);
  f.whileLoop(
    () => {
      f.get(row).get(rows).i32LtU();
    },
    () => {
      f.i32(0).set(at);
      f.whileLoop(
        () => {
          f.get(at).get(halfBytes).i32LtU();
        },
        () => {
          load(px, false);
          f.set(x1);
          load(px, true);
          f.set(x2);
          address(pout, false);
          f.get(x1);
          load(pc, false);
          f.f32x4Mul();
          f.get(x2);
          load(ps, false);
          f.f32x4Mul();
          f.f32x4Sub().v128Store(); // x1 c1 - x2 s1
          address(pout, true);
          f.get(x2);
          load(pc, true);
          f.f32x4Mul();
          f.get(x1);
          load(ps, true);
          f.f32x4Mul();
          f.f32x4Add().v128Store(); // x2 c2 + x1 s2
          f.addConst(at, 16);
        },
      );
      f.addTo(px, stride).addTo(pout, stride).addConst(row, 1);
    },
  );
  return f;
}

/** The RoPE kernel's module bytes. */
export function simdRopeModule(): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'rope', params: 7, body: ropeBody() }]);
}
