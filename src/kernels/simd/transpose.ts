// Batched 2-D transpose, (batch, R, C) -> (batch, C, R), as a WebAssembly SIMD kernel on
// tfjs-wasm's heap (and a second kernel, for two middle axes swapped over blocks of numbers). Why:
// tfjs-wasm 4.22 transposes element by element through a generic N-dimensional loop, ~7 ns per
// number on this machine, and a training step transposes ~1.3M numbers (the linear layers' backward
// passes: x^T for the weight gradient, w^T for the input gradient; attention's swapped operands):
// ~75 ms of a 590 ms step (profiled at the bench's shapes).
//
// The kernel moves 4 x 4 blocks: four v128 loads (four rows of the block), eight shuffles, four
// v128 stores (its four columns, rows of the output). Pure data movement: the output is the input
// bit for bit. Columns past the last multiple of 4 and rows past the last multiple of 4 are copied
// one number at a time.
import { Body, I32, moduleBytes, V128 } from '../wasm/assembler.ts';

/**
 * i8x16.shuffle immediates picking 32-bit lanes (0-3 from the first operand, 4-7 from the second).
 */
const lanes = (...picks: number[]): number[] =>
  picks.flatMap((lane) => [4 * lane, 4 * lane + 1, 4 * lane + 2, 4 * lane + 3]);

/** Emits `transpose(src, dst, batch, R, C)`; pointers in bytes, matrices row-major and packed. */
function transposeBody(): Body {
  const f = new Body(5);
  const [src, dst, batch, R, C] = [0, 1, 2, 3, 4];
  const rowC = f.local(I32); // C * 4: one input row
  const rowR = f.local(I32); // R * 4: one output row
  const matrix = f.local(I32); // R * C * 4
  const b = f.local(I32);
  const i = f.local(I32);
  const j = f.local(I32);
  const s = f.local(I32); // input element (i, j)
  const d = f.local(I32); // output element (j, i)
  const rows = Array.from({ length: 4 }, () => f.local(V128));
  const pairs = Array.from({ length: 4 }, () => f.local(V128));
  // the address base + times * stride (times a constant)
  const offset = (base: number, stride: number, times: number) => {
    f.get(base);
    if (times > 0) f.get(stride).i32(times).i32Mul().i32Add();
  };
  const copyOne = (from: () => void, to: () => void) => {
    to();
    from();
    f.f32Load().f32Store();
  };
  // s = src + i * rowC, d = dst + i * 4: the start of row block i
  const rowStart = () => {
    f.get(src)
      .get(i)
      .get(rowC)
      .i32Mul()
      .i32Add()
      .set(s)
      .get(dst)
      .get(i)
      .i32(2)
      .i32Shl()
      .i32Add()
      .set(d);
  };

  f.get(C).i32(2).i32Shl().set(rowC);
  f.get(R).i32(2).i32Shl().set(rowR);
  f.get(R).get(rowC).i32Mul().set(matrix);
  f.i32(0).set(b);
  f.whileLoop(f.lessThan(b, batch), () => {
    f.i32(0).set(i);
    f.whileLoop(f.fits(i, 4, R), () => {
      rowStart();
      f.i32(0).set(j);
      f.whileLoop(f.fits(j, 4, C), () => {
        for (let r = 0; r < 4; r++) {
          offset(s, rowC, r);
          f.v128Load().set(rows[r]!);
        } // row i + r, columns j .. j + 3
        // pairs: [a00 a10 a01 a11], [a02 a12 a03 a13], [a20 a30 a21 a31], [a22 a32 a23 a33]
        f.get(rows[0]!)
          .get(rows[1]!)
          .i8x16Shuffle(lanes(0, 4, 1, 5))
          .set(pairs[0]!);
        f.get(rows[0]!)
          .get(rows[1]!)
          .i8x16Shuffle(lanes(2, 6, 3, 7))
          .set(pairs[1]!);
        f.get(rows[2]!)
          .get(rows[3]!)
          .i8x16Shuffle(lanes(0, 4, 1, 5))
          .set(pairs[2]!);
        f.get(rows[2]!)
          .get(rows[3]!)
          .i8x16Shuffle(lanes(2, 6, 3, 7))
          .set(pairs[3]!);
        // column c of the block, [a0c a1c a2c a3c], is row j + c of the output
        const columns: [number, number, number[]][] = [
          [0, 2, [0, 1, 4, 5]],
          [0, 2, [2, 3, 6, 7]],
          [1, 3, [0, 1, 4, 5]],
          [1, 3, [2, 3, 6, 7]],
        ];
        columns.forEach(([x, y, picks], c) => {
          offset(d, rowR, c);
          f.get(pairs[x]!)
            .get(pairs[y]!)
            .i8x16Shuffle(lanes(...picks));
          f.v128Store();
        });
        f.addConst(s, 16);
        f.get(d).get(rowR).i32(2).i32Shl().i32Add().set(d); // d += 4 * rowR
        f.addConst(j, 4);
      });
      f.whileLoop(f.lessThan(j, C), () => {
        // the last C % 4 columns of these 4 rows
        for (let r = 0; r < 4; r++)
          copyOne(
            () => offset(s, rowC, r),
            () => {
              f.get(d)
                .i32(4 * r)
                .i32Add();
            },
          );
        f.addConst(s, 4).addTo(d, rowR).addConst(j, 1);
      });
      f.addConst(i, 4);
    });
    f.whileLoop(f.lessThan(i, R), () => {
      // the last R % 4 rows
      rowStart();
      f.i32(0).set(j);
      f.whileLoop(f.lessThan(j, C), () => {
        copyOne(
          () => {
            f.get(s);
          },
          () => {
            f.get(d);
          },
        );
        f.addConst(s, 4).addTo(d, rowR).addConst(j, 1);
      });
      f.addConst(i, 1);
    });
    f.addTo(src, matrix).addTo(dst, matrix).addConst(b, 1);
  });
  return f;
}

