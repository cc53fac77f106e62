// Writes the safetensors format (the reader is safetensors.ts): exports of LoRA adapters (PEFT)
// and of the demo model. F32 as is; BF16 rounds to nearest even (what torch's .to(bfloat16) does).

/** One tensor to write: row-major float32 values and their shape. */
export interface TensorToWrite {
  name: string;
  shape: number[];
  data: Float32Array;
}

/** float32 -> bfloat16 bits, round to nearest, ties to even; NaN stays NaN. */
export function floatToBf16Bits(value: number): number {
  const f32 = new Float32Array([value]);
  const bits = new Uint32Array(f32.buffer)[0]!;
  if (Number.isNaN(value)) return 0x7fc0;
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

/** A tensor's name and shape, for a header written before its data (streamed writes). */
export interface TensorLayout {
  name: string;
  shape: number[];
}

/**
 * The encoded header of a safetensors file holding `tensors` (in this order) all of `dtype`: the
 * JSON padded with spaces to a multiple of 8 bytes, so the data section is aligned. Returns the
 * header bytes (without the 8-byte length prefix) and the data section's byte length.
 */
export function safetensorsHeader(
  tensors: readonly TensorLayout[],
  dtype: 'F32' | 'BF16',
  metadata?: Record<string, string>,
): { header: Uint8Array; dataBytes: number } {
  const width = dtype === 'F32' ? 4 : 2;
  const header: Record<string, unknown> = {};
  if (metadata) header.__metadata__ = metadata;
  let offset = 0;
  for (const tensor of tensors) {
    const size = tensor.shape.reduce((a, b) => a * b, 1);
    if (tensor.name in header) throw new Error(`tensor ${tensor.name} appears twice`);
    header[tensor.name] = {
      dtype,
      shape: tensor.shape,
      data_offsets: [offset, offset + size * width],
    };
    offset += size * width;
  }
  const json = JSON.stringify(header);
  const length = new TextEncoder().encode(json).length; // bytes: a name may be non-ASCII
  return {
    header: new TextEncoder().encode(json + ' '.repeat(Math.ceil(length / 8) * 8 - length)),
    dataBytes: offset,
  };
}

/** float32 values -> bfloat16 bits in bulk (the same rounding as floatToBf16Bits). */
export function floatsToBf16Bits(values: Float32Array, out: Uint16Array): void {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  for (let i = 0; i < values.length; i++) {
    const b = bits[i]!;
    out[i] =
      (b & 0x7fffffff) > 0x7f800000 ? 0x7fc0 : ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16) & 0xffff;
  }
}

/** Serializes tensors (in the given order) with optional string metadata. */
export function writeSafetensors(
  tensors: readonly TensorToWrite[],
  dtype: 'F32' | 'BF16' = 'F32',
  metadata?: Record<string, string>,
): Uint8Array {
  for (const tensor of tensors) {
    const size = tensor.shape.reduce((a, b) => a * b, 1);
    if (size !== tensor.data.length)
      throw new Error(
        `tensor ${tensor.name}: ${tensor.data.length} values for shape [${tensor.shape.join(', ')}]`,
      );
  }
  const { header: headerBytes, dataBytes } = safetensorsHeader(tensors, dtype, metadata);
  const out = new Uint8Array(8 + headerBytes.length + dataBytes);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let position = 8 + headerBytes.length;
  for (const tensor of tensors) {
    if (dtype === 'F32') {
      for (const value of tensor.data) {
        view.setFloat32(position, value, true);
        position += 4;
      }
    } else {
      for (const value of tensor.data) {
        view.setUint16(position, floatToBf16Bits(value), true);
        position += 2;
      }
    }
  }
  return out;
}
