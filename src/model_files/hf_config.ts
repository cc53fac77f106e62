// The decoder's hyper-parameters, read from a Hugging Face config.json (Llama, Qwen2 and Qwen3
// families; Qwen3 is Qwen2's decoder without q/k/v biases, with an RMSNorm over each query and key
// head before RoPE).
// Anything we would silently compute wrongly (another architecture, a rope scaling we do not
// implement, sliding-window attention in use, quantized weights) is refused with a message.

/** RoPE frequency scaling we implement: none, linear position interpolation, or Llama 3's. */
export type RopeScaling =
  | { type: 'default' }
  | { type: 'linear'; factor: number }
  | {
      type: 'llama3';
      factor: number;
      lowFreqFactor: number;
      highFreqFactor: number;
      originalMaxPositions: number;
    };

/** Everything the decoder needs to know about its shapes and numerics. */
export interface ModelConfig {
  family: 'llama' | 'qwen2' | 'qwen3';
  vocabSize: number;
  hiddenSize: number;
  intermediateSize: number;
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  rmsNormEps: number;
  ropeTheta: number;
  ropeScaling: RopeScaling;
  maxPositions: number;
  tieWordEmbeddings: boolean;
  /** Bias on q, k, v projections (Qwen2 always; Llama with attention_bias). */
  qkvBias: boolean;
  /** Bias on the attention output projection (Llama and Qwen3 with attention_bias). */
  outputBias: boolean;
  /** RMSNorm over each query and key head (head width) before RoPE: Qwen3's q_norm and k_norm. */
  qkNorm: boolean;
  /** Bias on gate, up and down projections (Llama with mlp_bias). */
  mlpBias: boolean;
  bosTokenId: number | null;
  eosTokenIds: number[];
  padTokenId: number | null;
}

const families: Record<string, { architecture: string; family: ModelConfig['family'] }> = {
  llama: { architecture: 'LlamaForCausalLM', family: 'llama' },
  qwen2: { architecture: 'Qwen2ForCausalLM', family: 'qwen2' },
  qwen3: { architecture: 'Qwen3ForCausalLM', family: 'qwen3' },
};

