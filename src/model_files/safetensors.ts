// The safetensors format (github.com/huggingface/safetensors): an 8-byte little-endian header
// length, a JSON header {name: {dtype, shape, data_offsets: [begin, end]}}, then raw
// little-endian data. We read F32, BF16 and F16 tensors and convert them to float32, one tensor
// at a time so a large checkpoint never exists twice in float32.

/** One tensor's entry in a safetensors header. */
export interface TensorEntry {
  dtype: 'F32' | 'BF16' | 'F16';
  shape: number[];
  /** Byte range inside the data section. */
  begin: number;
  end: number;
}

/** A parsed safetensors file: its tensor entries and a converter to float32. */
export interface SafetensorsFile {
  readonly entries: ReadonlyMap<string, TensorEntry>;
  /** The tensor's values as a fresh float32 array (row-major in `shape`). */
  float32(name: string): Float32Array;
  /** A BF16 or F16 tensor's raw 16-bit values, as shipped (a fresh aligned copy). */
  bits16(name: string): Uint16Array;
}

const bytesPerElement: Record<TensorEntry['dtype'], number> = { F32: 4, BF16: 2, F16: 2 };

/**
 * Parses the header of `bytes`; `where` names the file in errors (corrupt or truncated files are
 * refused).
 */
export function parseSafetensors(bytes: Uint8Array, where = 'model.safetensors'): SafetensorsFile {
  const fail = (why: string): never => {
    throw new Error(
      `${where} is not a valid safetensors file: ${why}. Re-download or re-export it.`,
    );
  };
  if (bytes.byteLength < 8) fail(`only ${bytes.byteLength} bytes`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  if (headerLength > bytes.byteLength - 8)
    fail(`header length ${headerLength} exceeds the file size ${bytes.byteLength} (truncated?)`);
  let header: Record<string, unknown> = {};
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as Record<
      string,
      unknown
    >;
  } catch (error) {
    fail(`header is not JSON (${(error as Error).message})`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header))
    fail('header is not a JSON object');
  const dataStart = 8 + headerLength;
  const dataLength = bytes.byteLength - dataStart;
  const entries = new Map<string, TensorEntry>();
  for (const [name, value] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const entry = value as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    const dtype = entry.dtype;
    if (dtype !== 'F32' && dtype !== 'BF16' && dtype !== 'F16') {
      fail(`tensor ${name} has dtype ${JSON.stringify(dtype)}; supported: F32, BF16, F16`);
    }
    const shape = entry.shape;
    const offsets = entry.data_offsets;
    if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 0))
      fail(`tensor ${name} has a bad shape`);
    if (
      !Array.isArray(offsets) ||
      offsets.length !== 2 ||
      !offsets.every((o) => Number.isInteger(o) && o >= 0)
    ) {
      fail(`tensor ${name} has bad data_offsets`);
    }
    const [begin, end] = offsets as [number, number];
    const size = (shape as number[]).reduce((a, b) => a * b, 1);
    if (end - begin !== size * bytesPerElement[dtype as TensorEntry['dtype']]) {
      fail(
        `tensor ${name}: ${end - begin} bytes for shape [${(shape as number[]).join(', ')}] of ${String(dtype)}`,
      );
    }
    if (end > dataLength)
      fail(
        `tensor ${name} ends at byte ${end} but the data section has ${dataLength} bytes (truncated?)`,
      );
    entries.set(name, {
      dtype: dtype as TensorEntry['dtype'],
      shape: shape as number[],
      begin,
      end,
    });
  }
  return {
    entries,
    float32(name) {
      const entry = entries.get(name);
      if (!entry) throw new Error(`${where} has no tensor ${name}`);
      return toFloat32(bytes.subarray(dataStart + entry.begin, dataStart + entry.end), entry.dtype);
    },
    bits16(name) {
      const entry = entries.get(name);
      if (!entry) throw new Error(`${where} has no tensor ${name}`);
      if (entry.dtype === 'F32') throw new Error(`${where}: tensor ${name} is F32, not 16-bit`);
      const out = new Uint16Array((entry.end - entry.begin) / 2);
      // a copy: the data may not be 2-byte aligned inside the file's buffer (little-endian hosts)
      new Uint8Array(out.buffer).set(
        bytes.subarray(dataStart + entry.begin, dataStart + entry.end),
      );
      return out;
    },
  };
}

/** Converts little-endian raw bytes of one dtype to a new float32 array. */
export function toFloat32(raw: Uint8Array, dtype: TensorEntry['dtype']): Float32Array {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  if (dtype === 'F32') {
    // Copy: the data may not be 4-byte aligned inside the file's buffer.
    const out = new Float32Array(raw.byteLength / 4);
    new Uint8Array(out.buffer).set(raw);
    return out;
  }
  const count = raw.byteLength / 2;
  const out = new Float32Array(count);
  if (dtype === 'BF16') {
    // bfloat16 is the high half of a float32
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < count; i++) bits[i] = view.getUint16(2 * i, true) << 16;
    return out;
  }
  for (let i = 0; i < count; i++) out[i] = halfToFloat(view.getUint16(2 * i, true));
  return out;
}

/** IEEE 754 half precision bits to a number (subnormals, infinities and NaN included). */
export function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}
