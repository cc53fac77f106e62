// Attention's masked softmax, p = softmax(scores + mask), and its gradient, ds = p (dp - Σ p dp)
// over each row, each as one WebAssembly SIMD pass on tfjs-wasm's heap. Why the gradient: as tfjs
// ops (autograd's softmax gradient) it is a multiply, a sum, a subtract and another multiply, each
// a full pass over (B, H, T, S) numbers: 15 ms for 4 x 4 x 481 x 481, against 2 ms fused; for the
// page's update (LoRA, micro-batches of 4 sequences of up to ~480 tokens) the ops were ~250 ms of
// ~4.6 s of kernels. Why the forward: tf.add(scores, mask) and tf.softmax are two passes over every
// number, the hidden half of a causal mask's included; the fused pass reads the visible keys only
// and keeps four exps in flight: 4 x 4 x 480 x 480 causal 12.3 -> 3.5 ms (a first version, one exp
// at a time, over every key, took 14 ms against the ops' 6, and was dropped).
//
//   forward: max and sum four lanes at a time, exp from simd/exp.ts (a few float32 ulps): within
//   ~5e-7 of the ops, not bit for bit; hidden keys exactly 0 (tested against float64 and the ops)
//   backward: ds = p (dp - Σ p dp), Σ over f32x4 lanes summed in order ((l0 + l1) + l2) + l3, then
//   the tail one by one: within ~1e-7 of the ops' gradient (tested, and against finite
//   differences).
//
// This file emits the two kernels' modules; tfjs/masked_softmax.ts registers them with tfjs-wasm
// and gives the op, maskedSoftmax.
import { Body, F32, I32, moduleBytes, V128, V128_ZERO } from '../wasm/assembler.ts';
import { splatF32, VectorExp } from './exp.ts';

/**
 * The loop over rows: `perRow()` sees `vecEnd` (bytes of whole vectors) and `end` (bytes of a row).
 */
function rowLoop(
  f: Body,
  rows: number,
  cols: number,
  pointers: number[],
  perRow: (vecEnd: number, end: number) => void,
): void {
  const [row, vecEnd, end] = [f.local(I32), f.local(I32), f.local(I32)];
  f.get(cols).i32(2).i32Shl().set(end); // cols * 4
  f.get(end).i32(-16).i32And().set(vecEnd); // & ~15
  f.i32(0).set(row);
  f.whileLoop(
    () => {
      f.get(row).get(rows).i32LtU();
    },
    () => {
      perRow(vecEnd, end);
      for (const p of pointers) f.addTo(p, end);
      f.addConst(row, 1);
    },
  );
}

/** `local = ((l0 + l1) + l2) + l3` of the f32x4 `vector`. */
function laneSum(f: Body, vector: number, local: number): void {
  f.get(vector).f32x4ExtractLane(0);
  for (let lane = 1; lane < 4; lane++) f.get(vector).f32x4ExtractLane(lane).f32Add();
  f.set(local);
}

/** Loops `at` over [from, to) in steps of `step` bytes. */
function span(
  f: Body,
  at: number,
  from: () => void,
  to: number,
  step: number,
  body: () => void,
): void {
  from();
  f.set(at);
  f.whileLoop(
    () => {
      f.get(at).get(to).i32LtU();
    },
    () => {
      body();
      f.addConst(at, step);
    },
  );
}