/**
 * Emits `transposeBlocks(src, dst, batch, R, C, inner)`: dst[b] (C, R, inner) = src[b] (R, C,
 * inner) with the two middle axes swapped, `inner` a multiple of 4 numbers moved as v128s; pointers
 * in bytes. Attention's (B, T, H, hd) <-> (B, H, T, hd), forward and backward: tfjs-wasm's generic
 * loop took ~0.12 ms for each of the bench step's 32 (4, 128, 4, 64), one number at a time.
 */
function blocksBody(): Body {
  const f = new Body(6);
  const [src, dst, batch, R, C, inner] = [0, 1, 2, 3, 4, 5];
  const run = f.local(I32); // inner * 4: one block
  const jump = f.local(I32); // R * inner * 4: from output block (j, i) to (j + 1, i)
  const matrix = f.local(I32); // R * C * inner * 4
  const b = f.local(I32);
  const i = f.local(I32);
  const j = f.local(I32);
  const e = f.local(I32);
  const s = f.local(I32);
  const d = f.local(I32);
  f.get(inner).i32(2).i32Shl().set(run);
  f.get(R).get(run).i32Mul().set(jump);
  f.get(C).get(jump).i32Mul().set(matrix);
  f.i32(0).set(b);
  f.whileLoop(f.lessThan(b, batch), () => {
    f.get(src).set(s); // the input is read in order
    f.i32(0).set(i);
    f.whileLoop(f.lessThan(i, R), () => {
      f.get(dst).get(i).get(run).i32Mul().i32Add().set(d); // output block (0, i)
      f.i32(0).set(j);
      f.whileLoop(f.lessThan(j, C), () => {
        f.i32(0).set(e);
        f.whileLoop(f.lessThan(e, run), () => {
          f.get(d).get(e).i32Add().get(s).get(e).i32Add().v128Load().v128Store();
          f.addConst(e, 16);
        });
        f.addTo(s, run).addTo(d, jump).addConst(j, 1);
      });
      f.addConst(i, 1);
    });
    f.addTo(src, matrix).addTo(dst, matrix).addConst(b, 1);
  });
  return f;
}

/** The kernels' module bytes. */
export function simdTransposeModule(): Uint8Array<ArrayBuffer> {
  return moduleBytes([
    { name: 'transpose', params: 5, body: transposeBody() },
    { name: 'transposeBlocks', params: 6, body: blocksBody() },
  ]);
}

/** transpose(src, dst, batch, R, C): dst[b] (C, R) = src[b] (R, C)^T; byte pointers. */
export type TransposeKernel = (
  src: number,
  dst: number,
  batch: number,
  rows: number,
  columns: number,
) => void;

/**
 * transposeBlocks(src, dst, batch, R, C, inner): dst[b] (C, R, inner) = src[b] (R, C, inner), inner
 * a multiple of 4; byte pointers.
 */
export type TransposeBlocksKernel = (
  src: number,
  dst: number,
  batch: number,
  rows: number,
  columns: number,
  inner: number,
) => void;

/** Instantiates the kernels on `memory`, or returns null where WebAssembly SIMD is unavailable. */
export function instantiateTranspose(
  memory: WebAssembly.Memory,
): { transpose: TransposeKernel; blocks: TransposeBlocksKernel } | null {
  const bytes = simdTransposeModule();
  if (!WebAssembly.validate(bytes)) return null;
  const exports = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } })
    .exports;
  return {
    transpose: exports.transpose as TransposeKernel,
    blocks: exports.transposeBlocks as TransposeBlocksKernel,
  };
}
