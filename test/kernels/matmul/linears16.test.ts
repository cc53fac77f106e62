// Decoding's grouped 16-bit linear layers (src/kernels/matmul/linears16.ts): each output y_i = x
// W_i^T (+ bias_i) (+ scale_i (x a_i) b_i) against tfjs ops on the widened weights, for groups
// mixing layers with and without a bias and an adapter, odd widths and every row count it takes;
// the same bits on one thread and on two; clear errors; no tensor or heap block left behind.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  gatedLinears16,
  gatedLinears16Serves,
  linear16AddNorm,
  type Linear16,
  linears16,
  linears16Serves,
} from '../../../src/kernels/matmul/linears16.ts';
import { swigluValue } from '../../../src/kernels/tfjs/swiglu.ts';
import { simdAddRmsNormValue } from '../../../src/kernels/tfjs/rmsnorm.ts';
import { useMatmulThreads } from '../../../src/kernels/matmul/kernels.ts';
import { kernelCounts, setSwitches } from '../../../src/kernels/switches.ts';
import {
  DOT_MAX_ROWS,
  releaseResident16,
  type Resident16,
  resident16Active,
  storeResident16,
  widen16,
} from '../../../src/kernels/matmul/weights16.ts';
import { filledTensor } from '../../helpers/tensors.ts';

/** BF16 patterns of about unit size, deterministic. */
function patterns(count: number, seed: number): Uint16Array {
  return Uint16Array.from({ length: count }, (_, i) => {
    const u = Math.abs(Math.sin(i * 12.9898 + seed * 78.233) * 43758.5453) % 1;
    return ((i * 7 + seed) % 3 === 0 ? 0x8000 : 0) | (0x3c00 + Math.floor(u * 0x0600));
  });
}

const made: Resident16[] = [];
const kept: tf.Tensor[] = [];

/** A layer (out, in) with a bias and a rank-r adapter where asked. */
function layer(out: number, inWidth: number, seed: number, bias: boolean, rank: number): Linear16 {
  const weight = storeResident16(patterns(out * inWidth, seed), out, inWidth, 'bf16');
  made.push(weight);
  const keep = <T extends tf.Tensor>(t: T) => {
    kept.push(t);
    return t;
  };
  return {
    weight,
    bias: bias ? keep(filledTensor([out], seed + 1)) : null,
    adapter:
      rank > 0
        ? {
            a: keep(filledTensor([inWidth, rank], seed + 2)),
            b: keep(filledTensor([rank, out], seed + 3)),
            scale: 0.75,
          }
        : null,
  };
}

/** The same layer as tfjs ops on the widened weight. */
function reference(x: tf.Tensor2D, { weight, bias, adapter }: Linear16): tf.Tensor2D {
  return tf.tidy(() => {
    let y = tf.matMul(x, widen16(weight, false), false, true);
    if (bias) y = tf.add(y, bias);
    if (adapter)
      y = tf.add(
        y,
        tf.matMul(
          tf.mul(tf.matMul(x, adapter.a as tf.Tensor2D), adapter.scale),
          adapter.b as tf.Tensor2D,
        ),
      );
    return y as tf.Tensor2D;
  });
}

function expectClose(got: tf.Tensor, want: tf.Tensor): void {
  expect(got.shape).toEqual(want.shape);
  const [g, w] = [got.dataSync(), Array.from(want.dataSync())];
  const scale = w.reduce((max, v) => Math.max(max, Math.abs(v)), 0);
  for (let i = 0; i < g.length; i++)
    if (!(Math.abs(g[i]! - w[i]!) <= 2e-5 * scale))
      throw new Error(`element ${i}: ${g[i]} vs ${w[i]} (largest ${scale})`);
}

