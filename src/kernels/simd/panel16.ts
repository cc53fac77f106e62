// The blocked kernel for frozen 16-bit weights with many rows of A (training's forward and
// backward, prefill), `panel16`: C = A W^T (W stored (N, K), the forward x W^T-as-stored) or
// C = A W (W stored (K, N), the input gradient dy W), W of BF16 or F16 in the dot store's memory
// (matmul/weights16.ts). For each block of KB steps of K and 8 columns of C it widens that panel of
// W into a float32 scratch (KB, 8), 32 bytes a step in L1 (from W (K, N): a row's 8 numbers a step,
// in two v128.load16x4_u; from W (N, K): 4 numbers of one row at a time, each stored into its own
// column),
// then runs every row of A against it in the register tiles of simd/matmul_nt.ts: 4 rows x 8
// columns, per step 4 broadcast loads of A and 2 vector loads of the panel feed 8 multiply-adds.
// The first K block writes C, the later ones add into it, so each output is one multiply-add
// chain over k in order whatever the tile, and a product split by rows over threads gives the
// bits of one thread. The caller passes blocks of rows small enough that A's rows stay in L2
// while every panel passes over them; each block re-widens all of W (a few % of its work from
// 64 rows). The last N % 8 columns run as a full block whose missing lanes are dropped: their
// panel columns are stale (a W (N, K) panel skips the missing rows) or read past the row (a W
// (K, N) row's 16 bytes: matmul/weights16.ts leaves 16 bytes after each weight, and C 32).
import { Body, I32, moduleBytes, V128, V128_ZERO } from '../wasm/assembler.ts';
import { exported } from './matmul.ts';
import { type HalfKind, widenLoad, widenLocals, widenScalar } from './half.ts';

/** Steps of K per panel: (512, 8) float32 is 16 KB, beside 4 rows of A (8 KB), in L1. */
export const PANEL_K = 512;

/** Bytes of scratch a panel16 call needs: the panel and 32 bytes for a partial tile's row. */
export const PANEL_SCRATCH_BYTES = PANEL_K * 32 + 32;

/** panel16's `layout`: W stored (N, K), C = A W^T. */
export const ROWS_ARE_OUTPUTS = 0;
/** panel16's `layout`: W stored (K, N), C = A W. */
export const ROWS_ARE_INPUTS = 1;

/**
 * Emits `panel16(a, w, c, M, K, N, scratch, layout)`: C (M, N) = A (M, K) @ W^T (layout 0, W (N,
 * K)) or A @ W (layout 1, W (K, N)), W of `kind`, A and C packed; byte pointers; scratch
 * PANEL_SCRATCH_BYTES.
 */
