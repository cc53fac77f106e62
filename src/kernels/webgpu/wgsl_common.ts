// WGSL pieces every kernel of the decoding engine shares: how a 16-bit weight word widens to two
// float32 numbers, the step's uniform block, and the workgroup size.
//
// Frozen weights stay as the checkpoint ships them, two 16-bit numbers a u32 word, rows padded to
// a whole word (packed16.ts). BF16 is the top half of a float32, so its bits shifted left by 16
// are the number exactly; F16 widens with WGSL's unpack2x16float (core WGSL: no `shader-f16`
// feature needed). Both exact, so a product through them is the product through the float32
// widening the WASM kernels make.

/** The two 16-bit formats a frozen weight can have. */
export type HalfKind = 'bf16' | 'f16';

/** Threads per workgroup in every kernel. */
export const WORKGROUP = 256;

/** WGSL: `widen(word)` for one kind, the two numbers of a packed word (low half first). */
export function widenFunction(kind: HalfKind): string {
  return kind === 'bf16'
    ? `fn widen(word: u32) -> vec2<f32> {
  return vec2<f32>(bitcast<f32>(word << 16u), bitcast<f32>(word & 0xffff0000u));
}`
    : `fn widen(word: u32) -> vec2<f32> {
  return unpack2x16float(word);
}`;
}

/**
 * The step's scalars, the same uniform buffer for every kernel of a model (decoding_engine.ts
 * writes it once a step): `rows` live rows (sequences, or prefill positions), `lora` 1 when the
 * adapters take part, `slots` cached positions after this step, `scale` 1 / temperature,
 * `greedy` 1 for temperature 0, `capacity` slots a cache row holds.
 */
export const STEP_STRUCT = `struct Step {
  rows: u32,
  lora: u32,
  slots: u32,
  scale: f32,
  greedy: u32,
  capacity: u32,
  pad0: u32,
  pad1: u32,
};`;

/** Bytes of the Step uniform block. */
export const STEP_BYTES = 32;

/** A float32 number as a WGSL literal that round-trips exactly. */
export function f32Literal(value: number): string {
  const f = Math.fround(value);
  if (!Number.isFinite(f)) throw new Error(`not a finite float32: ${value}`);
  // bit-exact: the literal's decimal form parses back to the same float32
  const text = f.toPrecision(9);
  return text.includes('e') || text.includes('.') ? `f32(${text})` : `f32(${text}.0)`;
}
