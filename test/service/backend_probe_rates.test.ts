// The rates `auto`'s probe hands the page's seconds-per-step estimate (backend_probe.ts
// probeRates, backend_choice.ts estimateSpeed): worked by hand on the toy config of
// step_cost.test.ts, and tied to step_cost.ts's own count of what a decoding step reads.
import { describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { estimateStepSeconds } from '../../src/model_files/step_cost.ts';
import { probeRates } from '../../src/service/backend_probe.ts';
import { estimateSpeed, type BackendProbe } from '../../src/service/backend_choice.ts';

// D 4, I 8, L 1, H 2, KV 1, hd 2, V 10: Pl = 144 product weights in the layers, Ph = 40 in the head
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
const W = 184;

describe('probeRates', () => {
  it('LoRA: 4 FLOPs a weight a trained token (forward, dx), 2 bytes a weight a decoding step', () => {
    // 0.001 ms a token: 4·184 FLOPs / 1e-6 s = 0.736 GFLOP/s; a 0.002 ms step: 368 B / 2e-6 s
    const rates = probeRates(toy, false, 0.002, 0.001);
    expect(rates.gflops).toBeCloseTo((4 * W) / 1e3, 12);
    expect(rates.bandwidthGBs).toBeCloseTo((2 * W) / 2e3, 12);
  });

  it('full fine-tuning: 6 FLOPs a weight (dW too), 4 bytes a weight (float32)', () => {
    const rates = probeRates(toy, true, 0.002, 0.001);
    expect(rates.gflops).toBeCloseTo((6 * W) / 1e3, 12);
    expect(rates.bandwidthGBs).toBeCloseTo((4 * W) / 2e3, 12);
  });

  it("counts the bytes step_cost.ts counts for a decoding step, so the probe's step comes back", () => {
    const shape = {
      sequences: 1,
      prompts: 1,
      turns: 1,
      tokensPerTurn: 1,
      promptTokens: 1,
      observationTokens: 0,
      ppoEpochs: 1,
      microBatch: 1,
      full: false,
      reference: false,
    };
    const cost = estimateStepSeconds(toy, shape, { gflops: 1, bandwidthGBs: 1 });
    expect(cost.decodeWeightBytes).toBe(2 * W);
  });
});

describe('estimateSpeed', () => {
  const measured = { backend: 'webgpu', gflops: 3, bandwidthGBs: 40, milliseconds: 500 };
  const probe = (gflops?: number): BackendProbe => ({
    key: 'k',
    chosen: 'webgpu',
    milliseconds: 1000,
    remembered: false,
    timings: [
      {
        backend: 'wasm',
        msPerToken: 2,
        decodeMsPerToken: 1,
        trainMsPerToken: 1,
        gflops: 20,
        bandwidthGBs: 9,
      },
      {
        backend: 'webgpu',
        msPerToken: 1,
        decodeMsPerToken: 0.5,
        trainMsPerToken: 0.5,
        ...(gflops ? { gflops, bandwidthGBs: 300 } : {}),
      },
    ],
  });

  it("takes the chosen backend's probe rates, saying so", () => {
    expect(estimateSpeed(measured, probe(900))).toEqual({
      ...measured,
      gflops: 900,
      bandwidthGBs: 300,
      from: 'probe',
    });
  });

  it('keeps the measured speed without a probe, or when the chosen one has no rates', () => {
    expect(estimateSpeed(measured, null)).toBe(measured);
    expect(estimateSpeed(measured, probe())).toBe(measured);
    expect(estimateSpeed(null, probe(900))).toBeNull();
  });
});