function panel16Body(kind: HalfKind): Body {
  const f = new Body(8);
  const [pa, pw, pc, M, K, N, scratch, layout] = [0, 1, 2, 3, 4, 5, 6, 7];
  const widen = widenLocals(f, kind);
  const rowA = f.local(I32); // K * 4
  const rowC = f.local(I32); // N * 4
  const k0 = f.local(I32); // the panel's first step of K
  const kl = f.local(I32); // and its length
  const i = f.local(I32);
  const j = f.local(I32);
  const x = f.local(I32);
  const q = f.local(I32);
  const qEnd = f.local(I32);
  const from = f.local(I32);
  const off = f.local(I32);
  const out = f.local(I32);
  const rowPtr = Array.from({ length: 4 }, () => f.local(I32));
  const av = f.local(V128);
  const bv = Array.from({ length: 2 }, () => f.local(V128));
  const acc = Array.from({ length: 4 }, () => Array.from({ length: 2 }, () => f.local(V128)));
  const wide = f.local(V128);

  // scratch (kl, 8) = W[j .. j + 8, k0 .. k0 + kl]^T, rows of W past N skipped
  const packRows = () => {
    f.i32(0).set(x); // the panel's column
    f.whileLoop(
      () => {
        f.get(x).i32(8).i32LtU().get(j).get(x).i32Add().get(N).i32LtU().i32And();
      },
      () => {
        f.get(pw).get(j).get(x).i32Add().get(K).i32Mul().get(k0).i32Add().i32(1).i32Shl().i32Add();
        f.set(from);
        f.get(scratch).get(x).i32(2).i32Shl().i32Add().set(q);
        f.get(q).get(kl).i32(5).i32Shl().i32Add().set(qEnd);
        f.get(q).get(kl).i32(-4).i32And().i32(5).i32Shl().i32Add(); // (kl & ~3) steps in vectors
        f.set(out);
        f.whileLoop(f.lessThan(q, out), () => {
          f.get(from);
          widenLoad(f, kind, 0, widen);
          f.set(wide);
          for (let lane = 0; lane < 4; lane++)
            f.get(q)
              .get(wide)
              .v128Store32Lane(lane, 32 * lane);
          f.addConst(from, 8).addConst(q, 128);
        });
        f.whileLoop(f.lessThan(q, qEnd), () => {
          f.get(q).get(from);
          widenScalar(f, kind, widen);
          f.f32Store();
          f.addConst(from, 2).addConst(q, 32);
        });
        f.addConst(x, 1);
      },
    );
  };
  // scratch (kl, 8) = W[k0 .. k0 + kl, j .. j + 8]
  const packColumns = () => {
    f.get(pw).get(k0).get(N).i32Mul().get(j).i32Add().i32(1).i32Shl().i32Add().set(from);
    f.get(N).i32(1).i32Shl().set(off); // a row of W in bytes
    f.get(scratch).set(q);
    f.get(q).get(kl).i32(5).i32Shl().i32Add().set(qEnd);
    f.whileLoop(f.lessThan(q, qEnd), () => {
      for (let half = 0; half < 2; half++) {
        f.get(q).get(from);
        widenLoad(f, kind, 8 * half, widen);
        f.v128Store(16 * half);
      }
      f.addTo(from, off).addConst(q, 32);
    });
  };
  // rows i .. i + rows of C's columns j .. j + 8, against the panel
  const tile = (rows: number) => {
    for (let r = 0; r < rows; r++)
      f.get(pa)
        .get(i)
        .i32(r)
        .i32Add()
        .get(rowA)
        .i32Mul()
        .i32Add()
        .get(k0)
        .i32(2)
        .i32Shl()
        .i32Add()
        .set(rowPtr[r]!);
    f.get(pc).get(i).get(rowC).i32Mul().i32Add().get(j).i32(2).i32Shl().i32Add().set(out);
    f.ifElse(
      () => {
        f.get(k0).i32Eqz();
      },
      () => {
        for (let r = 0; r < rows; r++) for (const a of acc[r]!) f.v128Const(V128_ZERO).set(a);
      },
      () => {
        for (let r = 0; r < rows; r++)
          for (let v = 0; v < 2; v++)
            f.get(out)
              .get(rowC)
              .i32(r)
              .i32Mul()
              .i32Add()
              .v128Load(16 * v)
              .set(acc[r]![v]!);
      },
    );
    f.get(scratch).set(q);
    f.i32(0).set(off);
    f.whileLoop(f.lessThan(q, qEnd), () => {
      for (let v = 0; v < 2; v++)
        f.get(q)
          .v128Load(16 * v)
          .set(bv[v]!);
      for (let r = 0; r < rows; r++) {
        f.get(rowPtr[r]!).get(off).i32Add().v128Load32Splat().set(av); // A[i + r, k] in all lanes
        for (let v = 0; v < 2; v++)
          f.get(av).get(bv[v]!).get(acc[r]![v]!).f32x4RelaxedMadd().set(acc[r]![v]!);
      }
      f.addConst(q, 32).addConst(off, 4);
    });
    for (let r = 0; r < rows; r++) {
      f.ifElse(
        f.fits(j, 8, N),
        () => {
          for (let v = 0; v < 2; v++)
            f.get(out)
              .get(acc[r]![v]!)
              .v128Store(16 * v);
        },
        () => {
          // the last N % 8 columns: through the row after the panel, number by number
          for (let v = 0; v < 2; v++)
            f.get(qEnd)
              .get(acc[r]![v]!)
              .v128Store(16 * v);
          f.i32(0).set(x);
          f.whileLoop(
            () => {
              f.get(j).get(x).i32Add().get(N).i32LtU();
            },
            () => {
              f.get(out).get(x).i32(2).i32Shl().i32Add();
              f.get(qEnd).get(x).i32(2).i32Shl().i32Add().f32Load().f32Store();
              f.addConst(x, 1);
            },
          );
        },
      );
      if (r + 1 < rows) f.addTo(out, rowC);
    }
  };

  f.get(K).i32(2).i32Shl().set(rowA);
  f.get(N).i32(2).i32Shl().set(rowC);
  f.i32(0).set(k0);
  f.whileLoop(f.lessThan(k0, K), () => {
    // kl = min(PANEL_K, K - k0)
    f.i32(PANEL_K).get(K).get(k0).i32Sub();
    f.get(K).get(k0).i32Sub().i32(PANEL_K).i32GtU().select().set(kl);
    f.i32(0).set(j);
    f.whileLoop(f.lessThan(j, N), () => {
      f.ifElse(
        () => {
          f.get(layout).i32Eqz();
        },
        packRows,
        packColumns,
      );
      f.get(scratch).get(kl).i32(5).i32Shl().i32Add().set(qEnd); // the panel's end
      f.i32(0).set(i);
      f.whileLoop(f.fits(i, 4, M), () => {
        tile(4);
        f.addConst(i, 4);
      });
      f.whileLoop(f.lessThan(i, M), () => {
        tile(1);
        f.addConst(i, 1);
      });
      f.addConst(j, 8);
    });
    f.addConst(k0, PANEL_K);
  });
  return f;
}

/** panel16's module bytes for `kind` (relaxed SIMD; `shared`: importing a shared memory). */
export function panel16Module(kind: HalfKind, shared: boolean): Uint8Array<ArrayBuffer> {
  return moduleBytes([{ name: 'panel16', params: 8, body: panel16Body(kind) }], shared);
}

/**
 * panel16(a, w, c, M, K, N, scratch, layout): C (M, N) = A (M, K) @ W^T for W (N, K) (layout 0) or
 * A @ W for W (K, N) (layout 1), 16-bit W, packed A and C; byte pointers.
 */
export type Panel16Kernel = (
  a: number,
  w: number,
  c: number,
  m: number,
  k: number,
  n: number,
  scratch: number,
  layout: number,
) => void;

/** Instantiates panel16 for `kind` on `memory`, or returns null where relaxed SIMD is unavailable. */
export function instantiatePanel16(
  memory: WebAssembly.Memory,
  kind: HalfKind,
  shared: boolean,
): Panel16Kernel | null {
  return exported(panel16Module(kind, shared), memory, 'panel16') as Panel16Kernel | null;
}