/** Parses and validates a config.json object; `where` names the file in error messages. */
export function parseModelConfig(json: unknown, where = 'config.json'): ModelConfig {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error(`${where}: expected a JSON object`);
  const raw = json as Record<string, unknown>;
  const refuse = (why: string): never => {
    throw new Error(`${where}: unsupported model: ${why}`);
  };
  const modelType = String(raw.model_type ?? '');
  const known = families[modelType];
  if (!known)
    refuse(
      `model_type ${JSON.stringify(modelType)}; supported: ${Object.keys(families).join(', ')} (${Object.values(
        families,
      )
        .map((f) => f.architecture)
        .join(', ')})`,
    );
  const { architecture, family } = known!;
  const architectures = raw.architectures;
  if (Array.isArray(architectures) && !architectures.includes(architecture)) {
    refuse(
      `architectures ${JSON.stringify(architectures)}; expected ${architecture} for model_type ${modelType}`,
    );
  }
  const int = (key: string, fallback?: number): number => {
    const value = raw[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
      throw new Error(
        `${where}: ${key} must be a positive integer, got ${JSON.stringify(raw[key])}`,
      );
    }
    return value;
  };
  const positive = (value: unknown, key: string): number => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new Error(`${where}: ${key} must be a positive number, got ${JSON.stringify(value)}`);
    }
    return value;
  };
  const num = (key: string, fallback: number): number => positive(raw[key] ?? fallback, key);
  const hiddenAct = raw.hidden_act ?? 'silu';
  if (hiddenAct !== 'silu')
    refuse(`hidden_act ${JSON.stringify(hiddenAct)}; only silu (SwiGLU) is implemented`);
  if (raw.quantization_config != null)
    refuse('quantized weights (quantization_config); use an unquantized F32/BF16/F16 checkpoint');
  if (raw.use_sliding_window === true)
    refuse('use_sliding_window is true; sliding-window attention is not implemented');
  const layerTypes = raw.layer_types;
  if (
    layerTypes != null &&
    (!Array.isArray(layerTypes) || layerTypes.some((type) => type !== 'full_attention'))
  ) {
    refuse(`layer_types ${JSON.stringify(layerTypes)}; only full_attention layers are implemented`);
  }
  if ((raw.attention_dropout ?? 0) !== 0) refuse('attention_dropout must be 0');

  const hiddenSize = int('hidden_size');
  const numHeads = int('num_attention_heads');
  const numKvHeads = int('num_key_value_heads', numHeads);
  if (numHeads % numKvHeads !== 0)
    refuse(
      `num_attention_heads ${numHeads} is not a multiple of num_key_value_heads ${numKvHeads}`,
    );
  // transformers' Qwen3Config defaults head_dim to 128 (Qwen3-0.6B: hidden 1024, 16 heads of 128);
  // the others to hidden / heads
  const headDim =
    raw.head_dim == null ? (family === 'qwen3' ? 128 : hiddenSize / numHeads) : int('head_dim');
  if (!Number.isInteger(headDim) || headDim % 2 !== 0)
    refuse(`head dimension ${headDim} must be an even integer`);
  // transformers 5 writes RoPE's settings as rope_parameters ({rope_type, rope_theta, ...}) instead
  // of rope_theta and rope_scaling: read either, so a saved-by-v5 config never runs with the
  // default theta
  const ropeParameters = raw.rope_parameters;
  if (
    ropeParameters != null &&
    (typeof ropeParameters !== 'object' || Array.isArray(ropeParameters))
  )
    refuse(`rope_parameters ${JSON.stringify(ropeParameters)} is not an object`);
  const rope = (ropeParameters ?? {}) as Record<string, unknown>;
  const partialRotary = raw.partial_rotary_factor ?? rope.partial_rotary_factor;
  if (partialRotary != null && partialRotary !== 1) refuse('partial_rotary_factor other than 1');

  const attentionBias = raw.attention_bias === true;
  return {
    family,
    vocabSize: int('vocab_size'),
    hiddenSize,
    intermediateSize: int('intermediate_size'),
    numLayers: int('num_hidden_layers'),
    numHeads,
    numKvHeads,
    headDim,
    rmsNormEps: num('rms_norm_eps', 1e-6),
    ropeTheta:
      raw.rope_theta == null && rope.rope_theta != null
        ? positive(rope.rope_theta, 'rope_parameters.rope_theta')
        : num('rope_theta', 10000),
    ropeScaling: parseRopeScaling(raw.rope_scaling ?? ropeParameters, refuse),
    maxPositions: int('max_position_embeddings', 2048),
    // transformers' LlamaConfig, Qwen2Config and Qwen3Config all default to untied embeddings
    tieWordEmbeddings: raw.tie_word_embeddings === true,
    qkvBias: family === 'qwen2' || attentionBias,
    outputBias: family !== 'qwen2' && attentionBias,
    qkNorm: family === 'qwen3',
    mlpBias: family === 'llama' && raw.mlp_bias === true,
    bosTokenId: optionalId(raw.bos_token_id),
    eosTokenIds: idList(raw.eos_token_id),
    padTokenId: optionalId(raw.pad_token_id),
  };
}

function parseRopeScaling(value: unknown, refuse: (why: string) => never): RopeScaling {
  if (value == null) return { type: 'default' };
  if (typeof value !== 'object' || Array.isArray(value))
    return refuse(`rope_scaling ${JSON.stringify(value)} is not an object`);
  const scaling = value as Record<string, unknown>;
  const type = String(scaling.rope_type ?? scaling.type ?? 'default');
  const factor = Number(scaling.factor);
  if (type === 'default') return { type };
  if (!(factor > 0))
    refuse(`rope_scaling.factor ${JSON.stringify(scaling.factor)} must be a positive number`);
  if (type === 'linear') return { type, factor };
  if (type === 'llama3') {
    const lowFreqFactor = Number(scaling.low_freq_factor);
    const highFreqFactor = Number(scaling.high_freq_factor);
    const originalMaxPositions = Number(scaling.original_max_position_embeddings);
    if (!(lowFreqFactor > 0 && highFreqFactor > lowFreqFactor && originalMaxPositions > 0)) {
      refuse(
        `rope_scaling llama3 needs low_freq_factor < high_freq_factor and original_max_position_embeddings, got ${JSON.stringify(value)}`,
      );
    }
    return { type, factor, lowFreqFactor, highFreqFactor, originalMaxPositions };
  }
  return refuse(`rope_scaling type ${JSON.stringify(type)}; implemented: default, linear, llama3`);
}

function optionalId(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

function idList(value: unknown): number[] {
  const values = Array.isArray(value) ? value : [value];
  return values.filter(
    (id): id is number => typeof id === 'number' && Number.isInteger(id) && id >= 0,
  );
}
