// A minimal WebAssembly binary writer: just what simd_matmul.ts needs (one module importing a
// memory, i32/f32/v128 locals, structured loops, SIMD loads and arithmetic). Writing bytes
// directly keeps the kernel in TypeScript, with no compiler toolchain and no generated file;
// WebAssembly.validate and the kernel's tests against tf.matMul check what it emits.
// Opcode numbers are from the WebAssembly core spec (2.0) and its fixed-width SIMD proposal.

/** Value types. */
export const I32 = 0x7f;
export const F32 = 0x7d;
export const V128 = 0x7b;
export const F64 = 0x7c;

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

const utf8 = (s: string): number[] => [...uleb(s.length), ...new TextEncoder().encode(s)];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];

/** Instruction emitter for one function body. Locals are indices (params first). */
export class Body {
  readonly code: number[] = [];
  private readonly locals: number[] = [];

  constructor(private readonly paramCount: number) {}

  /** Declares a new local of `type` and returns its index. */
  local(type: number): number {
    this.locals.push(type);
    return this.paramCount + this.locals.length - 1;
  }

  get(index: number): this { return this.op(0x20, ...uleb(index)); }
  set(index: number): this { return this.op(0x21, ...uleb(index)); }
  i32(value: number): this { return this.op(0x41, ...sleb(value)); }
  /** Appends raw opcodes. */
  op(...bytes: number[]): this { this.code.push(...bytes); return this; }
  /** A SIMD instruction (prefix 0xfd, LEB opcode, then immediates). */
  simd(opcode: number, ...immediates: number[]): this { return this.op(0xfd, ...uleb(opcode), ...immediates); }

  /** `local = local + delta` with delta an i32 local. */
  addTo(local: number, delta: number): this { return this.get(local).get(delta).op(0x6a).set(local); }
  /** `local = local + constant`. */
  addConst(local: number, constant: number): this { return this.get(local).i32(constant).op(0x6a).set(local); }

  /** A loop condition: local `a` < local `b`, unsigned (i32.lt_u). */
  lessThan(a: number, b: number): () => void {
    return () => { this.get(a).get(b).op(0x49); };
  }

  /** A loop condition: local `a` + `step` <= local `b`, unsigned (i32.le_u): `step` more still fit. */
  fits(a: number, step: number, b: number): () => void {
    return () => { this.get(a).i32(step).op(0x6a).get(b).op(0x4d); };
  }

  /** while (cond()) { body() }: `cond` leaves an i32 on the stack. */
  whileLoop(cond: () => void, body: () => void): this {
    this.op(0x02, 0x40, 0x03, 0x40); // block, loop
    cond();
    this.op(0x45, 0x0d, 0x01); // i32.eqz; br_if 1 (leave the block)
    body();
    this.op(0x0c, 0x00, 0x0b, 0x0b); // br 0 (loop again); end loop; end block
    return this;
  }

  /** if (cond()) { then() } else { otherwise() }: `cond` leaves an i32 on the stack. */
  ifElse(cond: () => void, then: () => void, otherwise: () => void): this {
    cond();
    this.op(0x04, 0x40); // if (no result)
    then();
    this.op(0x05); // else
    otherwise();
    this.op(0x0b); // end
    return this;
  }

  /** Every lane of the f32x4 local `v` = the largest of its four lanes (NaN-free lanes): f32x4.pmax of halves, then of neighbours. */
  maxAcrossLanes(v: number): this {
    this.get(v).get(v).get(v).simd(0x0d, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7).simd(0xeb).set(v);
    return this.get(v).get(v).get(v).simd(0x0d, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11).simd(0xeb).set(v);
  }

  /** The encoded function body: local declarations, code, end. */
  encode(): number[] {
    const groups: number[][] = [];
    for (const type of this.locals) groups.push([1, type]);
    const body = [...vec(groups), ...this.code, 0x0b];
    return [...uleb(body.length), ...body];
  }
}

/**
 * A module that imports `env.memory` and exports functions (params all i32; no result, or one of
 * type `result`, left on the stack at the end of the body).
 * `shared`: the memory is a shared one (threads), declared with the largest maximum, 4 GB.
 */
export function moduleBytes(functions: { name: string; params: number; body: Body; result?: number }[], shared = false): Uint8Array<ArrayBuffer> {
  const types = functions.map((f) => [0x60, ...uleb(f.params), ...Array<number>(f.params).fill(I32), ...(f.result === undefined ? [0x00] : [0x01, f.result])]);
  const limits = shared ? [0x03, 0x00, ...uleb(65536)] : [0x00, 0x00]; // shared, min 0, max 65536 pages; or min 0, no max
  const imports = [[...utf8('env'), ...utf8('memory'), 0x02, ...limits]];
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec(types)),
    ...section(2, vec(imports)),
    ...section(3, vec(functions.map((_, i) => uleb(i)))),
    ...section(7, vec(functions.map((f, i) => [...utf8(f.name), 0x00, ...uleb(i)]))),
    ...section(10, [...uleb(functions.length), ...functions.flatMap((f) => f.body.encode())]),
  ];
  return new Uint8Array(bytes);
}

const bitsView = new Int32Array(1);
const floatView = new Float32Array(bitsView.buffer);

/** The float32 nearest `value`, as the bits of an i32: how our kernels take float scalars (their arguments are all i32). */
export function f32Bits(value: number): number {
  floatView[0] = value;
  return bitsView[0]!;
}