/** `softmaxGrad(p, dp, ds, rows, cols)`: ds = p (dp - Σ p dp) by rows; byte pointers. */
function backwardBody(): Body {
  const f = new Body(5);
  const [pp, pdp, pds, rows, cols] = [0, 1, 2, 3, 4];
  const at = f.local(I32);
  const [acc, dotV] = [f.local(V128), f.local(V128)];
  const dot = f.local(F32);
  const load = (p: number) => f.get(p).get(at).i32Add().v128Load();
  const loadS = (p: number) => f.get(p).get(at).i32Add().f32Load();
  rowLoop(f, rows, cols, [pp, pdp, pds], (vecEnd, end) => {
    f.v128Const(V128_ZERO).set(acc);
    span(
      f,
      at,
      () => f.i32(0),
      vecEnd,
      16,
      () => {
        f.get(acc);
        load(pp);
        load(pdp);
        f.f32x4Mul().f32x4Add().set(acc);
      },
    );
    laneSum(f, acc, dot);
    span(
      f,
      at,
      () => f.get(vecEnd),
      end,
      4,
      () => {
        f.get(dot);
        loadS(pp);
        loadS(pdp);
        f.f32Mul().f32Add().set(dot);
      },
    );
    f.get(dot).f32x4Splat().set(dotV);
    span(
      f,
      at,
      () => f.i32(0),
      vecEnd,
      16,
      () => {
        f.get(pds).get(at).i32Add();
        load(pp);
        load(pdp);
        f.get(dotV).f32x4Sub().f32x4Mul().v128Store();
      },
    );
    span(
      f,
      at,
      () => f.get(vecEnd),
      end,
      4,
      () => {
        f.get(pds).get(at).i32Add();
        loadS(pp);
        loadS(pdp);
        f.get(dot).f32Sub().f32Mul().f32Store();
      },
    );
  });
  return f;
}

/**
 * `softmax(scores, mask, out, rows, T, S, HG, maskBatched, offset)`: out = softmax(scores + mask)
 * by rows of S, byte pointers. Row r is query t = r % T of block r / T, of sequence r / (HG T);
 * its mask row is mask[maskBatched ? sequence : 0][t]. With offset >= 0 (a causal mask) row t's
 * keys past t + offset are hidden: they get 0 without being read, and the row's work stops there.
 * Exps four vectors in flight (simd/exp.ts) and 0 where x - max <= -87 (exp's clamp; a key the
 * mask hides gets 0, as from tf.softmax, and no weight is a subnormal, whose arithmetic costs
 * x86 ~100 cycles: weights of exp(-87) made the pass 5x slower); the max and the sum four lanes at
 * a time; the weights times 1 / sum.
 */
