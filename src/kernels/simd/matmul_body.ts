// The batched matmul kernel's function body (simd/matmul.ts has the kernel's design and its
// module): the locals, and the loops over the batch, column panels, depth blocks and row blocks,
// with the transposed-A packing and the causal limits, calling the tile emitters of
// simd/matmul_tiles.ts for each block of C. Separate so that file stays the kernel's face (its
// module bytes, signature and binding) and this one the emitted control flow, which the variants
// of simd/matmul_variants.ts reuse with other flags.
import { Body, F32, I32, V128 } from '../wasm/assembler.ts';
import { matmulTiles } from './matmul_tiles.ts';
const ROWS = 4; // rows of A per block
const VECTORS = 2; // f32x4 vectors of B per block (8 columns)

/**
 * Column panels. Every block of 4 rows streams K x (its columns) of B, so with the blocks taken row
 * after row all of B passes through the cache once per 4 rows of A: from L2 while B fits there,
 * from L3 past it, at half the speed (measured on one thread: 512 x 2000 @ 2000 x 256 at 25
 * GFLOP/s, 512 x 256 @ 256 x 2000 at 33, against 48-52 for the linear layers' B of up to 768 KB).
 * A B larger than PANEL_MIN_B numbers (1 MB) is taken in panels of columns of at most PANEL_FLOATS
 * numbers (512 KB, within L2 with room for A's rows, on CPUs with 1-2 MB of L2 a core), all rows
 * of A against one panel before the next. Each output is still one sum over k in order: the same
 * bits as without panels.
 */
const PANEL_MIN_B = 1 << 18;
const PANEL_FLOATS = 1 << 17;

/**
 * Depth blocks. A block of 4 rows by 8 columns reads 4 rows of A and K rows of B's 8 columns (half
 * a cache line each) per pass; with K past ~1000 they no longer stay in L1 between the passes, and
 * the product runs from L2 at half speed (512 x 2000 @ 2000 x 256: 25 GFLOP/s on one thread, in
 * column panels too). So the plain product with K > DEPTH_MIN runs over k in blocks of DEPTH, all
 * row blocks of a panel per depth block, each block's sums stored in C and loaded back for the
 * next: a sum over k in the same order from the same partial sums, so the same bits.
 */
const DEPTH_MIN = 1024;
const DEPTH = 512;

/**
 * Emits the kernel `matmul(a, b, c, batch, M, K, N, strideA, strideB)`; pointers and strides in
 * bytes. `fma`: the tiles' multiply-adds as relaxed_madd (fused or not, as the engine chooses).
 * `transA`, `causal`, `accumulate`: the variants of simd/matmul_variants.ts.
 */
