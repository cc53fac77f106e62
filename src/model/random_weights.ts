// Randomly initialized weights in the Hugging Face layout, for benchmarks, tests and models we
// pretrain ourselves: normal(0, 0.02) projections (as transformers' initializer_range), unit
// RMSNorm weights, zero biases. Deterministic for a seed.
import type { ModelConfig } from '../model_files/hf_config.ts';
import { halfToFloat } from '../model_files/safetensors.ts';
import { floatToBf16Bits } from '../model_files/safetensors_write.ts';
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

/**
 * `source` as a 16-bit checkpoint would ship it: its matrices (2-D tensors) rounded to BF16 (to
 * nearest even) or F16, offered as 16-bit values (`bits16`) and as their exact float32 widening
 * (`float32`); norms and biases stay F32. The 16-bit and the float32 paths then hold the same
 * numbers, so a model loaded either way must compute the same function.
 */
export function sixteenBitWeights(
  source: WeightSource & { names(): string[] },
  kind: 'BF16' | 'F16',
): WeightSource & { names(): string[] } {
  const round = kind === 'BF16' ? floatToBf16Bits : floatToHalfBits;
  const widen = kind === 'BF16' ? (b: number) => bf16ToFloat(b) : halfToFloat;
  const matrix = (name: string) => source.shape(name).length === 2;
  const bits = (name: string) => Uint16Array.from(source.float32(name), round);
  return {
    names: () => source.names(),
    has: (name) => source.has(name),
    shape: (name) => source.shape(name),
    dtype: (name) => (matrix(name) ? kind : 'F32'),
    bits16: bits,
    float32: (name) => (matrix(name) ? Float32Array.from(bits(name), widen) : source.float32(name)),
  };
}

function bf16ToFloat(bits: number): number {
  const out = new Float32Array(1);
  new Uint32Array(out.buffer)[0] = bits << 16;
  return out[0]!;
}

/** IEEE half-precision bits of `value`, rounded to nearest even (subnormals included). */
export function floatToHalfBits(value: number): number {
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const magnitude = Math.abs(value);
  if (Number.isNaN(value)) return 0x7e00;
  if (magnitude >= 65520) return sign | 0x7c00; // past the largest half (65504) after rounding
  if (magnitude < 2 ** -14) return sign | roundEven(magnitude / 2 ** -24); // subnormal (or 0x400)
  const exponent = Math.floor(Math.log2(magnitude));
  const e = magnitude >= 2 ** (exponent + 1) ? exponent + 1 : exponent; // log2's rounding
  const fraction = roundEven((magnitude / 2 ** e - 1) * 1024);
  return fraction === 1024 ? sign | ((e + 16) << 10) : sign | ((e + 15) << 10) | fraction;
}

function roundEven(x: number): number {
  const floor = Math.floor(x);
  const rest = x - floor;
  return rest > 0.5 || (rest === 0.5 && floor % 2 === 1) ? floor + 1 : floor;
}