function forwardBody(): Body {
  const f = new Body(9);
  const [ps, pm, pout, rows, T, S, HG, maskBatched, offset] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const i32 = () => f.local(I32);
  const [row, t, sRow, mRow, oRow, visible, at, rowBytes, end] = [
    i32(),
    i32(),
    i32(),
    i32(),
    i32(),
    i32(),
    i32(),
    i32(),
    i32(),
  ];
  const v = [f.local(V128), f.local(V128), f.local(V128), f.local(V128)];
  const keep = [f.local(V128), f.local(V128), f.local(V128), f.local(V128)];
  const [vmax, total, low] = [f.local(V128), f.local(V128), f.local(V128)];
  const [max, x] = [f.local(F32), f.local(F32)];
  const exp = new VectorExp(f, -87, 0);
  const temps = v.map(() => exp.temporaries());
  const address = (base: number) => f.get(base).get(at).i32Add();
  splatF32(f, -87, low);
  f.get(S).i32(2).i32Shl().set(rowBytes);
  f.i32(0).set(row);
  f.whileLoop(f.lessThan(row, rows), () => {
    f.get(row).get(T).i32RemU().set(t);
    f.get(ps).get(row).get(rowBytes).i32Mul().i32Add().set(sRow);
    f.get(pout).get(row).get(rowBytes).i32Mul().i32Add().set(oRow);
    // mask + ((maskBatched * (row / (HG T))) * T + t) * S * 4
    f.get(pm)
      .get(maskBatched)
      .get(row)
      .get(T)
      .get(HG)
      .i32Mul()
      .i32DivU()
      .i32Mul()
      .get(T)
      .i32Mul()
      .get(t)
      .i32Add()
      .get(rowBytes)
      .i32Mul()
      .i32Add()
      .set(mRow);
    // visible keys: all, or t + offset + 1 under a causal mask (at most S)
    f.get(S).set(visible);
    f.ifElse(
      () => {
        f.get(offset).i32(0).i32GeS();
      },
      () => {
        f.get(t).get(offset).i32Add().i32(1).i32Add().set(visible);
        f.ifElse(
          () => {
            f.get(visible).get(S).i32GtU();
          },
          () => {
            f.get(S).set(visible);
          },
          () => {},
        );
      },
      () => {},
    );
    f.get(visible).i32(2).i32Shl().set(end);
    // scores + mask into out, and their max
    f.f32Const(-Infinity).f32x4Splat().set(vmax);
    f.i32(0).set(at);
    f.whileLoop(f.fits(at, 16, end), () => {
      address(sRow).v128Load();
      address(mRow).v128Load();
      f.f32x4Add().set(v[0]!);
      address(oRow).get(v[0]!).v128Store();
      f.get(vmax).get(v[0]!).f32x4Pmax().set(vmax); // vmax < x ? x : vmax
      f.addConst(at, 16);
    });
    f.maxAcrossLanes(vmax);
    f.get(vmax).f32x4ExtractLane(0).set(max);
    f.whileLoop(f.lessThan(at, end), () => {
      address(sRow).f32Load();
      address(mRow).f32Load();
      f.f32Add().set(x);
      address(oRow).get(x).f32Store();
      f.get(x).get(max).get(x).get(max).f32Gt().select().set(max); // x > max ? x : max
      f.addConst(at, 4);
    });
    // weights exp(x - max) in place, n vectors a turn (one number: lane 0 of a splat), summed into
    // total
    f.get(max).f32x4Splat().set(vmax);
    f.v128Const(V128_ZERO).set(total);
    const weigh = (n: number, scalar: boolean) => {
      for (let k = 0; k < n; k++) {
        if (scalar) address(oRow).f32Load().f32x4Splat();
        else address(oRow).v128Load(16 * k);
        f.get(vmax).f32x4Sub().set(v[k]!);
      }
      for (let k = 0; k < n; k++) f.get(v[k]!).get(low).f32x4Gt().set(keep[k]!); // above the clamp
      for (let k = 0; k < n; k++) exp.apply(v[k]!, temps[k]!);
      for (let k = 0; k < n; k++) f.get(v[k]!).get(keep[k]!).v128And().set(v[k]!); // 0 below it
      for (let k = 0; k < n; k++) {
        if (scalar) {
          address(oRow).get(v[k]!).f32x4ExtractLane(0).f32Store();
          f.get(total)
            .get(v[k]!)
            .v128Const(V128_ZERO)
            .i8x16Shuffle([0, 1, 2, 3, 16, 17, 18, 19, 16, 17, 18, 19, 16, 17, 18, 19])
            .f32x4Add()
            .set(total); // lane 0 only
        } else {
          address(oRow)
            .get(v[k]!)
            .v128Store(16 * k);
          f.get(total).get(v[k]!).f32x4Add().set(total);
        }
      }
      f.addConst(at, scalar ? 4 : 16 * n);
    };
    f.i32(0).set(at);
    f.whileLoop(f.fits(at, 64, end), () => weigh(4, false));
    f.whileLoop(f.fits(at, 16, end), () => weigh(1, false));
    f.whileLoop(f.lessThan(at, end), () => weigh(1, true));
    // times 1 / (((t0 + t1) + t2) + t3)
    f.f32Const(1);
    laneSum(f, total, x);
    f.get(x).f32Div().f32x4Splat().set(vmax);
    f.i32(0).set(at);
    f.whileLoop(f.fits(at, 16, end), () => {
      address(oRow);
      address(oRow).v128Load().get(vmax).f32x4Mul();
      f.v128Store();
      f.addConst(at, 16);
    });
    f.get(vmax).f32x4ExtractLane(0).set(x);
    f.whileLoop(f.lessThan(at, end), () => {
      address(oRow);
      address(oRow).f32Load().get(x).f32Mul();
      f.f32Store();
      f.addConst(at, 4);
    });
    // the hidden keys: 0
    f.whileLoop(f.lessThan(at, rowBytes), () => {
      address(oRow).i32(0).i32Store();
      f.addConst(at, 4);
    });
    f.addConst(row, 1);
  });
  return f;
}

/** The module's bytes: `softmaxGrad`. */
export function simdSoftmaxModule(): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'softmaxGrad', params: 5, body: backwardBody() }]);
}

/** The forward's module bytes: `softmax` (its own module, so each stays under 4 KB). */
export function simdSoftmaxForwardModule(): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'softmax', params: 9, body: forwardBody() }]);
}
