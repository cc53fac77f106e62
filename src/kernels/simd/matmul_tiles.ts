// The register-tile emitters of the batched matmul kernel (simd/matmul.ts): one block of 4 rows by
// 8 (or 4) columns of C accumulated in f32x4 registers, one scalar column for the last N % 4, and
// the matrix-vector path's dot products (N = 1), with the pointer arithmetic they share. Separate
// from simd/matmul_body.ts, which allocates the locals and emits the loops over the batch, column
// panels, depth blocks and row blocks that call these; this file holds what runs per tile.
import { type Body, V128_ZERO } from '../wasm/assembler.ts';

/**
 * What the tile emitters work on: matmulBody's function, its build flags, and the indices of the
 * parameters and locals it allocated (see simd/matmul_body.ts for what each holds).
 */
export interface MatmulFrame {
  f: Body;
  fma: boolean;
  transA: boolean;
  accumulate: boolean;
  kBlocks: boolean;
  kFrom: boolean;
  pa: number;
  pb: number;
  pc: number;
  K: number;
  rowA: number;
  stepA: number;
  baseA: number;
  kStart: number;
  kEnd: number;
  rowB: number;
  i: number;
  j: number;
  k: number;
  q: number;
  rowPtr: number[];
  out: number;
  av: number;
  bv: number[];
  acc: number[][];
  sum: number;
  sums: number[];
}

