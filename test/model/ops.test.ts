// Layout helpers of the decoder, checked against the plain tfjs ops they stand in for: permute
// (a transpose that becomes a reshape when only size-1 axes move) and RoPE's rotate_half as a
// product with a signed permutation (exact, values and gradient), and on wasm outside a gradient as
// one kernel (the same bits).
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permute } from '../../src/model/ops.ts';
import { applyRope, rotateHalfMatrix } from '../../src/model/rope.ts';
import { simdRopeModule } from '../../src/kernels/simd/rope.ts';
import { useBackend } from '../helpers/models.ts';
import { bits } from '../helpers/numbers.ts';
import { filledTensor } from '../helpers/tensors.ts';
import { setSwitches } from '../../src/kernels/switches.ts';

/** The textbook rotate_half: [-x2, x1] by split, negate and concatenate. */
function rotateHalfByConcat(x: tf.Tensor): tf.Tensor {
  const half = x.shape[x.rank - 1]! / 2;
  const [x1, x2] = tf.split(x, [half, half], -1) as [tf.Tensor, tf.Tensor];
  return tf.concat([tf.neg(x2), x1], -1);
}

for (const backend of ['wasm', 'cpu'] as const) {
  describe(`decoder layout helpers (${backend})`, () => {
    beforeAll(() => useBackend(backend));
    afterAll(() => tf.disposeVariables());

    it('permute equals tf.transpose, and moves no data when only size-1 axes move', () => {
      const cases: [number[], number[], boolean][] = [
        [[3, 1, 4, 5], [0, 2, 1, 3], false], // (B, T=1, H, hd) -> (B, H, 1, hd): decoding's heads
        [[6, 1, 5], [0, 2, 1], true], // (B*Hkv, 1, hd) -> (B*Hkv, hd, 1)
        [[2, 3, 1, 4], [0, 2, 1, 3], false],
        [[1, 7], [1, 0], true],
        [[3, 2, 4, 5], [0, 2, 1, 3], false], // prefill: a real transpose
        [[2, 3, 4], [0, 2, 1], false],
        [[2, 1, 3], [2, 1, 0], false], // non-unit axes swap order: a real transpose
      ];
      for (const [shape, perm] of cases) {
        tf.tidy(() => {
          const x = filledTensor(shape, shape.length, { scale: 3 });
          const expected = tf.transpose(x, perm);
          const got = permute(x, perm);
          expect(got.shape).toEqual(expected.shape);
          expect(Array.from(got.dataSync())).toEqual(Array.from(expected.dataSync()));
        });
      }
    });

    it('permute is a reshape (no new data) exactly when the order of the data is unchanged', () => {
      const buffers = () => tf.memory().numDataBuffers;
      const before = buffers();
      const x = filledTensor([4, 1, 3, 8], 1, { scale: 3 });
      const viewed = permute(x, [0, 2, 1, 3]);
      expect(buffers()).toBe(before + 1); // the reshape shares x's data
      const y = filledTensor([4, 2, 3, 8], 2, { scale: 3 });
      const moved = permute(y, [0, 2, 1, 3]);
      expect(buffers()).toBe(before + 3); // y and its transposed copy
      tf.dispose([x, viewed, y, moved]);
      expect(buffers()).toBe(before);
    });

    it('rotate_half as a product equals split-negate-concat exactly, and so does its gradient', () => {
      for (const hd of [4, 16, 48, 64]) {
        tf.tidy(() => {
          const rotation = rotateHalfMatrix(hd);
          const x = filledTensor([2, 3, 5, hd], hd, { scale: 3 });
          const cos = filledTensor([2, 1, 5, hd], 7, { scale: 3 });
          const sin = filledTensor([2, 1, 5, hd], 9, { scale: 3 });
          const textbook = (input: tf.Tensor) =>
            tf.add(tf.mul(input, cos), tf.mul(rotateHalfByConcat(input), sin));
          const ours = (input: tf.Tensor) => applyRope(input, cos, sin, rotation);
          expect(Array.from(ours(x).dataSync())).toEqual(Array.from(textbook(x).dataSync()));
          const weights = filledTensor(x.shape, 11, { scale: 3 }); // a loss that weighs every output differently
          const gradOf = (f: (input: tf.Tensor) => tf.Tensor) =>
            tf.grad((input: tf.Tensor) => tf.sum(tf.mul(f(input), weights)))(x);
          // the same bits: each gradient number is one rounded product plus another, either way
          // (on wasm, the RoPE kernel with the table -[s2, s1]; these tables have s1 != s2)
          expect(Array.from(gradOf(ours).dataSync())).toEqual(
            Array.from(gradOf(textbook).dataSync()),
          );
        });
      }
    });

    // hd 64: the SIMD kernel (and, turned off, its JavaScript loop); hd 12: halves of 6, the loop
    it.each([
      [64, true],
      [64, false],
      [12, true],
    ])(
      'on wasm, RoPE (hd %i, SIMD %s) runs as one kernel with the same bits, under a gradient too (forward and backward)',
      async (hd, simd) => {
        setSwitches({ simdRope: simd });
        const x = filledTensor([3, 4, 2, hd], 1, { scale: 3 });
        const cos = filledTensor([3, 1, 2, hd], 2, { scale: 3 });
        const sin = filledTensor([3, 1, 2, hd], 3, { scale: 3 });
        const rotation = rotateHalfMatrix(hd);
        const names = async (f: () => tf.Tensor) => {
          const { kernels, result } = await tf.profile(() => tf.tidy(f));
          const resultBits = bits(result as tf.Tensor);
          tf.dispose(result as tf.Tensor);
          return { kernels: kernels.map((k) => k.name), bits: resultBits };
        };
        const decoding = await names(() => applyRope(x, cos, sin, rotation));
        const textbook = await names(() =>
          tf.add(tf.mul(x, cos), tf.mul(rotateHalfByConcat(x), sin)),
        );
        expect(decoding.bits).toEqual(textbook.bits);
        expect(decoding.kernels.includes('AgenticRlRope')).toBe(backend === 'wasm');
        const training = await names(() =>
          tf.grad((input: tf.Tensor) => {
            expect(tf.engine().state.gradientDepth).toBeGreaterThan(0);
            return tf.sum(applyRope(input, cos, sin, rotation));
          })(x),
        );
        const ropeCalls = training.kernels.filter((name) => name === 'AgenticRlRope').length;
        expect(ropeCalls).toBe(backend === 'wasm' ? 2 : 0); // forward and backward
        expect(
          training.kernels.includes('BatchMatMul') ||
            training.kernels.includes('AgenticRlSimdStridedMatMul'),
        ).toBe(backend !== 'wasm');
        const textbookGrad = await names(() =>
          tf.grad((input: tf.Tensor) =>
            tf.sum(tf.add(tf.mul(input, cos), tf.mul(rotateHalfByConcat(input), sin))),
          )(x),
        );
        expect(training.bits).toEqual(textbookGrad.bits);
        tf.dispose([x, cos, sin, rotation]);
        setSwitches({ simdRope: true });
      },
    );

    it('the RoPE kernel is a valid module under 4 KB', () => {
      expect(WebAssembly.validate(simdRopeModule())).toBe(true);
      expect(simdRopeModule().length).toBeLessThan(4096);
    });

    it('the rotation matrix is [-x2, x1] by hand for hd = 4', () => {
      const rows = rotateHalfMatrix(4).arraySync();
      // x @ R for x = [a, b, c, d] must be [-c, -d, a, b]
      expect(rows).toEqual([
        [0, 0, 1, 0],
        [0, 0, 0, 1],
        [-1, 0, 0, 0],
        [0, -1, 0, 0],
      ]);
    });
  });
}
