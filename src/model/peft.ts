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
