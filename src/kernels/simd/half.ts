// Widening 16-bit floats to float32 inside our kernels, for frozen weights kept as checkpoints ship
// them (matmul/weights16.ts): BF16 is the top half of a float32, so its bits shifted left by 16 are
// the number exactly; F16 has 5 exponent bits and 10 of mantissa, widened exactly for normals and
// subnormals as sign | ((h & 0x7fff) << 13) read as a float32 times 2^112 (for a subnormal that
// float32 is itself subnormal, still exact), then inf and NaN (exponent 31) given the float32
// exponent 255, the mantissa kept. Emitters for the kernels (simd/dot16.ts, simd/panel16.ts): four
// values at a time as an f32x4 (from a load of 8 bytes, or the even or odd values of a v128), or
// one value; and halfToFloatBits, the same in JavaScript.
import { type Body, F32, I32, V128 } from '../wasm/assembler.ts';

/** The 16-bit formats a frozen weight may have. */
export type HalfKind = 'bf16' | 'f16';

/** The 16 bytes of an i32x4 with `bits` in every lane. */
function splat32(bits: number): number[] {
  const lane = [bits & 255, (bits >>> 8) & 255, (bits >>> 16) & 255, (bits >>> 24) & 255];
  return [...lane, ...lane, ...lane, ...lane];
}

const view = new DataView(new ArrayBuffer(4));
/** The bits of the float32 `value`. */
function floatBits(value: number): number {
  view.setFloat32(0, value, true);
  return view.getUint32(0, true);
}

const SIGN = 0x80000000;
const INF_EXPONENT = 0x7f800000;
/** 2^112: moves an F16 exponent (bias 15) read as a float32 one (bias 127) to its place. */
const F16_SCALE = 2 ** 112;
/** The least product that came from exponent 31 (inf, NaN). */
const F16_OVERFLOW = 65536;

/**
 * Locals the widening emitters need: a v128 temporary and constants (set
 * once by widenLocals: a v128.const is 18 bytes of code at each use, a local.get 2, and our
 * modules stay under 4 KB), and for the scalar path an i32 pair and an f32.
 */
export interface WidenLocals {
  bits: number;
  magnitudeMask: number;
  scale: number;
  exponentMask: number;
  infinity: number;
  topMask: number;
  scalarBits: number;
  scalarSign: number;
  scalarValue: number;
}

/**
 * Declares the locals the widening emitters use in `f` and sets the constants: call it where the
 * function's code starts.
 */
export function widenLocals(f: Body, kind: HalfKind): WidenLocals {
  const locals: WidenLocals = {
    bits: f.local(V128),
    magnitudeMask: f.local(V128),
    scale: f.local(V128),
    exponentMask: f.local(V128),
    infinity: f.local(V128),
    topMask: f.local(V128),
    scalarBits: f.local(I32),
    scalarSign: f.local(I32),
    scalarValue: f.local(F32),
  };
  f.v128Const(splat32(0xffff0000)).set(locals.topMask);
  if (kind === 'f16') {
    f.v128Const(splat32(0x8fffffff)).set(locals.magnitudeMask);
    f.v128Const(splat32(floatBits(F16_SCALE))).set(locals.scale);
    f.v128Const(splat32(0x7c000000)).set(locals.exponentMask);
    f.v128Const(splat32(INF_EXPONENT)).set(locals.infinity);
  }
  return locals;
}

/**
 * Pushes an f32x4: the four 16-bit values at the address on the stack (+ `offset` bytes), widened
 * exactly. One v128.load16x4_u and a shift for BF16 (two x64 instructions; widening a v128 of 8
 * in registers took a zero register and an unpack for its high half, and TurboFan, which hoists
 * a loop body's loads, ran out of registers in the 4 x 2 tile).
 */
export function widenLoad(f: Body, kind: HalfKind, offset: number, locals: WidenLocals): void {
  f.v128Load16x4U(offset).i32(16).i32x4Shl(); // h << 16 in each lane
  widenTop(f, kind, locals);
}

/**
 * Pushes an f32x4: the even (`odd` false: values 0, 2, 4, 6) or odd (1, 3, 5, 7) 16-bit values of
 * the v128 local `raw` (8 values), widened exactly: one shift or one and for BF16, so a 16-byte
 * load feeds two f32x4 for 2 instructions (the other operand's lanes taken in the same order).
 */
export function widenPair(
  f: Body,
  kind: HalfKind,
  raw: number,
  odd: boolean,
  locals: WidenLocals,
): void {
  f.get(raw);
  if (odd) f.get(locals.topMask).v128And();
  else f.i32(16).i32x4Shl();
  widenTop(f, kind, locals);
}

/** Turns the i32x4 on the stack, h << 16 in each lane, into the f32x4 of those numbers. */
export function widenTop(f: Body, kind: HalfKind, locals: WidenLocals): void {
  if (kind === 'bf16') return; // that is the number
  const { bits, magnitudeMask, scale, exponentMask, infinity } = locals;
  // an arithmetic shift by 3 keeps the sign and smears it over bits 30-28, which the mask clears:
  // sign | (h & 0x7fff) << 13, and the product keeps the sign
  f.set(bits);
  f.get(bits).i32(3).i32x4ShrS().get(magnitudeMask).v128And().get(scale).f32x4Mul();
  f.get(bits).get(exponentMask).v128And().get(exponentMask).i32x4Eq(); // exponent 31: inf, NaN
  f.get(infinity).v128And().v128Or();
}

/** Pushes an f32: the 16-bit value at the address on the stack, widened exactly. */
export function widenScalar(f: Body, kind: HalfKind, locals: WidenLocals): void {
  f.i32Load16U().i32(16).i32Shl();
  if (kind === 'bf16') {
    f.f32ReinterpretI32();
    return;
  }
  const { scalarBits: bits, scalarSign: sign, scalarValue: value } = locals;
  f.set(bits)
    .get(bits)
    .i32(SIGN | 0)
    .i32And()
    .set(sign);
  f.get(bits)
    .get(sign)
    .i32Xor()
    .i32(3)
    .i32ShrU()
    .f32ReinterpretI32()
    .f32Const(F16_SCALE)
    .f32Mul()
    .set(value);
  f.get(value)
    .i32ReinterpretF32()
    .i32(INF_EXPONENT)
    .i32(0)
    .get(value)
    .f32Const(F16_OVERFLOW)
    .f32Ge()
    .select()
    .i32Or()
    .get(sign)
    .i32Or()
    .f32ReinterpretI32();
}

/**
 * The float32 bits of every 16-bit pattern of `kind`, computed as the kernels widen them: for
 * JavaScript-side widening (a lookup per number) and the tests.
 */
export function halfToFloatBits(kind: HalfKind, h: number): number {
  if (kind === 'bf16') return (h << 16) >>> 0;
  const sign = (h & 0x8000) << 16;
  const exponent = (h >> 10) & 31;
  const mantissa = h & 1023;
  if (exponent === 31) return (sign | INF_EXPONENT | (mantissa << 13)) >>> 0;
  const magnitude =
    exponent === 0 ? mantissa * 2 ** -24 : 2 ** (exponent - 15) * (1 + mantissa / 1024);
  return (sign | floatBits(magnitude)) >>> 0;
}

/**
 * A frozen matrix of `rows` x `cols` 16-bit numbers, row-major, resident in the dot store's memory
 * at byte `offset` (Hugging Face layout: a linear layer's weight is (out, in); the embedding
 * (vocab, width)).
 */
export interface Resident16 {
  readonly offset: number;
  readonly rows: number;
  readonly cols: number;
  readonly kind: HalfKind;
}
