// The NT kernel (kernels/simd/matmul_nt.ts), C = A W^T with W as stored: against float64, and bit
// for bit the matmul kernel's product with a transposed copy of W, over every tail (rows past the
// 4-row blocks; columns past the 8-column blocks: a 4-column block, single columns), K up to
// NT_MAX_K.
import { describe, expect, it } from 'vitest';
import { instantiateMatmul } from '../../../src/kernels/simd/matmul.ts';
import {
  instantiateMatmulNT,
  NT_MAX_K,
  simdMatmulNTModule,
} from '../../../src/kernels/simd/matmul_nt.ts';
import { filled } from '../../helpers/numbers.ts';

describe('NT matmul kernel', () => {
  it('is a valid module under 4 KB', () => {
    const bytes = simdMatmulNTModule();
    expect(WebAssembly.validate(bytes)).toBe(true);
    expect(bytes.length).toBeLessThan(4096);
  });

  it.each([
    [1, 1, 1],
    [4, 3, 8],
    [5, 7, 12],
    [9, 33, 15],
    [130, 64, 23],
    [7, NT_MAX_K, 19],
    [64, 256, 256],
  ])('%i x %i @ (%i x K)^T: the bits of matmul on W^T, within float32 of float64', (m, k, n) => {
    const [pa, pw, pt, pc, pd, ps] = [
      0,
      m * k,
      m * k + n * k,
      m * k + 2 * n * k,
      m * k + 2 * n * k + m * n,
      m * k + 2 * n * k + 2 * m * n,
    ];
    const memory = new WebAssembly.Memory({ initial: Math.ceil(((ps + k * 8 + 16) * 4) / 65536) });
    const nt = instantiateMatmulNT(memory)!;
    const matmul = instantiateMatmul(memory, true)!;
    const heap = new Float32Array(memory.buffer);
    const [a, w] = [filled(m * k, 1), filled(n * k, 2)];
    heap.set(a, pa);
    heap.set(w, pw);
    for (let j = 0; j < n; j++) for (let x = 0; x < k; x++) heap[pt + x * n + j] = w[j * k + x]!; // W^T (K, N)
    heap.fill(Number.NaN, pc, ps); // stale outputs must be overwritten
    nt(pa * 4, pw * 4, pc * 4, m, k, n, ps * 4);
    matmul(pa * 4, pt * 4, pd * 4, 1, m, k, n, 0, 0);
    const got = heap.slice(pc, pc + m * n);
    expect([...new Uint32Array(got.buffer)]).toEqual([
      ...new Uint32Array(heap.slice(pd, pd + m * n).buffer),
    ]);
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let want = 0;
        for (let x = 0; x < k; x++) want += a[i * k + x]! * w[j * k + x]!;
        expect(Math.abs(got[i * n + j]! - want)).toBeLessThan(1e-4 * (1 + Math.abs(want)));
      }
  });
});
