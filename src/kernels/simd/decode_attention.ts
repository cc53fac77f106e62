// Decoding's attention over an in-place KV cache as one WebAssembly SIMD pass per query row:
// scores q K^T (q scaled by 1/sqrt(hd)), plus the mask bias, softmax, and the weights times V,
// reading keys and values where the cache keeps them. Why: with one query row per sequence the
// tfjs route was eleven ops a layer (scale, reshapes, two strided products, permutes, the mask's
// broadcast add, softmax), each dispatch costing more than its arithmetic, and the strided
// products at one row or one column ran at a few GFLOP/s.
//
// Numbers: the scores are the strided kernel's (matmul/tfjs_kernels.ts) bits, its dot products
// summed in the same order (fused multiply-adds over 4-wide steps, then the lanes
// ((l0 + l1) + l2) + l3), and the bias added in float32 as tf.add does; the softmax is ours: exp
// from simd/exp.ts (a few float32 ulps, arguments clamped to [-87, 0], and 0 at or below -87, so a
// masked key gets 0 as from tf.softmax, and no weight is a subnormal, slow on x86) and the weights
// divided by their sum; the context sums weight times value over the keys in order, as the strided
// kernel does. Against the tfjs route: within ~1e-6 relative
// (test/kernels/tfjs/decode_attention.test.ts).
//
// Shapes: BH = B * Hkv (sequence, key head) slices; R query rows a slice (g query heads sharing a
// key head, one position each); S cached positions of `capacity` slots; hd the head width (a
// multiple of 4).
import { Body, F32, I32, moduleBytes, V128, V128_ZERO } from '../wasm/assembler.ts';
import { splatF32, VectorExp } from './exp.ts';

/**
 * Emits `attend(q, keys, values, bias, out, scratch, BH, Hkv, R, S, capacity, hd, scaleBits)`,
 * byte pointers: q (BH, R, hd); keys, values (BH, capacity, hd); bias (BH / Hkv, S); out (BH, R,
 * hd); scratch hd + S + 4 numbers (the scaled query, then the scores, padded to 4).
 */
