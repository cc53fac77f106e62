// The instructions the kernels use, one named emitter each: the WebAssembly spec's name in
// camelCase (i32.lt_u -> i32LtU, f32x4.relaxed_madd -> f32x4RelaxedMadd). Body (wasm/assembler.ts)
// extends this with locals, loop and branch helpers, and the function's encoding.
// Opcode numbers are from the WebAssembly core spec (2.0), its fixed-width SIMD proposal (prefix
// 0xfd, then the opcode in LEB128) and the relaxed SIMD proposal.

/** Unsigned LEB128. */
export function uleb(value: number): number[] {
  const out: number[] = [];
  let v = value >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}

/** Signed LEB128 (32-bit). */
export function sleb(value: number): number[] {
  const out: number[] = [];
  let v = value | 0;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

/** The 16 bytes of an all-zero v128, for v128Const. */
export const V128_ZERO: readonly number[] = Array<number>(16).fill(0);

const EMPTY = 0x40; // block type: no result
const f32Bytes = new DataView(new ArrayBuffer(4));

/** Instruction emitters, each appending one instruction (opcode and immediates) to `code`. */
export class Instructions {
  readonly code: number[] = [];

  /** Appends raw bytes. */
  protected op(...bytes: number[]): this {
    this.code.push(...bytes);
    return this;
  }
  /** A SIMD instruction (prefix 0xfd, LEB opcode, then immediates). */
  protected simd(opcode: number, ...immediates: number[]): this {
    return this.op(0xfd, ...uleb(opcode), ...immediates);
  }

  // Variables and constants
  /** local.get */
  get(index: number): this {
    return this.op(0x20, ...uleb(index));
  }
  /** local.set */
  set(index: number): this {
    return this.op(0x21, ...uleb(index));
  }
  /** i32.const */
  i32(value: number): this {
    return this.op(0x41, ...sleb(value));
  }
  /**
   * The float32 nearest `value`, as its 4 little-endian bytes; NaN as the canonical quiet NaN
   * 0x7fc00000.
   */
  f32Const(value: number): this {
    if (Number.isNaN(value)) f32Bytes.setUint32(0, 0x7fc00000, true);
    else f32Bytes.setFloat32(0, value, true);
    return this.op(
      0x43,
      f32Bytes.getUint8(0),
      f32Bytes.getUint8(1),
      f32Bytes.getUint8(2),
      f32Bytes.getUint8(3),
    );
  }
  select(): this {
    return this.op(0x1b);
  }

  // Control (blocks without a result)
  block(): this {
    return this.op(0x02, EMPTY);
  }
  loop(): this {
    return this.op(0x03, EMPTY);
  }
  /** if: pops an i32 condition. */
  if(): this {
    return this.op(0x04, EMPTY);
  }
  else(): this {
    return this.op(0x05);
  }
  end(): this {
    return this.op(0x0b);
  }
  /** Branches to the `depth`-th enclosing block (0: innermost); a loop's label is its start. */
  br(depth: number): this {
    return this.op(0x0c, ...uleb(depth));
  }
  brIf(depth: number): this {
    return this.op(0x0d, ...uleb(depth));
  }

  // i32
  i32Eqz(): this {
    return this.op(0x45);
  }
  i32Eq(): this {
    return this.op(0x46);
  }
  i32LtU(): this {
    return this.op(0x49);
  }
  i32GtS(): this {
    return this.op(0x4a);
  }
  i32GtU(): this {
    return this.op(0x4b);
  }
  i32LeU(): this {
    return this.op(0x4d);
  }
  i32GeS(): this {
    return this.op(0x4e);
  }
  i32GeU(): this {
    return this.op(0x4f);
  }
  i32Add(): this {
    return this.op(0x6a);
  }
  i32Sub(): this {
    return this.op(0x6b);
  }
  i32Mul(): this {
    return this.op(0x6c);
  }
  i32DivU(): this {
    return this.op(0x6e);
  }
  i32RemU(): this {
    return this.op(0x70);
  }
  i32And(): this {
    return this.op(0x71);
  }
  i32Shl(): this {
    return this.op(0x74);
  }
  i32ShrU(): this {
    return this.op(0x76);
  }
  i32Or(): this {
    return this.op(0x72);
  }
  i32Xor(): this {
    return this.op(0x73);
  }
  i32ReinterpretF32(): this {
    return this.op(0xbc);
  }

  // f32 and f64
  f32Lt(): this {
    return this.op(0x5d);
  }
  f32Ge(): this {
    return this.op(0x60);
  }
  f32Gt(): this {
    return this.op(0x5e);
  }
  f32Abs(): this {
    return this.op(0x8b);
  }
  f32Sqrt(): this {
    return this.op(0x91);
  }
  f32Add(): this {
    return this.op(0x92);
  }
  f32Sub(): this {
    return this.op(0x93);
  }
  f32Mul(): this {
    return this.op(0x94);
  }
  f32Div(): this {
    return this.op(0x95);
  }
  f32Max(): this {
    return this.op(0x97);
  }
  f32ConvertI32U(): this {
    return this.op(0xb3);
  }
  f32ReinterpretI32(): this {
    return this.op(0xbe);
  }
  f64Add(): this {
    return this.op(0xa0);
  }
  f64Mul(): this {
    return this.op(0xa2);
  }
  f64PromoteF32(): this {
    return this.op(0xbb);
  }

  // Memory. Immediates: byte `offset` added to the address operand, and the alignment hint as
  // log2 bytes, by default 4 bytes (2): the natural one for 32-bit values, and all that float32
  // data guarantees for v128 (a hint only: any address works, at most a little slower).
  i32Store(offset = 0, align = 2): this {
    return this.op(0x36, align, ...uleb(offset));
  }
  /** Loads 16 bits, zero-extended to an i32 (2-byte alignment by default). */
  i32Load16U(offset = 0, align = 1): this {
    return this.op(0x2f, align, ...uleb(offset));
  }
  f32Load(offset = 0, align = 2): this {
    return this.op(0x2a, align, ...uleb(offset));
  }
  f32Store(offset = 0, align = 2): this {
    return this.op(0x38, align, ...uleb(offset));
  }
  f64Store(offset = 0, align = 3): this {
    return this.op(0x39, align, ...uleb(offset));
  }
  v128Load(offset = 0, align = 2): this {
    return this.simd(0x00, align, ...uleb(offset));
  }
  /** Loads four u16 values, zero-extended to i32 lanes (x64: one pmovzxwd). */
  v128Load16x4U(offset = 0, align = 1): this {
    return this.simd(0x04, align, ...uleb(offset));
  }
  /** Loads one 32-bit value into all four lanes. */
  v128Load32Splat(offset = 0, align = 2): this {
    return this.simd(0x09, align, ...uleb(offset));
  }
  v128Store(offset = 0, align = 2): this {
    return this.simd(0x0b, align, ...uleb(offset));
  }
  /** Stores lane `lane` of an f32x4/i32x4 (operands: address, vector). */
  v128Store32Lane(lane: number, offset = 0, align = 2): this {
    return this.simd(0x5a, align, ...uleb(offset), lane);
  }

  // SIMD
  /** The 16 bytes of the constant, lane 0's first. */
  v128Const(bytes: readonly number[]): this {
    if (bytes.length !== 16) throw new Error(`v128.const: ${bytes.length} bytes, not 16`);
    return this.simd(0x0c, ...bytes);
  }
  /**
   * Byte `i` of the result is byte `lanes[i]` of the two operands (0-15: the first, 16-31: the
   * second).
   */
  i8x16Shuffle(lanes: readonly number[]): this {
    if (lanes.length !== 16 || lanes.some((lane) => !(lane >= 0 && lane < 32)))
      throw new Error(`i8x16.shuffle: bad lanes ${lanes.join(',')}`);
    return this.simd(0x0d, ...lanes);
  }
  i32x4Splat(): this {
    return this.simd(0x11);
  }
  f32x4Splat(): this {
    return this.simd(0x13);
  }
  f32x4ExtractLane(lane: number): this {
    return this.simd(0x1f, lane);
  }
  f64x2ExtractLane(lane: number): this {
    return this.simd(0x21, lane);
  }
  i32x4Eq(): this {
    return this.simd(0x37);
  }
  f32x4Ne(): this {
    return this.simd(0x42);
  }
  f32x4Gt(): this {
    return this.simd(0x44);
  }
  f32x4Ge(): this {
    return this.simd(0x46);
  }
  v128And(): this {
    return this.simd(0x4e);
  }
  v128Or(): this {
    return this.simd(0x50);
  }
  v128Xor(): this {
    return this.simd(0x51);
  }
  v128AnyTrue(): this {
    return this.simd(0x53);
  }
  f64x2PromoteLowF32x4(): this {
    return this.simd(0x5f);
  }
  i32x4Shl(): this {
    return this.simd(0xab);
  }
  i32x4ShrS(): this {
    return this.simd(0xac);
  }
  i32x4ShrU(): this {
    return this.simd(0xad);
  }
  i32x4Add(): this {
    return this.simd(0xae);
  }
  f32x4Neg(): this {
    return this.simd(0xe1);
  }
  f32x4Sqrt(): this {
    return this.simd(0xe3);
  }
  f32x4Add(): this {
    return this.simd(0xe4);
  }
  f32x4Sub(): this {
    return this.simd(0xe5);
  }
  f32x4Mul(): this {
    return this.simd(0xe6);
  }
  f32x4Div(): this {
    return this.simd(0xe7);
  }
  /**
   * Pseudo-minimum b < a ? b : a (operands a, b): one instruction on x64, where f32x4.min is ~8.
   */
  f32x4Pmin(): this {
    return this.simd(0xea);
  }
  /**
   * Pseudo-maximum a < b ? b : a (operands a, b): one instruction on x64, where f32x4.max is ~8.
   */
  f32x4Pmax(): this {
    return this.simd(0xeb);
  }
  f64x2Add(): this {
    return this.simd(0xf0);
  }
  f64x2Mul(): this {
    return this.simd(0xf2);
  }
  /** a * b + c (operands a, b, c), fused or not as the engine chooses. */
  f32x4RelaxedMadd(): this {
    return this.simd(0x105);
  }
}