/** The tile emitters over `frame`'s locals, and the loop-condition helpers the driver shares. */
export function matmulTiles(frame: MatmulFrame) {
  const {
    f,
    fma,
    transA,
    accumulate,
    kBlocks,
    kFrom,
    pa,
    pb,
    pc,
    K,
    rowA,
    stepA,
    baseA,
    kStart,
    kEnd,
    rowB,
    i,
    j,
    k,
    q,
    rowPtr,
    out,
    av,
    bv,
    acc,
    sum,
    sums,
  } = frame;
  const lessThan = (a: () => void, b: number) => () => {
    a();
    f.get(b).i32LtU();
  };
  const atMost = (a: () => void, b: number) => () => {
    a();
    f.get(b).i32LeU();
  };
  const plus = (local: number, constant: number) => () => {
    f.get(local).i32(constant).i32Add();
  };
  const value = (local: number) => () => {
    f.get(local);
  };
  // acc += x * y for the two f32x4 operands `operands` pushes: relaxed_madd(x, y, acc) in the fused
  // build, f32x4.mul then f32x4.add in the plain one.
  const multiplyAdd = (accumulator: number, operands: () => void) => {
    if (fma) {
      operands();
      f.get(accumulator).f32x4RelaxedMadd();
    } else {
      f.get(accumulator);
      operands();
      f.f32x4Mul().f32x4Add();
    }
    f.set(accumulator);
  };

  // A[i, k] -> A[i, k + 1]
  const nextA = (pointer: number) => (transA ? f.addTo(pointer, stepA) : f.addConst(pointer, 4));
  // rowPtr[r] = pa + (i + r) * rowA
  // (kBlocks: from column kStart of A)
  const rowStarts = (rows: number) => {
    for (let r = 0; r < rows; r++) {
      f.get(transA ? baseA : pa)
        .get(i)
        .i32(r)
        .i32Add()
        .get(rowA)
        .i32Mul()
        .i32Add();
      if (kBlocks) f.get(kStart).i32(2).i32Shl().i32Add();
      if (transA) f.get(kStart).get(stepA).i32Mul().i32Add();
      f.set(rowPtr[r]!);
    }
  };
  // q = pb + j * 4 (kBlocks: + kStart * rowB, row kStart of B), k = kStart
  const columnStart = () => {
    f.get(pb).get(j).i32(2).i32Shl().i32Add();
    if (kFrom) f.get(kStart).get(rowB).i32Mul().i32Add();
    f.set(q);
    if (kFrom) f.get(kStart).set(k);
    else f.i32(0).set(k);
  };
  // (kBlocks) `first` for the first depth block, `carried` for the next ones
  const fromStart = (first: () => void, carried: () => void) => {
    if (kBlocks)
      f.ifElse(
        () => {
          f.get(kStart).i32Eqz();
        },
        first,
        carried,
      );
    else first();
  };
  // out = pc + (i + r) * rowB + j * 4
  const outAt = (r: number) => {
    f.get(pc)
      .get(i)
      .i32(r)
      .i32Add()
      .get(rowB)
      .i32Mul()
      .i32Add()
      .get(j)
      .i32(2)
      .i32Shl()
      .i32Add()
      .set(out);
  };

  // A block of `rows` x (4 * vectors) outputs, accumulated over all K in registers.
  const block = (rows: number, vectors: number) => {
    fromStart(
      () => {
        for (let r = 0; r < rows; r++)
          for (let v = 0; v < vectors; v++) f.v128Const(V128_ZERO).set(acc[r]![v]!);
      },
      () => {
        // the sums so far, as the previous depth block stored them
        for (let r = 0; r < rows; r++) {
          outAt(r);
          for (let v = 0; v < vectors; v++)
            f.get(out)
              .v128Load(16 * v)
              .set(acc[r]![v]!);
        }
      },
    );
    rowStarts(rows);
    columnStart();
    f.whileLoop(lessThan(value(k), kEnd), () => {
      for (let v = 0; v < vectors; v++)
        f.get(q)
          .v128Load(16 * v)
          .set(bv[v]!);
      for (let r = 0; r < rows; r++) {
        f.get(rowPtr[r]!).v128Load32Splat().set(av); // A[i+r, k] in all lanes
        for (let v = 0; v < vectors; v++) {
          multiplyAdd(acc[r]![v]!, () => f.get(av).get(bv[v]!));
        }
        nextA(rowPtr[r]!);
      }
      f.addTo(q, rowB).addConst(k, 1);
    });
    for (let r = 0; r < rows; r++) {
      outAt(r);
      for (let v = 0; v < vectors; v++) {
        f.get(out);
        if (accumulate) f.get(out).v128Load(16 * v); // C + the block's sums (matmulAdd)
        f.get(acc[r]![v]!);
        if (accumulate) f.f32x4Add();
        f.v128Store(16 * v);
      }
    }
  };

  // One output column for `rows` rows, scalar (the last N % 4 columns).
  const column = (rows: number) => {
    rowStarts(rows);
    for (let r = 0; r < rows; r++) {
      fromStart(
        () => {
          f.f32Const(0).set(sum);
        },
        () => {
          outAt(r);
          f.get(out).f32Load().set(sum);
        },
      ); // 0, or the sum so far
      columnStart();
      f.whileLoop(lessThan(value(k), kEnd), () => {
        f.get(sum).get(rowPtr[r]!).f32Load().get(q).f32Load().f32Mul().f32Add().set(sum); // sum += A * B
        nextA(rowPtr[r]!);
        f.addTo(q, rowB).addConst(k, 1);
      });
      outAt(r);
      f.get(out);
      if (accumulate) f.get(out).f32Load();
      f.get(sum);
      if (accumulate) f.f32Add();
      f.f32Store();
    }
  };

  // N = 1: out[i + r] = dot(A[i + r, :], B[:, 0]) for `rows` rows, B's column being contiguous.
  const dots = (rows: number) => {
    rowStarts(rows);
    for (let r = 0; r < rows; r++) f.v128Const(V128_ZERO).set(acc[r]![0]!);
    f.get(pb).set(q);
    f.i32(0).set(k);
    f.whileLoop(atMost(plus(k, 4), K), () => {
      f.get(q).v128Load().set(bv[0]!); // B[k .. k+3]
      for (let r = 0; r < rows; r++) {
        multiplyAdd(acc[r]![0]!, () => f.get(rowPtr[r]!).v128Load().get(bv[0]!)); // A[i+r, k..k+3] * B[k..k+3]
        f.addConst(rowPtr[r]!, 16);
      }
      f.addConst(q, 16).addConst(k, 4);
    });
    for (let r = 0; r < rows; r++) {
      // lanes summed in order: ((l0 + l1) + l2) + l3
      f.get(acc[r]![0]!).f32x4ExtractLane(0);
      for (let lane = 1; lane < 4; lane++) f.get(acc[r]![0]!).f32x4ExtractLane(lane).f32Add();
      f.set(sums[r]!);
    }
    f.whileLoop(lessThan(value(k), K), () => {
      // the last K % 4 terms
      for (let r = 0; r < rows; r++) {
        f.get(sums[r]!).get(rowPtr[r]!).f32Load().get(q).f32Load().f32Mul().f32Add().set(sums[r]!);
        f.addConst(rowPtr[r]!, 4);
      }
      f.addConst(q, 4).addConst(k, 1);
    });
    for (let r = 0; r < rows; r++)
      f.get(pc).get(i).i32(r).i32Add().i32(2).i32Shl().i32Add().get(sums[r]!).f32Store(); // C[i + r] = sum
  };
  return { lessThan, atMost, plus, value, outAt, block, column, dots };
}
