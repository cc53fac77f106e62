// The assembler's named emitters (src/kernels/wasm/assembler_ops.ts) against encodings worked out
// by hand from the WebAssembly spec: core opcodes are one byte; SIMD ones are 0xfd then the opcode
// in unsigned LEB128 (so 0xeb -> 0xeb 0x01, 0x105 -> 0x85 0x02); memory instructions take a memarg,
// log2 alignment then offset (LEB128). And a whole kernel module still validates.
import { describe, expect, it } from 'vitest';
import {
  Body,
  F32,
  I32,
  moduleBytes,
  V128,
  V128_ZERO,
} from '../../../src/kernels/wasm/assembler.ts';
import { simdSoftmaxForwardModule } from '../../../src/kernels/simd/softmax.ts';

/** The bytes one emitter call appends to an empty body. */
const bytes = (emit: (f: Body) => void): number[] => {
  const f = new Body(0);
  emit(f);
  return f.code;
};

describe('assembler emitters', () => {
  it('encode core instructions as their one-byte opcodes, constants with LEB128 or float32 immediates', () => {
    expect(bytes((f) => f.i32Add())).toEqual([0x6a]);
    expect(bytes((f) => f.i32LtU())).toEqual([0x49]);
    expect(bytes((f) => f.f32Mul())).toEqual([0x94]);
    expect(bytes((f) => f.f64PromoteF32())).toEqual([0xbb]);
    expect(bytes((f) => f.i32(-16))).toEqual([0x41, 0x70]); // signed LEB128 of -16
    expect(bytes((f) => f.i32(200))).toEqual([0x41, 0xc8, 0x01]);
    expect(bytes((f) => f.f32Const(-Infinity))).toEqual([0x43, 0x00, 0x00, 0x80, 0xff]);
    expect(bytes((f) => f.f32Const(1))).toEqual([0x43, 0x00, 0x00, 0x80, 0x3f]);
    expect(bytes((f) => f.f32Const(NaN))).toEqual([0x43, 0x00, 0x00, 0xc0, 0x7f]); // 0x7fc00000, little-endian
    expect(bytes((f) => f.f32Const(-0))).toEqual([0x43, 0x00, 0x00, 0x00, 0x80]);
  });

  it('encode control instructions with their block type and label immediates', () => {
    expect(bytes((f) => f.block().loop().if().else().end())).toEqual([
      0x02, 0x40, 0x03, 0x40, 0x04, 0x40, 0x05, 0x0b,
    ]);
    expect(bytes((f) => f.br(0).brIf(1).select())).toEqual([0x0c, 0x00, 0x0d, 0x01, 0x1b]);
  });

  it('encode memory instructions with a memarg: alignment 4 bytes by default (natural 8 for f64), then the offset', () => {
    expect(bytes((f) => f.f32Load())).toEqual([0x2a, 0x02, 0x00]);
    expect(bytes((f) => f.f32Store(8))).toEqual([0x38, 0x02, 0x08]);
    expect(bytes((f) => f.f64Store())).toEqual([0x39, 0x03, 0x00]);
    expect(bytes((f) => f.v128Load(16))).toEqual([0xfd, 0x00, 0x02, 0x10]);
    expect(bytes((f) => f.v128Store(128))).toEqual([0xfd, 0x0b, 0x02, 0x80, 0x01]); // offset 128 is two LEB128 bytes
    expect(bytes((f) => f.v128Load(0, 4))).toEqual([0xfd, 0x00, 0x04, 0x00]);
    expect(bytes((f) => f.v128Load32Splat())).toEqual([0xfd, 0x09, 0x02, 0x00]);
  });

  it('encode SIMD instructions as 0xfd and the LEB128 opcode, then lane or byte immediates', () => {
    expect(bytes((f) => f.f32x4Pmax())).toEqual([0xfd, 0xeb, 0x01]);
    expect(bytes((f) => f.f32x4Splat())).toEqual([0xfd, 0x13]);
    expect(bytes((f) => f.v128AnyTrue())).toEqual([0xfd, 0x53]);
    expect(bytes((f) => f.f32x4RelaxedMadd())).toEqual([0xfd, 0x85, 0x02]);
    expect(bytes((f) => f.f32x4ExtractLane(3))).toEqual([0xfd, 0x1f, 0x03]);
    expect(bytes((f) => f.f64x2ExtractLane(1))).toEqual([0xfd, 0x21, 0x01]);
    const lanes = [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7];
    expect(bytes((f) => f.i8x16Shuffle(lanes))).toEqual([0xfd, 0x0d, ...lanes]);
    expect(bytes((f) => f.v128Const(V128_ZERO))).toEqual([
      0xfd,
      0x0c,
      ...Array<number>(16).fill(0),
    ]);
    expect(() => bytes((f) => f.i8x16Shuffle([0, 1, 2]))).toThrow();
    expect(() => bytes((f) => f.i8x16Shuffle([...lanes.slice(1), 32]))).toThrow();
    expect(() => bytes((f) => f.v128Const([1, 2, 3]))).toThrow();
  });

  it('builds modules that validate: a kernel, and a body using the loop and branch helpers', () => {
    expect(WebAssembly.validate(simdSoftmaxForwardModule())).toBe(true);
    const f = new Body(1);
    const [i, v, x] = [f.local(I32), f.local(V128), f.local(F32)];
    f.i32(0).set(i);
    f.whileLoop(f.lessThan(i, 0), () => {
      f.get(i).v128Load().set(v);
      f.maxAcrossLanes(v);
      f.ifElse(
        () => {
          f.get(i).i32Eqz();
        },
        () => {
          f.get(v).f32x4ExtractLane(0).set(x);
        },
        () => {
          f.f32Const(-Infinity).set(x);
        },
      );
      f.get(i).get(x).f32Store();
      f.addConst(i, 16);
    });
    expect(WebAssembly.validate(moduleBytes([{ name: 'run', params: 1, body: f }]))).toBe(true);
  });
});
