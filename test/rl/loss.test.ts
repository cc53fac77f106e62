// GRPO loss: hand-worked values for each branch, each aggregation and the mask, then parity with
// an independent PyTorch implementation (test/fixtures/grpo_loss.json, scripts/golden/grpo_loss.py)
// on the cpu and wasm backends.
import { describe, expect, it, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import {
  grpoLoss,
  lossNormalizer,
  type GrpoLossOptions,
  type Aggregation,
} from '../../src/rl/loss.ts';

interface Case {
  name: string;
  options: GrpoLossOptions;
  logprobs: number[][];
  oldLogprobs: number[][] | null;
  refLogprobs: number[][] | null;
  actionMask: number[][];
  advantages: number[];
  loss: number;
  grad: number[][];
  kl: number;
  clipFraction: number;
  ratioMean: number;
  actionTokens: number;
}
const golden = JSON.parse(
  readFileSync(new URL('../fixtures/grpo_loss.json', import.meta.url), 'utf8'),
) as { cases: Case[] };

/** Loss terms as numbers plus d loss / d logprobs, leaving no tensors behind. */
function evaluate(
  c: Omit<Case, 'name' | 'loss' | 'grad' | 'kl' | 'clipFraction' | 'ratioMean' | 'actionTokens'>,
) {
  const before = tf.memory().numTensors;
  const t2 = (rows: number[][] | null) => (rows ? tf.tensor2d(rows) : null);
  const inputs = {
    logprobs: tf.tensor2d(c.logprobs),
    oldLogprobs: t2(c.oldLogprobs),
    refLogprobs: t2(c.refLogprobs),
    actionMask: tf.tensor2d(c.actionMask),
    advantages: tf.tensor1d(c.advantages),
  };
  const variable = tf.variable(inputs.logprobs);
  let kept: tf.Tensor[] = [];
  const { value, grads } = tf.variableGrads(() => {
    const terms = grpoLoss({ ...inputs, logprobs: variable }, c.options);
    kept = [terms.kl, terms.clipFraction, terms.ratioMean, terms.actionTokens].map((t) =>
      tf.keep(t),
    );
    return terms.loss;
  }, [variable]);
  const [kl, clipFraction, ratioMean, actionTokens] = kept.map((t) => t.dataSync()[0]!);
  const result = {
    loss: value.dataSync()[0]!,
    grad: grads[variable.name]!.arraySync() as number[][],
    kl,
    clipFraction,
    ratioMean,
    actionTokens,
  };
  tf.dispose([
    value,
    ...Object.values(grads),
    ...kept,
    variable,
    ...Object.values(inputs).filter((t) => t !== null),
  ]);
  expect(tf.memory().numTensors).toBe(before);
  return result;
}

const one = (
  newLp: number,
  advantage: number,
  options: Partial<GrpoLossOptions> = {},
  old = 0,
  ref: number | null = null,
) =>
  evaluate({
    logprobs: [[0, newLp]],
    oldLogprobs: [[0, old]],
    refLogprobs: ref === null ? null : [[0, ref]],
    actionMask: [[0, 1]],
    advantages: [advantage],
    options: { clipEps: 0.2, klCoef: 0, aggregation: 'seed', ...options },
  });

for (const backend of ['cpu', 'wasm'] as const) {
  describe(`grpoLoss on ${backend}`, () => {
    beforeAll(async () => {
      expect(await tf.setBackend(backend)).toBe(true);
      await tf.ready();
    });

    it('inside the clip range: loss -ratio*A, gradient -ratio*A', () => {
      const r = one(Math.log(1.1), 2);
      expect(r.loss).toBeCloseTo(-2.2, 5);
      expect(r.grad[0]![1]).toBeCloseTo(-2.2, 5);
      expect(r.clipFraction).toBe(0);
      expect(r.ratioMean).toBeCloseTo(1.1, 5);
    });

    it('ratio above 1+eps: clipped (zero gradient) for A>0, unclipped for A<0', () => {
      const up = one(Math.log(1.5), 1);
      expect(up.loss).toBeCloseTo(-1.2, 5);
      expect(Math.abs(up.grad[0]![1]!)).toBe(0);
      expect(up.clipFraction).toBe(1);
      const down = one(Math.log(1.5), -1);
      expect(down.loss).toBeCloseTo(1.5, 5);
      expect(down.grad[0]![1]).toBeCloseTo(1.5, 5);
      expect(down.clipFraction).toBe(0);
    });

    it('ratio below 1-eps: clipped for A<0, unclipped for A>0', () => {
      const down = one(Math.log(0.5), -1);
      expect(down.loss).toBeCloseTo(0.8, 5);
      expect(Math.abs(down.grad[0]![1]!)).toBe(0);
      expect(down.clipFraction).toBe(1);
      const up = one(Math.log(0.5), 1);
      expect(up.loss).toBeCloseTo(-0.5, 5);
      expect(up.grad[0]![1]).toBeCloseTo(-0.5, 5);
    });

    it('eps_high widens only the upper bound', () => {
      const symmetric = one(Math.log(1.25), 1);
      expect(symmetric.loss).toBeCloseTo(-1.2, 5);
      const higher = one(Math.log(1.25), 1, { clipEpsHigh: 0.28 });
      expect(higher.loss).toBeCloseTo(-1.25, 5);
      expect(higher.grad[0]![1]).toBeCloseTo(-1.25, 5);
      const low = one(Math.log(0.75), -1, { clipEpsHigh: 0.28 });
      expect(low.loss).toBeCloseTo(0.8, 5);
      expect(Math.abs(low.grad[0]![1]!)).toBe(0);
    });

    it('k3 KL: value exp(d) - d - 1 and gradient 1 - exp(d), d = ref - new, times beta', () => {
      const d = 0.5;
      const r = one(-1, 0, { klCoef: 0.04 }, -1, -1 + d);
      expect(r.kl).toBeCloseTo(Math.exp(d) - d - 1, 6);
      expect(r.loss).toBeCloseTo(0.04 * (Math.exp(d) - d - 1), 6);
      expect(r.grad[0]![1]).toBeCloseTo(0.04 * (1 - Math.exp(d)), 6);
      const noRef = one(-1, 0, { klCoef: 0.04 }, -1, null);
      expect(noRef.loss).toBe(0);
      expect(noRef.kl).toBe(0);
    });

    // Detached old log-probs: ratio 1, per-token loss -A; row 0 has 2 action tokens (A=1),
    // row 1 has 1 (A=2), row 2 has none (A=5, must not count).
    const aggregationBatch = (aggregation: Aggregation) =>
      evaluate({
        logprobs: [
          [-1, -2, -3, -4],
          [-1, -2, -3, -4],
          [-1, -2, -3, -4],
        ],
        oldLogprobs: null,
        refLogprobs: null,
        actionMask: [
          [0, 1, 1, 0],
          [0, 0, 1, 0],
          [0, 0, 0, 0],
        ],
        advantages: [1, 2, 5],
        options: { clipEps: 0.2, klCoef: 0.04, aggregation, maxTokens: 4 },
      });

    it("'seed' averages each trajectory, then trajectories with action tokens", () => {
      const r = aggregationBatch('seed');
      expect(r.loss).toBeCloseTo(-1.5, 6);
      expect(r.grad).toEqual(
        [
          [0, -0.25, -0.25, 0],
          [0, 0, -1, 0],
          [0, 0, 0, 0],
        ].map((row) => row.map((v) => expect.closeTo(v, 6))),
      );
      expect(r.actionTokens).toBe(3);
    });

    it("'token' averages over all action tokens", () => {
      const r = aggregationBatch('token');
      expect(r.loss).toBeCloseTo(-4 / 3, 6);
      expect(r.grad[0]![1]).toBeCloseTo(-1 / 3, 6);
      expect(r.grad[1]![2]).toBeCloseTo(-2 / 3, 6);
    });

    it("'dr_grpo' divides by B * maxTokens", () => {
      const r = aggregationBatch('dr_grpo');
      expect(r.loss).toBeCloseTo(-4 / 12, 6);
      expect(r.grad[1]![2]).toBeCloseTo(-2 / 12, 6);
      expect(() =>
        grpoLoss(
          {
            logprobs: tf.zeros([1, 2]),
            oldLogprobs: null,
            refLogprobs: null,
            actionMask: tf.ones([1, 2]),
            advantages: tf.zeros([1]),
          },
          { clipEps: 0.2, klCoef: 0, aggregation: 'dr_grpo' },
        ),
      ).toThrow(/maxTokens/);
    });

    it('masked tokens contribute nothing to loss or gradient, whatever junk they hold', () => {
      const base = {
        logprobs: [[-1, -2, -0.5]],
        actionMask: [[0, 1, 0]],
        advantages: [1.5],
        options: { clipEps: 0.2, klCoef: 0.04, aggregation: 'seed' as const },
      };
      const clean = evaluate({ ...base, oldLogprobs: [[0, -2.1, 0]], refLogprobs: [[0, -1.8, 0]] });
      const junk = evaluate({
        ...base,
        oldLogprobs: [[40, -2.1, -60]],
        refLogprobs: [[-70, -1.8, 30]],
      });
      expect(junk.loss).toBeCloseTo(clean.loss, 6);
      expect(Math.abs(junk.grad[0]![0]!)).toBe(0);
      expect(Math.abs(junk.grad[0]![2]!)).toBe(0);
      expect(junk.grad[0]![1]).toBeCloseTo(clean.grad[0]![1]!, 6);
      expect(junk.grad[0]![1]).not.toBe(0);
    });

    it('rejects mismatched shapes and bad options with a fix', () => {
      const inputs = {
        logprobs: tf.zeros([2, 3]) as tf.Tensor2D,
        oldLogprobs: tf.zeros([2, 4]) as tf.Tensor2D,
        refLogprobs: null,
        actionMask: tf.ones([2, 3]) as tf.Tensor2D,
        advantages: tf.zeros([2]) as tf.Tensor1D,
      };
      expect(() => grpoLoss(inputs, { clipEps: 0.2, klCoef: 0, aggregation: 'seed' })).toThrow(
        /oldLogprobs has shape \[2,4\].*Fix/,
      );
      expect(() =>
        grpoLoss(
          { ...inputs, oldLogprobs: null },
          { clipEps: 1.5, klCoef: 0, aggregation: 'seed' },
        ),
      ).toThrow(/clipEps.*Fix/);
      expect(() =>
        grpoLoss(
          { ...inputs, oldLogprobs: null },
          { clipEps: 0.2, klCoef: 0, aggregation: 'mean' as Aggregation },
        ),
      ).toThrow(/aggregation.*Fix/);
      tf.dispose([inputs.logprobs, inputs.oldLogprobs, inputs.actionMask, inputs.advantages]);
    });

    for (const c of golden.cases) {
      it(`matches PyTorch: ${c.name}`, () => {
        const r = evaluate(c);
        expect(Math.abs(r.loss - c.loss)).toBeLessThan(1e-5);
        r.grad.forEach((row, b) =>
          row.forEach((g, t) => expect(Math.abs(g - c.grad[b]![t]!)).toBeLessThan(1e-5)),
        );
        expect(r.kl).toBeCloseTo(c.kl, 5);
        expect(r.clipFraction).toBeCloseTo(c.clipFraction, 6);
        expect(r.ratioMean).toBeCloseTo(c.ratioMean, 5);
        expect(r.actionTokens).toBe(c.actionTokens);
      });
    }

    it('micro-batches with the whole batch normalizer sum to the full-batch loss and gradient', () => {
      for (const c of golden.cases.slice(0, 4)) {
        const full = evaluate(c);
        const counts = c.actionMask.map((row) => row.reduce((s, m) => s + m, 0));
        const normalizer = lossNormalizer(counts, c.options.aggregation, c.options.maxTokens);
        const rows = (x: number[][] | null, from: number, to: number) =>
          x ? x.slice(from, to) : null;
        const halves = [
          [0, 2],
          [2, c.advantages.length],
        ].map(([from, to]) =>
          evaluate({
            logprobs: c.logprobs.slice(from, to),
            oldLogprobs: rows(c.oldLogprobs, from!, to!),
            refLogprobs: rows(c.refLogprobs, from!, to!),
            actionMask: c.actionMask.slice(from, to),
            advantages: c.advantages.slice(from, to),
            options: { ...c.options, normalizer },
          }),
        );
        expect(halves[0]!.loss + halves[1]!.loss).toBeCloseTo(full.loss, 5);
        expect(
          [...halves[0]!.grad, ...halves[1]!.grad].flat().map((g) => expect.closeTo(g, 6)),
        ).toEqual(full.grad.flat());
      }
    });
  });
}
