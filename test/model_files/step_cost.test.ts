// The cost of a GRPO step (src/model_files/step_cost.ts), worked by hand on a toy config, then
// checked on the demo model's and Qwen2.5-0.5B's shapes against sums written out independently.
import { describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import {
  causalPairs,
  estimateStepSeconds,
  formatDuration,
  headWeights,
  layerProductWeights,
  sequenceTokens,
  type StepShape,
} from '../../src/model_files/step_cost.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { resolveRun } from '../../src/run/resolve.ts';
import { readFileSync } from 'node:fs';

// D 4, I 8, L 1, H 2, KV 1, hd 2, V 10, tied:
//   Pl = 1 (4·2·2 + 2·4·1·2 + 2·2·4 + 3·4·8) = 16 + 16 + 16 + 96 = 144; Ph = 4·10 = 40
//   attention per (query, key) pair: 4 L H hd = 16; KV cache per token: 2 L KV hd · 4 B = 16 B
const toy = parseModelConfig({
  model_type: 'llama',
  vocab_size: 10,
  hidden_size: 4,
  intermediate_size: 8,
  num_hidden_layers: 1,
  num_attention_heads: 2,
  num_key_value_heads: 1,
  tie_word_embeddings: true,
});

/** 2 sequences of 1 prompt (3 tokens), 2 turns of 2 tokens, a 1-token observation between. */
const toyShape: StepShape = {
  sequences: 2,
  prompts: 1,
  turns: 2,
  tokensPerTurn: 2,
  promptTokens: 3,
  observationTokens: 1,
  ppoEpochs: 1,
  microBatch: 1,
  full: false,
  reference: false,
};
const GIGA = { gflops: 1, bandwidthGBs: 1 }; // 1e9 FLOP/s, 1e9 B/s: seconds = FLOPs (or bytes) / 1e9

const qwen05b = parseModelConfig({
  architectures: ['Qwen2ForCausalLM'],
  model_type: 'qwen2',
  hidden_size: 896,
  intermediate_size: 4864,
  num_hidden_layers: 24,
  num_attention_heads: 14,
  num_key_value_heads: 2,
  vocab_size: 151936,
  tie_word_embeddings: true,
  max_position_embeddings: 32768,
  use_sliding_window: false,
  torch_dtype: 'bfloat16',
});

describe('step cost', () => {
  it('counts the weights of the products and causal attention pairs by hand', () => {
    expect(layerProductWeights(toy)).toBe(144);
    expect(headWeights(toy)).toBe(40);
    expect(causalPairs(3, 0)).toBe(6); // 1 + 2 + 3
    expect(causalPairs(1, 5)).toBe(6); // one new token after 5: 5 keys and itself
    expect(sequenceTokens(toyShape)).toBe(8); // 3 + 2·2 + 1
  });

  it('works a toy step out by hand: prefill, decoding, the update (LoRA, no reference)', () => {
    const cost = estimateStepSeconds(toy, toyShape, GIGA);
    // prefill: the prompt once, 2·144·3 + 16·6 = 960; turn 2's observation per sequence,
    //   2·(2·144·1 + 16·causalPairs(1, 5) = 96) = 768
    // decoding, 2·(2·184 + 16·keys) per step at keys 4, 5 (turn 1) and 7, 8 (turn 2):
    //   864 + 896 + 960 + 992 = 3712; bytes per step 184·2 + 2·keys·16 (496 … 624) stay below
    const rollout = 960 + 768 + 3712;
    expect(cost.rolloutFlops).toBe(rollout);
    expect(cost.rolloutSeconds).toBeCloseTo(rollout * 1e-9, 15);
    // update: rows 2·8 = 16, pairs 2·36 = 72; forward 2·144·16 + 16·72 + 2·40·16 = 7040;
    // backward (dx only) 2·144·16 + 2·16·72 + 2·40·16 = 8192
    expect(cost.updateFlops).toBe(7040 + 8192);
    expect(cost.flops).toBe(rollout + 15232);
    expect(cost.seconds).toBeCloseTo((rollout + 15232) * 1e-9, 15);
    expect(cost.decodeWeightBytes).toBe(184 * 2);
  });

  it('adds the reference pass when β > 0 and a forward and backward per PPO epoch', () => {
    expect(estimateStepSeconds(toy, { ...toyShape, reference: true }, GIGA).updateFlops).toBe(
      7040 + 15232,
    );
    expect(
      estimateStepSeconds(toy, { ...toyShape, reference: true, ppoEpochs: 2 }, GIGA).updateFlops,
    ).toBe(7040 + 2 * 15232);
  });

  it('runs a shared prompt once per micro-batch, within microBatchTokens', () => {
    // micro-batch 2: rows 3 + 2·5 = 13, pairs 6 + 2·causalPairs(5, 3) = 66, head rows 2·5 = 10;
    // forward 2·144·13 + 16·66 + 2·40·10 = 5600, backward 3744 + 2·1056 + 800 = 6656
    expect(estimateStepSeconds(toy, { ...toyShape, microBatch: 2 }, GIGA).updateFlops).toBe(12256);
    // 13 rows do not fit 12: one sequence a micro-batch again
    expect(
      estimateStepSeconds(toy, { ...toyShape, microBatch: 2, microBatchTokens: 12 }, GIGA)
        .updateFlops,
    ).toBe(15232);
  });

  it('recomputes the layers in the backward pass when activations pass their budget', () => {
    // one more forward of the layers: 2·144·16 + 16·72 = 5760
    expect(
      estimateStepSeconds(toy, { ...toyShape, activationBudgetBytes: 1 }, GIGA).updateFlops,
    ).toBe(15232 + 5760);
    expect(
      estimateStepSeconds(toy, { ...toyShape, activationBudgetBytes: 2 ** 30 }, GIGA).updateFlops,
    ).toBe(15232);
  });

  it('takes decoding as bound by bandwidth where streaming the weights is slower', () => {
    const slow = estimateStepSeconds(toy, toyShape, { gflops: 1, bandwidthGBs: 0.1 });
    // bytes 496, 528, 592, 624 at 1e8 B/s are 4960 … 6240 ns, over the FLOPs' 864 … 992 ns
    expect(slow.rolloutSeconds).toBeCloseTo((960 + 768 + 4960 + 5280 + 5920 + 6240) * 1e-9, 15);
    expect(slow.rolloutFlops).toBe(960 + 768 + 3712); // the FLOPs do not change
  });

  it('streams the weights once per wave where the rollout keeps fewer episodes under way', () => {
    // the toy's KV cache is 16 B a token: at 2^26 tokens a sequence, 2 GiB holds 2 sequences, so 4
    // decode in 2 waves of 2, each streaming the 368 weight bytes for each of its 4 tokens
    const four = { ...toyShape, prompts: 2, sequences: 4 };
    const all = estimateStepSeconds(toy, four, { gflops: 1, bandwidthGBs: 0.1 });
    const waves = estimateStepSeconds(
      toy,
      { ...four, contextTokens: 2 ** 26 },
      { gflops: 1, bandwidthGBs: 0.1 },
    );
    expect(waves.rolloutFlops).toBe(all.rolloutFlops); // the same work
    expect(waves.rolloutSeconds - all.rolloutSeconds).toBeCloseTo(4 * 368 * 1e-8, 15);
  });

  it('counts dW and AdamW in full fine-tuning, with float32 weights streamed', () => {
    const full = estimateStepSeconds(toy, { ...toyShape, full: true }, GIGA);
    // backward 4·144·16 + 2·16·72 + 4·40·16 = 14080; AdamW 28 B × 196 parameters = 5488 B
    expect(full.updateFlops).toBe(7040 + 14080);
    expect(full.updateSeconds).toBeCloseTo((21120 + 5488) * 1e-9, 15);
    expect(full.decodeWeightBytes).toBe(184 * 4);
  });

  it('adds the fixed costs by hand: a decoding step, a layer in it, a turn, a layer in a pass', () => {
    const plain = estimateStepSeconds(toy, toyShape, GIGA);
    const fixed = estimateStepSeconds(toy, toyShape, {
      ...GIGA,
      decodeStepSeconds: 1e-6,
      decodeLayerSeconds: 2e-6,
      turnSeconds: 1e-3,
      passLayerSeconds: 1e-5,
    });
    // 4 decoding steps of (1 + 1 layer · 2) µs, 2 turns of 1 ms
    expect(fixed.rolloutSeconds - plain.rolloutSeconds).toBeCloseTo(4 * 3e-6 + 2e-3, 15);
    // 2 passes (a forward and a backward, no reference) over 2 micro-batches of 1 layer
    expect(fixed.updateSeconds - plain.updateSeconds).toBeCloseTo(2 * 2 * 1e-5, 15);
    // with the reference and 2 epochs: 1 + 2·2 passes
    const five = (speed: object) =>
      estimateStepSeconds(toy, { ...toyShape, reference: true, ppoEpochs: 2 }, speed as never);
    expect(
      five({ ...GIGA, passLayerSeconds: 1e-5 }).updateSeconds - five(GIGA).updateSeconds,
    ).toBeCloseTo(5 * 2 * 1e-5, 15);
    // decoding's own rate: its 3712 FLOPs at 0.5 GFLOP/s, prefill's 1728 at 1
    const decodeRate = estimateStepSeconds(toy, toyShape, { ...GIGA, decodeGflops: 0.5 });
    expect(decodeRate.rolloutSeconds).toBeCloseTo((1728 + 2 * 3712) * 1e-9, 15);
    expect(decodeRate.flops).toBe(plain.flops);
  });

  it('counts measured episodes where the shape has them, fractions of turns and steps included', () => {
    const plain = estimateStepSeconds(toy, toyShape, GIGA);
    // episodes that run every turn to its limit: the same as no profile
    const full = { turns: 2, tokens: 4, decodeSteps: 4 };
    expect(estimateStepSeconds(toy, { ...toyShape, generation: full }, GIGA)).toEqual(plain);
    // one turn of 2 tokens: prefill 960, decoding at keys 4, 5 (864 + 896); 5 tokens a sequence:
    // rows 10, pairs 2·15; forward 2·144·10 + 16·30 + 2·40·10 = 4160, backward 2880 + 960 + 800
    const one = { ...toyShape, generation: { turns: 1, tokens: 2, decodeSteps: 2 } };
    expect(sequenceTokens(one)).toBe(5);
    const oneCost = estimateStepSeconds(toy, one, GIGA);
    expect(oneCost.rolloutFlops).toBe(960 + 1760);
    expect(oneCost.updateFlops).toBe(4160 + 4640);
    // 1.5 turns: the second turn counts half, its observation (768) and steps at keys 7, 8 (1952)
    const half = { ...toyShape, generation: { turns: 1.5, tokens: 3, decodeSteps: 3 } };
    expect(estimateStepSeconds(toy, half, GIGA).rolloutFlops).toBe(960 + 1760 + 384 + 976);
    // 1 token a sequence over 2 decoding steps: the batch's 2 rows spread over them, 1 a step, at
    // keys 3.5 and 4: 368 + 16·3.5 = 424 and 368 + 64 = 432
    const sparse = { ...toyShape, generation: { turns: 1, tokens: 1, decodeSteps: 2 } };
    expect(estimateStepSeconds(toy, sparse, GIGA).rolloutFlops).toBe(960 + 424 + 432);
  });

  it('refuses a speed that is not positive', () => {
    expect(() => estimateStepSeconds(toy, toyShape, { gflops: 0, bandwidthGBs: 1 })).toThrow(
      /speeds must be positive/,
    );
  });

  it("sizes the demo model's products", () => {
    const demo = parseModelConfig(
      JSON.parse(readFileSync('public/models/demo/config.json', 'utf8')),
    );
    // 4 (192·192·4 + 3·192·576) = 4 (147456 + 331776); the head 192 · 1536
    expect(layerProductWeights(demo)).toBe(1_916_928);
    expect(headWeights(demo)).toBe(294_912);
    const cost = estimateStepSeconds(demo, resolveRun(presetConfig('default')).stepShape, {
      gflops: 50,
      bandwidthGBs: 20,
    });
    expect(cost.seconds).toBeGreaterThan(0.5);
    expect(cost.seconds).toBeLessThan(30);
  });

  it('tells that Qwen2.5-0.5B on a laptop CPU takes many minutes a step (the default run)', () => {
    // Pl = 24 (896·896 + 2·896·128 + 896·896 + 3·896·4864) = 24 · 14909440; Ph = 896 · 151936
    expect(layerProductWeights(qwen05b)).toBe(357_826_560);
    expect(headWeights(qwen05b)).toBe(136_134_656);
    const shape: StepShape = {
      sequences: 18,
      prompts: 3,
      turns: 3,
      tokensPerTurn: 128,
      promptTokens: 200,
      observationTokens: 187,
      ppoEpochs: 2,
      microBatch: 1,
      full: false,
      reference: true,
    };
    const cost = estimateStepSeconds(qwen05b, shape, { gflops: 30, bandwidthGBs: 15 });
    // 16-bit weights: 2 (Pl + Ph) = 987 922 432 bytes streamed per decoding step
    expect(cost.decodeWeightBytes).toBe(987_922_432);
    // decoding: 18 (384 · 2 (Pl + Ph) + 86016 · Σ keys), Σ keys = 128 (200 + 515 + 830) + 3 · 8256
    const decode = 18 * (384 * 987_922_432 + 86_016 * 222_528);
    // prefill: 3 prompts (2 Pl 200 + 86016 · 20100), then 18 × the observations of turns 2 and 3
    // (2 Pl 187 + 86016 · pairs of 187 after 328 and after 643 tokens: 78914 and 137819)
    const prefill =
      3 * (2 * 357_826_560 * 200 + 86_016 * 20_100) +
      18 * (2 * 2 * 357_826_560 * 187 + 86_016 * (78_914 + 137_819));
    expect(cost.rolloutFlops).toBe(decode + prefill);
    // update: T = 958 tokens, rows 18 · 958 = 17244, pairs 18 · 958 · 959 / 2; forward
    // 2 (Pl + Ph) rows + 86016 pairs; backward the same doubled for attention plus the
    // vocabulary projection recomputed (958 rows × 151936 logits pass one chunk); the reference
    // pass and 2 PPO epochs
    const rows = 17_244;
    const pairs = (18 * 958 * 959) / 2;
    const forward = 2 * (357_826_560 + 136_134_656) * rows + 86_016 * pairs;
    const backward = forward + 86_016 * pairs + 2 * 136_134_656 * rows;
    expect(cost.updateFlops).toBe(forward + 2 * (forward + backward));
    expect(cost.flops).toBeCloseTo(1.123e14, -11);
    // at batch 18 decoding is compute-bound: ~18 GFLOP a step against ~1 GB streamed
    expect(cost.rolloutSeconds).toBeCloseTo(cost.rolloutFlops / 30e9, 6);
    expect(cost.seconds / 60).toBeGreaterThan(30); // about an hour at 30 GFLOP/s
  });

  it('reads the shape off a run config', () => {
    const shape = resolveRun(presetConfig('default')).stepShape;
    expect(shape).toMatchObject({
      sequences: 18,
      prompts: 3,
      turns: 3,
      tokensPerTurn: 128,
      ppoEpochs: 2,
      full: false,
      reference: true,
    });
    expect(resolveRun(presetConfig('default', { klCoef: 0 })).stepShape.reference).toBe(false);
  });

  it('formats durations in the unit a person reads', () => {
    expect(formatDuration(0.84)).toBe('0.8 s');
    expect(formatDuration(42.4)).toBe('42 s');
    expect(formatDuration(210)).toBe('3.5 min');
    expect(formatDuration(2400)).toBe('40 min');
    expect(formatDuration(7560)).toBe('2.1 h');
  });
});