function attendBody(): Body {
  const f = new Body(13);
  const [pq, pk, pv, pbias, pout, scratch, BH, HKV, R, S, CAP, HD, SCALE] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
  ];
  const i32 = () => f.local(I32);
  const v128 = () => f.local(V128);
  const [bh, r, j, d, rowBytes, kBase, vBase] = [i32(), i32(), i32(), i32(), i32(), i32(), i32()];
  const [biasRow, qRow, scores, scoresEnd, at, end] = [i32(), i32(), i32(), i32(), i32(), i32()];
  const kp = Array.from({ length: 4 }, i32);
  const acc = Array.from({ length: 8 }, v128);
  const [vq, scale, vmax, weight, total, low, keep] = [
    v128(),
    v128(),
    v128(),
    v128(),
    v128(),
    v128(),
    v128(),
  ];
  const [s, max, inv] = [f.local(F32), f.local(F32), f.local(F32)];
  const exp = new VectorExp(f, -87, 0);
  const zero = (local: number) => f.v128Const(V128_ZERO).set(local);
  const load = (pointer: number, offset = 0) => f.get(pointer).v128Load(offset);

  splatF32(f, -87, low);
  f.get(HD).i32(2).i32Shl().set(rowBytes);
  f.get(SCALE).f32ReinterpretI32().f32x4Splat().set(scale);
  f.get(scratch).get(rowBytes).i32Add().set(scores);
  f.get(scores).get(S).i32(2).i32Shl().i32Add().set(scoresEnd);
  f.i32(0).set(bh);
  f.whileLoop(f.lessThan(bh, BH), () => {
    f.get(pk).get(bh).get(CAP).i32Mul().get(rowBytes).i32Mul().i32Add().set(kBase);
    f.get(pv).get(bh).get(CAP).i32Mul().get(rowBytes).i32Mul().i32Add().set(vBase);
    f.get(pbias).get(bh).get(HKV).i32DivU().get(S).i32Mul().i32(2).i32Shl().i32Add().set(biasRow); // bias + (bh / Hkv) * S * 4
    f.i32(0).set(r);
    f.whileLoop(f.lessThan(r, R), () => {
      f.get(pq).get(bh).get(R).i32Mul().get(r).i32Add().get(rowBytes).i32Mul().i32Add().set(qRow);
      // the scaled query (tf.mul's float32 product), at scratch
      f.i32(0).set(d);
      f.whileLoop(f.lessThan(d, rowBytes), () => {
        f.get(scratch).get(d).i32Add();
        f.get(qRow).get(d).i32Add().v128Load().get(scale).f32x4Mul();
        f.v128Store();
        f.addConst(d, 16);
      });
      // scores: keys j .. j + n - 1 against the query, n accumulators; the running max
      f.f32Const(-Infinity).set(max);
      const scoreRows = (n: number) => {
        for (let i = 0; i < n; i++)
          f.get(kBase).get(j).i32(i).i32Add().get(rowBytes).i32Mul().i32Add().set(kp[i]!);
        for (let i = 0; i < n; i++) zero(acc[i]!);
        f.i32(0).set(d);
        f.whileLoop(f.lessThan(d, rowBytes), () => {
          f.get(scratch).get(d).i32Add().v128Load().set(vq);
          for (let i = 0; i < n; i++) {
            f.get(kp[i]!)
              .get(d)
              .i32Add()
              .v128Load()
              .get(vq)
              .get(acc[i]!)
              .f32x4RelaxedMadd()
              .set(acc[i]!); // acc + K q
          }
          f.addConst(d, 16);
        });
        for (let i = 0; i < n; i++) {
          f.get(acc[i]!).f32x4ExtractLane(0);
          for (let lane = 1; lane < 4; lane++) f.get(acc[i]!).f32x4ExtractLane(lane).f32Add();
          f.get(biasRow).get(j).i32(i).i32Add().i32(2).i32Shl().i32Add().f32Load().f32Add().set(s); // + bias[j + i]
          f.get(scores).get(j).i32(i).i32Add().i32(2).i32Shl().i32Add().get(s).f32Store();
          f.get(s).get(max).get(s).get(max).f32Gt().select().set(max); // s > max ? s : max (NaN passes over)
        }
      };
      f.i32(0).set(j);
      f.whileLoop(f.fits(j, 4, S), () => {
        scoreRows(4);
        f.addConst(j, 4);
      });
      f.whileLoop(f.lessThan(j, S), () => {
        scoreRows(1);
        f.addConst(j, 1);
      });
      // padding to a whole vector: weights exp(-87), nothing at float32's resolution of the sum
      for (let i = 0; i < 3; i++)
        f.get(scoresEnd)
          .f32Const(-Infinity)
          .f32Store(4 * i);
      // weights exp(s - max) in place and their total, then divided by it
      f.get(max).f32x4Splat().set(vmax);
      zero(total);
      f.get(scores).set(at);
      f.whileLoop(f.lessThan(at, scoresEnd), () => {
        load(at).get(vmax).f32x4Sub().set(weight);
        f.get(weight).get(low).f32x4Gt().set(keep); // above exp's clamp
        exp.apply(weight);
        f.get(weight).get(keep).v128And().set(weight); // 0 at or below it
        f.get(at).get(weight).v128Store();
        f.get(total).get(weight).f32x4Add().set(total);
        f.addConst(at, 16);
      });
      f.f32Const(1); // 1 / (((t0 + t1) + t2) + t3)
      f.get(total).f32x4ExtractLane(0);
      for (let lane = 1; lane < 4; lane++) f.get(total).f32x4ExtractLane(lane).f32Add();
      f.f32Div().set(inv);
      f.get(inv).f32x4Splat().set(weight);
      f.get(scores).set(at);
      f.whileLoop(f.lessThan(at, scoresEnd), () => {
        f.get(at);
        load(at).get(weight).f32x4Mul();
        f.v128Store();
        f.addConst(at, 16);
      });
      // context: out[d .. d + 4n) = sum over keys of weight * V[key, d .. d + 4n), n vectors a
      // block
      const contextBlock = (n: number) => {
        for (let i = 0; i < n; i++) zero(acc[i]!);
        f.get(vBase).get(d).i32Add().set(at);
        f.get(scores).set(end);
        f.i32(0).set(j);
        f.whileLoop(f.lessThan(j, S), () => {
          f.get(end).f32Load().f32x4Splat().set(weight); // weight j in all lanes
          for (let i = 0; i < n; i++)
            f.get(weight)
              .get(at)
              .v128Load(16 * i)
              .get(acc[i]!)
              .f32x4RelaxedMadd()
              .set(acc[i]!);
          f.addTo(at, rowBytes).addConst(end, 4).addConst(j, 1);
        });
        for (let i = 0; i < n; i++)
          f.get(pout)
            .get(bh)
            .get(R)
            .i32Mul()
            .get(r)
            .i32Add()
            .get(rowBytes)
            .i32Mul()
            .i32Add()
            .get(d)
            .i32Add()
            .get(acc[i]!)
            .v128Store(16 * i);
        f.addConst(d, 16 * n);
      };
      f.i32(0).set(d);
      f.whileLoop(f.fits(d, 128, rowBytes), () => contextBlock(8));
      f.whileLoop(f.lessThan(d, rowBytes), () => contextBlock(1));
      f.addConst(r, 1);
    });
    f.addConst(bh, 1);
  });
  return f;
}

/** The module's bytes (relaxed SIMD: fused multiply-adds, as the strided kernel's fused build). */
export function simdDecodeAttentionModule(): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'attend', params: 13, body: attendBody() }]);
}
