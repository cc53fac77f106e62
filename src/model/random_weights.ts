// Randomly initialized weights in the Hugging Face layout, for benchmarks, tests and models we
// pretrain ourselves: normal(0, 0.02) projections (as transformers' initializer_range), unit
// RMSNorm weights, zero biases. Deterministic for a seed.
import type { ModelConfig } from '../model_files/hf_config.ts';
import type { WeightSource } from './params.ts';
import { Rng } from './rng.ts';

/** HF tensor names and shapes the config implies. */
export function expectedShapes(config: ModelConfig): Map<string, number[]> {
  const {
    hiddenSize: D,
    intermediateSize: F,
    vocabSize: V,
    numHeads: H,
    numKvHeads: Hkv,
    headDim: hd,
  } = config;
  const shapes = new Map<string, number[]>([['model.embed_tokens.weight', [V, D]]]);
  for (let i = 0; i < config.numLayers; i++) {
    const p = `model.layers.${i}`;
    shapes.set(`${p}.input_layernorm.weight`, [D]);
    shapes.set(`${p}.post_attention_layernorm.weight`, [D]);
    if (config.qkNorm) {
      shapes.set(`${p}.self_attn.q_norm.weight`, [hd]);
      shapes.set(`${p}.self_attn.k_norm.weight`, [hd]);
    }
    const linears: [string, number, number, boolean][] = [
      ['self_attn.q_proj', H * hd, D, config.qkvBias],
      ['self_attn.k_proj', Hkv * hd, D, config.qkvBias],
      ['self_attn.v_proj', Hkv * hd, D, config.qkvBias],
      ['self_attn.o_proj', D, H * hd, config.outputBias],
      ['mlp.gate_proj', F, D, config.mlpBias],
      ['mlp.up_proj', F, D, config.mlpBias],
      ['mlp.down_proj', D, F, config.mlpBias],
    ];
    for (const [name, outSize, inSize, bias] of linears) {
      shapes.set(`${p}.${name}.weight`, [outSize, inSize]);
      if (bias) shapes.set(`${p}.${name}.bias`, [outSize]);
    }
  }
  shapes.set('model.norm.weight', [D]);
  if (!config.tieWordEmbeddings) shapes.set('lm_head.weight', [V, D]);
  return shapes;
}

/**
 * Random weights for `config`; each tensor is drawn when first read, from its own seeded stream.
 */
export function randomWeights(
  config: ModelConfig,
  seed = 0,
  std = 0.02,
): WeightSource & { names(): string[] } {
  const shapes = expectedShapes(config);
  const names = [...shapes.keys()];
  return {
    names: () => names,
    has: (name) => shapes.has(name),
    shape: (name) => [...(shapes.get(name) ?? [])],
    float32(name) {
      const shape = shapes.get(name);
      if (!shape) throw new Error(`no tensor ${name} for this config`);
      const out = new Float32Array(shape.reduce((a, b) => a * b, 1));
      if (name.endsWith('norm.weight')) return out.fill(1);
      if (name.endsWith('.bias')) return out;
      const rng = new Rng(seed * 100_003 + names.indexOf(name));
      for (let i = 0; i < out.length; i += 2) {
        // Box-Muller: two normals from two uniforms
        const radius = std * Math.sqrt(-2 * Math.log(1 - rng.uniform()));
        const angle = 2 * Math.PI * rng.uniform();
        out[i] = radius * Math.cos(angle);
        if (i + 1 < out.length) out[i + 1] = radius * Math.sin(angle);
      }
      return out;
    },
  };
}
