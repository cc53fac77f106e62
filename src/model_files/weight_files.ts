// Reads a model's weight files from a ModelSource: `model.safetensors`, or the shards listed in
// `model.safetensors.index.json` (the hub's layout for large models). (A run's checkpoints, the
// adapters and optimizer state saved while training, are src/service/checkpoint_store.ts.)
import { readJson, type ModelSource } from './source.ts';
import { parseSafetensors, type SafetensorsFile } from './safetensors.ts';

/** Named float32 tensors of a model's weight files, converted one at a time on request. */
export interface WeightFiles {
  names(): string[];
  has(name: string): boolean;
  shape(name: string): number[];
  /** A fresh float32 copy of the tensor (the caller may keep or drop it). */
  float32(name: string): Float32Array;
  /** How the file stores the tensor. */
  dtype(name: string): 'F32' | 'BF16' | 'F16';
  /** A BF16 or F16 tensor's 16-bit values as shipped (a fresh copy). */
  bits16(name: string): Uint16Array;
}

const singleFile = 'model.safetensors';
const indexFile = 'model.safetensors.index.json';

/** Opens a model's weight files; `onProgress` sees bytes read across all files. */
export async function readWeightFiles(
  source: ModelSource,
  onProgress?: (loadedBytes: number, totalBytes: number | null) => void,
): Promise<WeightFiles> {
  const files = new Map<string, SafetensorsFile>();
  const owner = new Map<string, SafetensorsFile>();
  let shardNames: string[];
  if (await source.has(singleFile)) {
    shardNames = [singleFile];
  } else if (await source.has(indexFile)) {
    const index = await readJson<{ weight_map?: Record<string, string> }>(source, indexFile);
    if (!index.weight_map || typeof index.weight_map !== 'object') {
      throw new Error(`${source.name}/${indexFile} has no weight_map object`);
    }
    shardNames = [...new Set(Object.values(index.weight_map))];
  } else {
    throw new Error(
      `${source.name} has neither ${singleFile} nor ${indexFile}: not a Hugging Face safetensors checkpoint`,
    );
  }
  let loadedBefore = 0;
  for (const shard of shardNames) {
    const bytes = await source.readFile(
      shard,
      onProgress && ((loaded, total) => onProgress(loadedBefore + loaded, total)),
    );
    loadedBefore += bytes.byteLength;
    const file = parseSafetensors(bytes, `${source.name}/${shard}`);
    files.set(shard, file);
    for (const name of file.entries.keys()) owner.set(name, file);
  }
  const entry = (name: string) => {
    const file = owner.get(name);
    const found = file?.entries.get(name);
    if (!file || !found) throw new Error(`${source.name}: checkpoint has no tensor ${name}`);
    return { file, found };
  };
  return {
    names: () => [...owner.keys()],
    has: (name) => owner.has(name),
    shape: (name) => [...entry(name).found.shape],
    float32: (name) => entry(name).file.float32(name),
    dtype: (name) => entry(name).found.dtype,
    bits16: (name) => entry(name).file.bits16(name),
  };
}
