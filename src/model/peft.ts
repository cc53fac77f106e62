// LoRA adapters in Hugging Face PEFT's format, so an adapter trained in the tab loads with
// `PeftModel.from_pretrained(base, folder)`: `adapter_config.json` and `adapter_model.safetensors`
// with keys `base_model.model.<module>.lora_A.weight` (r, in) and `…lora_B.weight` (out, r).
// We keep A as (in, r) and B as (r, out) (y = x A B), so both are transposed on the way out and in.
import * as tf from '@tensorflow/tfjs';
import type { LoraConfig } from './lora.ts';
import type { CausalLM } from './model.ts';
import { adapterVariables } from './params.ts';
import { parseSafetensors } from '../model_files/safetensors.ts';
import { writeSafetensors, type TensorToWrite } from '../model_files/safetensors_write.ts';

const PREFIX = 'base_model.model.';

/**
 * What `base_model_name_or_path` should say so that `AutoPeftModelForCausalLM` can find the base:
 * the hub id for a hub model (without the " (mirror url)" a non-default hub adds to its name), the
 * folder's own name for a local folder (its path on this machine means nothing elsewhere), and
 * 'demo' for the tab's embedded model (which has no hub id).
 */
export function peftBaseModelName(name: string, source: 'demo' | 'hub' | 'files' | 'path'): string {
  if (source === 'demo') return 'demo';
  if (source === 'hub') return name.split(' (')[0]!;
  const parts = name.split(/[\\/]+/).filter((part) => part !== '');
  return parts.at(-1) ?? name;
}

/** The two PEFT files of the model's current adapters. */
export async function exportPeftAdapter(
  model: CausalLM,
  baseModelName: string,
): Promise<Record<string, Uint8Array>> {
  if (model.training.kind !== 'lora')
    throw new Error(
      'this run trains no LoRA adapters (full-parameter mode): there is no adapter to export',
    );
  const lora: LoraConfig = model.training.lora;
  const tensors: TensorToWrite[] = [];
  for (const [name, variable] of adapterVariables(model.params)) {
    const transposed = tf.tidy(() => tf.transpose(variable));
    tensors.push({
      name: PREFIX + name,
      shape: [...transposed.shape],
      data: (await transposed.data()) as Float32Array,
    });
    transposed.dispose();
  }
  const config = {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: baseModelName,
    revision: null,
    r: lora.rank,
    lora_alpha: lora.alpha,
    lora_dropout: 0.0,
    target_modules: [...lora.targetModules],
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    init_lora_weights: true,
    modules_to_save: null,
    layers_to_transform: null,
    use_rslora: false,
    use_dora: false,
  };
  return {
    'adapter_config.json': new TextEncoder().encode(`${JSON.stringify(config, null, 2)}\n`),
    'adapter_model.safetensors': writeSafetensors(tensors, 'F32', { format: 'pt' }),
  };
}

/**
 * The adapter_config.json settings PEFT applies and this importer does not: each changes the
 * adapter's output (rsLoRA scales alpha/sqrt(r), not alpha/r; DoRA adds a magnitude vector;
 * fan_in_fan_out stores weights transposed; rank_pattern and alpha_pattern give some modules another
 * r or alpha), so an adapter that sets one is refused rather than loaded wrong. One message per
 * field set, naming it.
 */
export function unsupportedAdapterSettings(config: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const flags: [string, string][] = [
    [
      'use_rslora',
      'rank-stabilized LoRA scales by lora_alpha / sqrt(r); the tab scales by lora_alpha / r',
    ],
    ['use_dora', 'DoRA adds a learned magnitude per output; the tab has plain LoRA only'],
    [
      'fan_in_fan_out',
      'the weights are stored transposed (Conv1D layers); the tab reads Linear layouts',
    ],
  ];
  for (const [field, why] of flags) {
    if (config[field] !== undefined && config[field] !== null && config[field] !== false)
      problems.push(
        `adapter_config.json sets ${field}: ${JSON.stringify(config[field])}, which this importer does not implement (${why}). Fix: train the adapter with ${field}=False.`,
      );
  }
  for (const field of ['rank_pattern', 'alpha_pattern']) {
    const value = config[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length > 0)
      problems.push(
        `adapter_config.json sets ${field}: ${JSON.stringify(value)} (another r or alpha for some modules), which this importer does not implement. Fix: train the adapter with one r and lora_alpha for every module (an empty ${field}).`,
      );
  }
  return problems;
}

/** Loads PEFT adapter files into the model's adapters; rank, alpha and targets must match. */
export function importPeftAdapter(model: CausalLM, files: Record<string, Uint8Array>): void {
  if (model.training.kind !== 'lora')
    throw new Error('load the model with LoRA training to import an adapter');
  const configBytes = files['adapter_config.json'];
  const weights = files['adapter_model.safetensors'];
  if (!configBytes || !weights)
    throw new Error(
      'an adapter needs adapter_config.json and adapter_model.safetensors (PEFT format)',
    );
  let config: { r?: unknown; lora_alpha?: unknown; target_modules?: unknown; peft_type?: unknown };
  try {
    config = JSON.parse(new TextDecoder().decode(configBytes)) as typeof config;
  } catch (error) {
    throw new Error(`adapter_config.json is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw new Error('adapter_config.json is not a JSON object');
  const unsupported = unsupportedAdapterSettings(config as Record<string, unknown>);
  if (unsupported.length > 0) throw new Error(unsupported.join(' '));
  const lora = model.training.lora;
  if (config.peft_type !== 'LORA')
    throw new Error(
      `adapter_config.json has peft_type ${JSON.stringify(config.peft_type)}; only LORA adapters load`,
    );
  if (config.r !== lora.rank || config.lora_alpha !== lora.alpha) {
    throw new Error(
      `the adapter has r=${String(config.r)}, lora_alpha=${String(config.lora_alpha)} but this run uses r=${lora.rank}, alpha=${lora.alpha}. Fix: set loraRank and loraAlpha to the adapter's values.`,
    );
  }
  const file = parseSafetensors(weights, 'adapter_model.safetensors');
  const variables = adapterVariables(model.params);
  const missing = [...variables.keys()].filter((name) => !file.entries.has(PREFIX + name));
  if (missing.length > 0)
    throw new Error(
      `the adapter lacks ${missing.length} tensors this model needs, e.g. ${PREFIX}${missing[0]} (different target modules or base model?)`,
    );
  for (const [name, variable] of variables) {
    const entry = file.entries.get(PREFIX + name)!;
    const [rows, cols] = variable.shape as [number, number];
    if (entry.shape.join() !== [cols, rows].join()) {
      throw new Error(
        `adapter tensor ${PREFIX}${name} has shape [${entry.shape.join(', ')}], expected [${cols}, ${rows}] (a different base model?)`,
      );
    }
    const value = tf.tidy(() =>
      tf.transpose(tf.tensor2d(file.float32(PREFIX + name), [cols, rows])),
    );
    variable.assign(value);
    value.dispose();
  }
}