describe('linears16: grouped 16-bit linear layers for decoding', () => {
  let group: Linear16[];
  beforeAll(async () => {
    await tf.setBackend('wasm');
    expect(resident16Active()).toBe(true);
    // a q, k, v-like group (odd widths): bias and adapter, adapter only, bias only; and a long row
    group = [layer(37, 45, 1, true, 4), layer(9, 45, 2, false, 3), layer(130, 45, 3, true, 0)];
  });
  afterAll(async () => {
    for (const w of made.splice(0)) releaseResident16(w);
    tf.dispose(kept.splice(0));
    await useMatmulThreads(0);
  });

  it('equals x W^T + bias + scale (x a) b on tfjs ops for every row count it serves', () => {
    for (const m of [1, 2, 5, DOT_MAX_ROWS]) {
      expect(linears16Serves(m)).toBe(true);
      tf.tidy(() => {
        const x = filledTensor([m, 45], m);
        const outs = linears16(x, group);
        expect(outs).toHaveLength(3);
        outs.forEach((y, i) => expectClose(y, reference(x, group[i]!)));
        // one layer alone gives the numbers it gives in the group
        const [alone] = linears16(x, [group[1]!]);
        expect(Array.from(alone!.dataSync())).toEqual(Array.from(outs[1]!.dataSync()));
      });
    }
    expect(linears16Serves(DOT_MAX_ROWS + 1)).toBe(false);
  });

  it('gives an MLP gate and up as silu(gate) * up in one kernel, the bits of the two kernels apart', () => {
    // gate with a bias and an adapter, up with an adapter (widths a multiple of 4 for the SIMD
    // SwiGLU)
    const [gate, up] = [layer(52, 45, 6, true, 4), layer(52, 45, 7, false, 2)];
    for (const m of [1, 3, DOT_MAX_ROWS]) {
      expect(gatedLinears16Serves(m, 52)).toBe(true);
      tf.tidy(() => {
        const x = filledTensor([m, 45], m + 20);
        const fused = gatedLinears16(x, gate, up);
        const [g, u] = linears16(x, [gate, up]);
        expect(fused.shape).toEqual([m, 52]);
        expect(Array.from(fused.dataSync())).toEqual(Array.from(swigluValue(g!, u!).dataSync()));
      });
    }
    setSwitches({ simdSwiglu: false });
    expect(gatedLinears16Serves(1, 52)).toBe(false);
    setSwitches({ simdSwiglu: true });
    expect(gatedLinears16Serves(1, 50)).toBe(false); // 50 numbers a row: the SIMD SwiGLU takes fours
  });

  it("ends a block in one kernel: residual + y and its RMSNorm, the add-and-norm kernel's bits", () => {
    const down = layer(40, 45, 8, true, 4); // a bias and an adapter; 40 wide, a multiple of 4
    const norm = { weight: filledTensor([40], 11), eps: 1e-6 };
    kept.push(norm.weight);
    for (const m of [1, 3, DOT_MAX_ROWS]) {
      tf.tidy(() => {
        const x = filledTensor([m, 45], m + 30);
        const residual = filledTensor([m, 40], m + 40);
        const [sum, normed] = linear16AddNorm(x, down, residual, norm);
        const [y] = linears16(x, [down]);
        const [wantSum, wantNormed] = simdAddRmsNormValue(residual, y!, norm.weight, norm.eps);
        expect(Array.from(sum.dataSync())).toEqual(Array.from(wantSum.dataSync()));
        expect(Array.from(normed.dataSync())).toEqual(Array.from(wantNormed.dataSync()));
      });
    }
    expect(() =>
      tf.tidy(() =>
        linear16AddNorm(filledTensor([1, 45], 1), down, filledTensor([1, 41], 2), norm),
      ),
    ).toThrow(/linear16AddNorm: residual \[1,41\]/);
  });

  it('gives the same bits on one thread and on two, the products handed over together', async () => {
    const long = [layer(700, 600, 4, true, 8), layer(300, 600, 5, false, 8)];
    const run = () =>
      tf.tidy(() =>
        linears16(filledTensor([3, 600], 9), long).map((y) => Array.from(y.dataSync())),
      );
    await useMatmulThreads(0);
    const one = run();
    await useMatmulThreads(1);
    const split = kernelCounts.splitProducts;
    const two = run();
    expect(kernelCounts.splitProducts).toBe(split + 1); // both products in one hand-off
    expect(two).toEqual(one);
    tf.tidy(() => {
      const x = filledTensor([3, 600], 9);
      linears16(x, long).forEach((y, i) => expectClose(y, reference(x, long[i]!)));
    });
    await useMatmulThreads(0);
  });

  it('refuses too many rows, a width that does not fit, and misshapen factors, clearly', () => {
    const x = filledTensor([DOT_MAX_ROWS + 1, 45], 1);
    expect(() => linears16(x, group)).toThrow(`at most ${DOT_MAX_ROWS}`);
    const narrow = filledTensor([2, 44], 1);
    expect(() => linears16(narrow, group)).toThrow(/does not multiply a 37 x 45/);
    const wrong = { ...group[0]!, adapter: { ...group[0]!.adapter!, b: kept[0]! } };
    const y = filledTensor([1, 45], 2);
    expect(() => linears16(y, [wrong])).toThrow(/LoRA factors .* do not fit a 37 x 45 weight/);
    tf.dispose([x, narrow, y]);
  });

  it('leaves no tensor and no heap block behind', () => {
    const x = filledTensor([4, 45], 3);
    tf.dispose(linears16(x, group)); // warm
    const before = tf.memory();
    for (let step = 0; step < 5; step++) tf.dispose(linears16(x, group));
    expect(tf.memory().numTensors).toBe(before.numTensors);
    expect(tf.memory().numBytes).toBe(before.numBytes);
    x.dispose();
  });
});
