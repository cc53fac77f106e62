// Snapshots of the trained weights in the Hugging Face layout, and the export of the demo model
// folder: config.json, model.safetensors (BF16), tokenizer files, generation_config.json,
// README.md.
import * as tf from '@tensorflow/tfjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CausalLM } from '../../src/model/model.ts';
import { baseVariables, type WeightSource } from '../../src/model/params.ts';
import { writeSafetensors, type TensorToWrite } from '../../src/model_files/safetensors_write.ts';

/** HF-layout tensors by name (float32, row-major). */
export type WeightSnapshot = Map<string, { shape: number[]; data: Float32Array }>;

/**
 * Copies the model's weights out in the HF layout (our 2-D weights are stored (in, out); HF's are
 * (out, in)).
 */
export function snapshotWeights(model: CausalLM): WeightSnapshot {
  const out: WeightSnapshot = new Map();
  for (const [name, variable] of baseVariables(model.params)) {
    const hf = variable.rank === 2 ? tf.transpose(variable) : variable;
    out.set(name, { shape: [...hf.shape], data: hf.dataSync() as Float32Array });
    if (hf !== variable) hf.dispose();
  }
  return out;
}

/** A snapshot as a weight source for CausalLM.fromWeights. */
export function snapshotSource(snapshot: WeightSnapshot): WeightSource {
  return {
    has: (name) => snapshot.has(name),
    shape: (name) => [...(snapshot.get(name)?.shape ?? [])],
    float32: (name) => {
      const entry = snapshot.get(name);
      if (!entry) throw new Error(`snapshot has no tensor ${name}`);
      return entry.data;
    },
  };
}

/** Everything the demo folder holds besides the weights. */
export interface DemoFiles {
  config: Record<string, unknown>;
  tokenizerJson: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
  readme: string;
}

/** Writes the folder; returns the bytes written per file. */
export function exportDemo(
  dir: string,
  snapshot: WeightSnapshot,
  files: DemoFiles,
): Record<string, number> {
  mkdirSync(dir, { recursive: true });
  const tensors: TensorToWrite[] = [...snapshot].map(([name, { shape, data }]) => ({
    name,
    shape,
    data,
  }));
  const contents: Record<string, string | Uint8Array> = {
    'config.json': `${JSON.stringify(files.config, null, 2)}\n`,
    'model.safetensors': writeSafetensors(tensors, 'BF16', { format: 'pt' }),
    'tokenizer.json': JSON.stringify(files.tokenizerJson),
    'tokenizer_config.json': `${JSON.stringify(files.tokenizerConfig, null, 2)}\n`,
    'generation_config.json': `${JSON.stringify({ eos_token_id: files.config.eos_token_id, pad_token_id: files.config.pad_token_id, do_sample: true, temperature: 1.0 }, null, 2)}\n`,
    'README.md': files.readme,
  };
  const sizes: Record<string, number> = {};
  for (const [name, content] of Object.entries(contents)) {
    writeFileSync(join(dir, name), content);
    sizes[name] = typeof content === 'string' ? Buffer.byteLength(content) : content.length;
  }
  return sizes;
}
