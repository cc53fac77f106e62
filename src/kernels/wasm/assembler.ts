// A minimal WebAssembly binary writer: just what the kernels need (one module importing a
// memory, i32/f32/v128 locals, structured loops, SIMD loads and arithmetic). Writing bytes
// directly keeps the kernel in TypeScript, with no compiler toolchain and no generated file;
// WebAssembly.validate and the kernel's tests against tf.matMul check what it emits.
// The instructions themselves, one named emitter each, are in wasm/assembler_ops.ts.
import { Instructions, uleb } from './assembler_ops.ts';

export { sleb, uleb, V128_ZERO } from './assembler_ops.ts';

/** Value types. */
export const I32 = 0x7f;
export const F32 = 0x7d;
export const V128 = 0x7b;
export const F64 = 0x7c;

const utf8 = (s: string): number[] => [...uleb(s.length), ...new TextEncoder().encode(s)];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];

/** Instruction emitter for one function body. Locals are indices (params first). */
export class Body extends Instructions {
  private readonly locals: number[] = [];

  constructor(private readonly paramCount: number) {
    super();
  }

  /** Declares a new local of `type` and returns its index. */
  local(type: number): number {
    this.locals.push(type);
    return this.paramCount + this.locals.length - 1;
  }

  /** `local = local + delta` with delta an i32 local. */
  addTo(local: number, delta: number): this {
    return this.get(local).get(delta).i32Add().set(local);
  }
  /** `local = local + constant`. */
  addConst(local: number, constant: number): this {
    return this.get(local).i32(constant).i32Add().set(local);
  }

  /** A loop condition: local `a` < local `b`, unsigned. */
  lessThan(a: number, b: number): () => void {
    return () => {
      this.get(a).get(b).i32LtU();
    };
  }

  /** A loop condition: local `a` + `step` <= local `b`, unsigned: `step` more still fit. */
  fits(a: number, step: number, b: number): () => void {
    return () => {
      this.get(a).i32(step).i32Add().get(b).i32LeU();
    };
  }

  /** while (cond()) { body() }: `cond` leaves an i32 on the stack. */
  whileLoop(cond: () => void, body: () => void): this {
    this.block().loop();
    cond();
    this.i32Eqz().brIf(1); // leave the block
    body();
    return this.br(0).end().end(); // loop again
  }

  /** if (cond()) { then() } else { otherwise() }: `cond` leaves an i32 on the stack. */
  ifElse(cond: () => void, then: () => void, otherwise: () => void): this {
    cond();
    this.if();
    then();
    this.else();
    otherwise();
    return this.end();
  }

  /**
   * Every lane of the f32x4 local `v` = the largest of its four lanes (NaN-free lanes): f32x4.pmax
   * of halves, then of neighbours.
   */
  maxAcrossLanes(v: number): this {
    this.get(v)
      .get(v)
      .get(v)
      .i8x16Shuffle([8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7])
      .f32x4Pmax()
      .set(v);
    return this.get(v)
      .get(v)
      .get(v)
      .i8x16Shuffle([4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11])
      .f32x4Pmax()
      .set(v);
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
export function moduleBytes(
  functions: { name: string; params: number; body: Body; result?: number }[],
  shared = false,
): Uint8Array<ArrayBuffer> {
  const types = functions.map((f) => [
    0x60,
    ...uleb(f.params),
    ...Array<number>(f.params).fill(I32),
    ...(f.result === undefined ? [0x00] : [0x01, f.result]),
  ]);
  const limits = shared ? [0x03, 0x00, ...uleb(65536)] : [0x00, 0x00]; // shared, min 0, max 65536 pages; or min 0, no max
  const imports = [[...utf8('env'), ...utf8('memory'), 0x02, ...limits]];
  const bytes = [
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
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

/**
 * The float32 nearest `value`, as the bits of an i32: how our kernels take float scalars (their
 * arguments are all i32).
 */
export function f32Bits(value: number): number {
  floatView[0] = value;
  return bitsView[0]!;
}
