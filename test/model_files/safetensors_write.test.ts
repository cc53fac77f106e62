import { describe, expect, it } from 'vitest';
import { parseSafetensors } from '../../src/model_files/safetensors.ts';
import {
  floatsToBf16Bits,
  floatToBf16Bits,
  safetensorsHeader,
  writeSafetensors,
} from '../../src/model_files/safetensors_write.ts';

describe('writeSafetensors', () => {
  it('round-trips F32 exactly through the reader, with an 8-byte-aligned data section', () => {
    const a = new Float32Array([1, -2.5, 3.25, 1e-30, 6]);
    const bytes = writeSafetensors(
      [
        { name: 'a', shape: [5], data: a },
        { name: 'b', shape: [1, 2], data: new Float32Array([7, 8]) },
      ],
      'F32',
      { format: 'pt' },
    );
    const headerLength = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect((8 + headerLength) % 8).toBe(0);
    const file = parseSafetensors(bytes);
    expect([...file.float32('a')]).toEqual([...a]);
    expect(file.entries.get('b')!.shape).toEqual([1, 2]);
  });

  it('rounds to bfloat16 to nearest, ties to even (hand-worked bit patterns)', () => {
    expect(floatToBf16Bits(1)).toBe(0x3f80);
    expect(floatToBf16Bits(-2)).toBe(0xc000);
    // 1 + 2^-8 is exactly halfway between bf16 neighbours 1 and 1 + 2^-7: ties to even -> 1.
    expect(floatToBf16Bits(1 + 2 ** -8)).toBe(0x3f80);
    // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd mantissa) and 1 + 2^-6: rounds up to even.
    expect(floatToBf16Bits(1 + 3 * 2 ** -8)).toBe(0x3f82);
    const file = parseSafetensors(
      writeSafetensors(
        [{ name: 'x', shape: [2], data: new Float32Array([3.140625, 1 + 3 * 2 ** -8]) }],
        'BF16',
      ),
    );
    expect([...file.float32('x')]).toEqual([3.140625, 1 + 2 ** -6]);
  });

  it('refuses a shape that does not match the data', () => {
    expect(() => writeSafetensors([{ name: 'a', shape: [3], data: new Float32Array(2) }])).toThrow(
      /2 values for shape \[3\]/,
    );
  });

  it('converts in bulk exactly as one value at a time (ties, signs, infinities, NaN)', () => {
    const values = new Float32Array([
      0,
      -0,
      1,
      1 + 2 ** -8,
      1 + 3 * 2 ** -8,
      -3.3,
      1e-40,
      3.4e38,
      Infinity,
      -Infinity,
      NaN,
      0.0199999,
    ]);
    const bits = new Uint16Array(values.length);
    floatsToBf16Bits(values, bits);
    expect([...bits]).toEqual([...values].map(floatToBf16Bits));
  });

  it('streamed headers: 8-byte aligned even with a non-ASCII name, sized by the shapes', () => {
    const { header, dataBytes } = safetensorsHeader(
      [
        { name: 'é', shape: [3, 5] },
        { name: 'b', shape: [7] },
      ],
      'BF16',
    );
    expect(header.length % 8).toBe(0);
    expect(dataBytes).toBe(2 * (15 + 7));
  });
});
