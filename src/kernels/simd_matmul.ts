// Batched matrix product C[b] = A[b] @ B[b] as a WebAssembly SIMD kernel that works in place on
// tfjs-wasm's own heap. Why: tfjs-wasm hands a batched matMul (attention's Q K^T and P V, and
// their gradients) to a scalar C++ loop at ~2 GFLOP/s; only 2-D products reach XNNPACK. This
// kernel imports the backend's WebAssembly.Memory, so it reads the operands and writes the
// result where tfjs keeps them, with no copy. Measured in `npm run bench` (attention_matmul_*).
//
// Shapes: A (batch, M, K), B (batch or 1, K, N), C (batch, M, N), all row-major float32.
// The product is tiled in blocks of R = 4 rows by 8 columns (two f32x4 vectors): per step of k,
// 4 broadcast loads of A and 2 vector loads of B feed 8 multiply-adds held in registers.
// A matrix-vector product (N = 1: decoding's scores K q^T, one query per key head) would fill one
// column of each tile, so it has its own path: 4 rows of A at a time, each a SIMD dot product
// with the contiguous vector B (4 lanes of K per step), summed across lanes at the end.
// Where the engine has relaxed SIMD (Chromium since 114; Node 20 behind
// --experimental-wasm-relaxed-simd), a second build of the kernel uses f32x4.relaxed_madd, a fused
// multiply-add on CPUs with FMA: ~1.3x the throughput of separate multiply and add. XNNPACK in
// tfjs-wasm 4.22 has no relaxed-SIMD build, so with it this kernel also beats XNNPACK on the
// linear layers' products with many rows (training, prefill; matmul_dispatch.ts matMul2d).
// simd_dot.ts holds `matmulT`, C = A W^T with W stored (N, K): for the linear layers' products with
// few rows (decoding), where streaming the weights dominates. The same body's transposed-A, causal
// and accumulating builds are in simd_matmul_variants.ts, the NT kernel in simd_matmul_nt.ts.
import { Body, F32, I32, moduleBytes, V128, V128_ZERO } from './assembler.ts';

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
 * `transA`, `causal`, `accumulate`: the variants of simd_matmul_variants.ts.
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

/**
 * The kernel's module bytes (small: well under the 4 KB limit for synchronous compiles); `fma`: the
 * relaxed-SIMD build; `shared`: importing a shared memory (matmul_threads.ts's helper threads).
 */
export function simdMatmulModule(fma = false, shared = false): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'matmul', params: 9, body: matmulBody(fma) }], shared);
}

/**
 * The kernel bound to a memory: matmul(a, b, c, batch, M, K, N, strideA, strideB), byte pointers.
 */
export type MatmulKernel = (
  a: number,
  b: number,
  c: number,
  batch: number,
  m: number,
  k: number,
  n: number,
  strideA: number,
  strideB: number,
) => void;

/**
 * Instantiates the kernel on `memory`, or returns null where WebAssembly SIMD (or, for `fma`,
 * relaxed SIMD) is unavailable.
 */
export function instantiateMatmul(memory: WebAssembly.Memory, fma = false): MatmulKernel | null {
  return exported(simdMatmulModule(fma), memory, 'matmul') as MatmulKernel | null;
}

/**
 * Instantiates module `bytes` on `memory` and returns its export `name`, or null where the engine
 * cannot validate it.
 */
export function exported(
  bytes: Uint8Array<ArrayBuffer>,
  memory: WebAssembly.Memory,
  name: string,
): unknown {
  if (!WebAssembly.validate(bytes)) return null;
  return new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports[name];
}