export function matmulBody(fma: boolean, transA = false, causal = false, accumulate = false): Body {
  const f = new Body(causal ? 12 : 9);
  // transA: matmulTA(a, b, c, M, K, N, lda, scratch, kOffset), one matrix, A stored transposed;
  // batch and strides are locals (1, 0, 0) so the loops below serve both.
  const [pa, pb, pc, batch, M, K, N, strideA, strideB] = transA
    ? [0, 1, 2, f.local(I32), 3, 4, 5, f.local(I32), f.local(I32)]
    : [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const [lda, scratch] = [6, 7]; // transA only: A's stored rows (one per k) lda numbers apart; K * 16 bytes to pack into
  // transA only: kOffset, row i of C takes k from max(0, i - kOffset) (a row block: from its first
  // row's): for A with A[k, i] = 0 when i > k + kOffset (attention's dS and P under a causal mask,
  // transposed: dK = dS^T Q, dV = P^T dC), whose skipped terms are 0 * finite. A kOffset >= M: all
  // k.
  const KOFFSET = 8;
  const rowA = f.local(I32); // bytes from one row of A to the next: K * 4, or 4 when transA
  const stepA = f.local(I32); // bytes from A[i, k] to A[i, k + 1] (transA: lda * 4, or 16 packed)
  const baseA = f.local(I32); // transA: where rowStarts counts rows from (pa, or the packed block)
  // causal: matmulCausal(..., mode, period, offset): row i of each matrix is query (i mod period),
  // which sees keys up to (i mod period) + offset. Mode 1: the keys are C's columns; columns past
  // a row block's last visible key are not computed but set to 0 (the mask hides them anyway).
  // Mode 2: the keys are the k axis (A's entries past them are 0: softmax weights of hidden keys),
  // so the k loop stops after the block's last visible key. Either way the numbers kept are the
  // full product's, bit for bit (the terms skipped are 0 * finite).
  const [MODE, PERIOD, OFFSET] = [9, 10, 11];
  // Depth blocks (the plain product only): k in [kStart, kStop) for all row blocks, then the next,
  // each block's sums carried through C between them (see DEPTH).
  const kBlocks = !transA && !causal && !accumulate;
  const kFrom = kBlocks || transA; // whether a block's k loop starts at kStart (depth blocks; transA's causal start)
  const kStart = f.local(I32);
  const kStop = f.local(I32);
  const depth = f.local(I32);
  const kEnd = causal ? f.local(I32) : kBlocks ? kStop : K; // where a block's k loop stops
  const colEnd = causal ? f.local(I32) : N; // where a row block's computed columns stop
  const [tFirst, tLast] = causal ? [f.local(I32), f.local(I32)] : [0, 0];
  const rowB = f.local(I32); // N * 4 (also a row of C)
  // Column panels: C's columns [panel, panelEnd) for all rows, then the next panel, so the part of
  // B the row blocks stream (K x panel width) stays in L2 when all of B would not (see
  // PANEL_FLOATS).
  const panel = f.local(I32);
  const panelEnd = f.local(I32);
  const width = f.local(I32); // panel width in columns
  const matC = f.local(I32); // M * N * 4
  const bi = f.local(I32);
  const i = f.local(I32);
  const j = f.local(I32);
  const k = f.local(I32);
  const q = f.local(I32);
  const rowPtr = Array.from({ length: ROWS }, () => f.local(I32));
  const out = f.local(I32);
  const av = f.local(V128);
  const bv = Array.from({ length: VECTORS }, () => f.local(V128));
  const acc = Array.from({ length: ROWS }, () =>
    Array.from({ length: VECTORS }, () => f.local(V128)),
  );
  const sum = f.local(F32);
  const sums = Array.from({ length: ROWS }, () => f.local(F32));

  const { lessThan, atMost, plus, value, outAt, block, column, dots } = matmulTiles({
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
  });

  // transA: A[i .. i + 3, k] for every k, 16 bytes apart in the stored A (a cache line apiece),
  // packed into scratch as 16 contiguous bytes per k; rowStarts and nextA then read the packed
  // copy. One 16-byte load and store per k, against 2 * N / 8 multiply-adds per k over the block's
  // columns.
  const packRows = () => {
    f.get(pa).get(i).i32(2).i32Shl().i32Add().set(q).get(scratch).set(out).i32(0).set(k); // q = pa + i * 4
    f.whileLoop(lessThan(value(k), K), () => {
      f.get(out).get(q).v128Load().v128Store();
      f.addConst(out, 16).addTo(q, stepA).addConst(k, 1);
    });
    f.get(scratch).get(i).i32(2).i32Shl().i32Sub().set(baseA).i32(16).set(stepA); // baseA = scratch - i * 4
  };
  const unpacked = () => {
    f.get(pa).set(baseA).get(lda).i32(2).i32Shl().set(stepA);
  };

  // All columns for `rows` rows starting at row i.
  const rows = (count: number) => {
    if (transA) {
      unpacked();
      if (count === ROWS) packRows();
      // kStart = i > kOffset ? i - kOffset : 0 (signed: a kOffset past M leaves 0)
      f.i32(0).set(kStart);
      f.ifElse(
        () => {
          f.get(i).get(KOFFSET).i32GtS();
        },
        () => {
          f.get(i).get(KOFFSET).i32Sub().set(kStart);
        },
        () => {},
      );
    }
    if (causal) causalLimits(count);
    f.get(panel).set(j);
    // (causal: and j < colEnd; i32.and of the two tests)
    const below = (cond: () => void) =>
      causal
        ? () => {
            cond();
            f.get(j).get(colEnd).i32LtU().i32And();
          }
        : cond;
    f.whileLoop(below(atMost(plus(j, 4 * VECTORS), panelEnd)), () => {
      block(count, VECTORS);
      f.addConst(j, 4 * VECTORS);
    });
    f.whileLoop(below(atMost(plus(j, 4), panelEnd)), () => {
      block(count, 1);
      f.addConst(j, 4);
    });
    f.whileLoop(below(lessThan(value(j), panelEnd)), () => {
      column(count);
      f.addConst(j, 1);
    });
    if (causal) {
      f.whileLoop(lessThan(value(j), panelEnd), () => {
        // mode 1: the columns past the block's visible keys, 0
        for (let r = 0; r < count; r++) {
          outAt(r);
          f.get(out).f32Const(0).f32Store();
        }
        f.addConst(j, 1);
      });
    }
  };

  // causal: the last visible key of rows i .. i + count - 1, limit = max (t mod period) + offset +
  // 1, clamped to N (mode 1, colEnd) or K (mode 2, kEnd); the other bound stays whole.
  function causalLimits(count: number): void {
    f.get(i).get(PERIOD).i32RemU().set(tFirst);
    f.get(tFirst)
      .i32(count - 1)
      .i32Add()
      .set(tLast);
    // a block that wraps past a period boundary sees up to period - 1
    f.ifElse(
      () => {
        f.get(tLast).get(PERIOD).i32GeU();
      },
      () => {
        f.get(PERIOD).i32(1).i32Sub().set(tLast);
      },
      () => {},
    );
    f.get(tLast).get(OFFSET).i32Add().i32(1).i32Add().set(tLast); // the limit
    f.get(panelEnd).set(colEnd).get(K).set(kEnd);
    f.ifElse(
      () => {
        f.get(MODE).i32(1).i32Eq();
      },
      () => {
        f.ifElse(
          () => {
            f.get(tLast).get(panelEnd).i32LtU();
          },
          () => {
            f.get(tLast).set(colEnd);
          },
          () => {},
        );
      },
      () => {
        f.ifElse(
          () => {
            f.get(tLast).get(K).i32LtU();
          },
          () => {
            f.get(tLast).set(kEnd);
          },
          () => {},
        );
      },
    );
  }

  if (transA) {
    f.i32(1).set(batch).i32(0).set(strideA).i32(0).set(strideB);
    f.i32(4).set(rowA);
  } else {
    f.get(K).i32(2).i32Shl().set(rowA);
  }
  f.get(N).i32(2).i32Shl().set(rowB);
  f.get(M).get(rowB).i32Mul().set(matC);
  // width = N when K * N <= PANEL_MIN_B (B fits as it is), else PANEL_FLOATS / K rounded down to
  // a multiple of the block's 8 columns, at least 8; the causal kernel (attention's small B) takes
  // all columns at once
  f.get(N).set(width);
  if (!causal) {
    f.ifElse(
      () => {
        f.get(K).get(N).i32Mul().i32(PANEL_MIN_B).i32GtU();
      },
      () => {
        f.i32(PANEL_FLOATS).get(K).i32DivU().i32(-8).i32And().set(width);
        f.ifElse(
          () => {
            f.get(width).i32(8).i32LtU();
          },
          () => {
            f.i32(8).set(width);
          },
          () => {},
        );
      },
      () => {},
    );
  }
  if (kBlocks) {
    // depth = K up to DEPTH_MIN, else DEPTH
    f.get(K).set(depth);
    f.ifElse(
      () => {
        f.get(K).i32(DEPTH_MIN).i32GtU();
      },
      () => {
        f.i32(DEPTH).set(depth);
      },
      () => {},
    );
  }
  f.i32(0).set(bi);
  f.whileLoop(lessThan(value(bi), batch), () => {
    const allRows = () => {
      f.i32(0).set(panel);
      f.whileLoop(lessThan(value(panel), N), () => {
        f.get(panel).get(width).i32Add().set(panelEnd);
        f.ifElse(
          () => {
            f.get(panelEnd).get(N).i32GtU();
          },
          () => {
            f.get(N).set(panelEnd);
          },
          () => {},
        );
        const allBlocks = () => {
          f.i32(0).set(i);
          f.whileLoop(atMost(plus(i, ROWS), M), () => {
            rows(ROWS);
            f.addConst(i, ROWS);
          });
          f.whileLoop(lessThan(value(i), M), () => {
            rows(1);
            f.addConst(i, 1);
          });
        };
        if (kBlocks) {
          f.i32(0).set(kStart);
          f.whileLoop(lessThan(value(kStart), K), () => {
            f.get(kStart).get(depth).i32Add().set(kStop);
            f.ifElse(
              () => {
                f.get(kStop).get(K).i32GtU();
              },
              () => {
                f.get(K).set(kStop);
              },
              () => {},
            );
            allBlocks();
            f.get(kStop).set(kStart);
          });
        } else allBlocks();
        f.get(panelEnd).set(panel);
      });
    };
    if (transA || causal || accumulate)
      allRows(); // no matrix-vector path: A's rows are not contiguous, the limits apply by blocks, or C is added to
    else {
      f.ifElse(
        () => {
          f.get(N).i32(1).i32Eq();
        },
        () => {
          f.i32(0).set(i);
          f.whileLoop(atMost(plus(i, ROWS), M), () => {
            dots(ROWS);
            f.addConst(i, ROWS);
          });
          f.whileLoop(lessThan(value(i), M), () => {
            dots(1);
            f.addConst(i, 1);
          });
        },
        allRows,
      );
    }
    f.addTo(pa, strideA).addTo(pb, strideB).addTo(pc, matC).addConst(bi, 1);
  });
  return f;
}
