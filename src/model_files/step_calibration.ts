// The speed the page's cost estimate counts on WASM (step_cost.ts), calibrated against steps
// measured on a reference machine rather than probed when the page opens: a half-second probe on a
// shared CPU read 20-87 GFLOP/s from one load to the next, so the estimate moved by 30% and more
// between loads, and a rate alone, with no fixed costs, made a tiny model's step 4-7x too long.
//
// The reference: a 2-core x86-64 VM (AMD EPYC), our kernels on 2 threads, Node or Chromium alike.
// The rates and fixed costs were fitted to these measurements, all the page's default run (G 6 x 3
// prompts, up to 3 turns of 128 tokens, 2 PPO epochs, KL on, LoRA r 8, frozen weights 16-bit):
//   `npm run bench -- --only scale` (docs/performance.md; every turn runs to its limit, random
//   weights): SmolLM2-135M's shapes 65 s rollout + 343 s update, SmolLM2-360M's 160 + 921, Qwen2.5-
//   0.5B's 157 + 1063, Qwen3-0.6B's 438 + 1596; batch-1 decoding 19.3 ms a token at 135M and 30.8
//   at 0.5B, batch 12 at 180 and 55.6 tokens/s:
//     gflops 93          the update's FLOPs over its seconds: 95, 90, 100 and 86 at the four shapes
//     decodeGflops 50    batch-12 decoding: 48 at 135M, 55 at 0.5B
//     bandwidthGBs 50 and decodeLayerSeconds 0.465 ms   batch 1 at the two shapes, solved together
//                        (the read bandwidth the bench measures on its own is 50-56 GB/s)
//   the demo model's default run (scripts/demo/default_run.ts, seed 1, 30 steps, DEMO_GENERATION):
//     decodeStepSeconds, passLayerSeconds, turnSeconds: the fixed costs that rule at its size
// test/model_files/step_calibration.test.ts checks the fit against each of these within 1.5x, and
// the bench's `estimate` figures check it against steps measured in the same run.
//
// Another CPU: the products' rates scale with the kernels' threads (at most 4); per-core speed, the
// bandwidth and the fixed costs are the reference's. The page says so, and shows the measured
// seconds once a step has run.
import { parseModelConfig, type ModelConfig } from './hf_config.ts';
import type { DeviceSpeed, GenerationProfile } from './step_cost.ts';

/** The machine the calibration was measured on, as the page names it. */
export const REFERENCE_MACHINE = 'a 2-core x86-64 VM';

/** Our kernels' threads on the reference machine. */
export const REFERENCE_THREADS = 2;

/** WASM's speed on the reference machine (the file comment gives each figure's source). */
export const WASM_REFERENCE: Required<DeviceSpeed> = {
  gflops: 93,
  decodeGflops: 50,
  bandwidthGBs: 50,
  decodeLayerSeconds: 0.465e-3,
  decodeStepSeconds: 0.3e-3,
  passLayerSeconds: 2e-3,
  turnSeconds: 0.05,
};

/**
 * WASM's speed with `threads` kernel threads: the products' rates scale with them from the
 * reference's two (WASM's kernels use at most 4), the rest stays the reference's.
 */
export function wasmSpeed(threads: number): Required<DeviceSpeed> {
  const scale = Math.min(4, Math.max(1, Math.floor(threads))) / REFERENCE_THREADS;
  return {
    ...WASM_REFERENCE,
    gflops: WASM_REFERENCE.gflops * scale,
    decodeGflops: WASM_REFERENCE.decodeGflops * scale,
  };
}

/**
 * The demo model's episodes in its default run (seed 1, 30 steps, means over the steps): turns,
 * tokens generated over them, and the rollout's decoding steps (StepMetrics decode_steps).
 */
export const DEMO_GENERATION: GenerationProfile = { turns: 2, tokens: 66, decodeSteps: 420 };

/** The demo model's config.json (public/models/demo/config.json; a test keeps them equal). */
export const DEMO_CONFIG_JSON = {
  architectures: ['LlamaForCausalLM'],
  model_type: 'llama',
  vocab_size: 1536,
  hidden_size: 192,
  intermediate_size: 576,
  num_hidden_layers: 4,
  num_attention_heads: 4,
  num_key_value_heads: 4,
  max_position_embeddings: 1024,
  hidden_act: 'silu',
  rms_norm_eps: 0.00001,
  rope_theta: 10000,
  rope_scaling: null,
  tie_word_embeddings: true,
  attention_bias: false,
  attention_dropout: 0,
  mlp_bias: false,
  bos_token_id: null,
  eos_token_id: 258,
  pad_token_id: 256,
  torch_dtype: 'bfloat16',
} as const;

/** The demo model's config, parsed: its estimate needs no request. */
export function demoModelConfig(): ModelConfig {
  return parseModelConfig(DEMO_CONFIG_JSON, 'the demo model');
}

const SHAPE_KEYS = [
  'hiddenSize',
  'intermediateSize',
  'numLayers',
  'numHeads',
  'numKvHeads',
  'headDim',
  'vocabSize',
] as const;

/**
 * Whether `config` has the demo model's shapes (the built-in model, or a copy of it picked as a
 * folder): its estimate then counts the demo's measured episodes, not every turn at its limit.
 */
export function isDemoShaped(config: ModelConfig): boolean {
  const demo = demoModelConfig();
  return SHAPE_KEYS.every((key) => config[key] === demo[key]);
}
