// `make-shape-model --preset NAME --out DIR [--seed N] [--layers N]`: writes a
// random-weight model with the exact shapes of a real one (src/model_files/shape_presets.ts):
// its config.json and generation_config.json, a BF16 model.safetensors, and a tokenizer
// (shape_tokenizer.ts). Weights are normal(0, 0.02) matrices, unit norms and normal(0, 0.01)
// biases, each tensor from its own seeded stream, so the files are the same for a seed on every
// machine. The file is written a chunk at a time: Qwen2.5-0.5B's 1 GB never exists as JS arrays.
import { mkdir, open, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseModelConfig } from '../model_files/hf_config.ts';
import { floatsToBf16Bits, safetensorsHeader } from '../model_files/safetensors_write.ts';
import { shapeConfig, shapePreset } from '../model_files/shape_presets.ts';
import { expectedShapes } from '../model/random_weights.ts';
import { Rng } from '../model/rng.ts';
import { numberOption, requireOption, type CliArgs } from './args.ts';
import { writeShapeTokenizer } from './shape_tokenizer.ts';

/** Standard deviations of the random weights (transformers' initializer_range for matrices). */
const MATRIX_STD = 0.02;
const BIAS_STD = 0.01;
/** Values generated and converted per write: 4 MB of float32, 2 MB written. */
const CHUNK_VALUES = 1 << 20;

/** What to write. */
export interface ShapeModelOptions {
  preset: string;
  dir: string;
  seed?: number;
  /** Replaces the preset's layer count. */
  layers?: number;
}

/** What was written, as the command prints it. */
export interface ShapeModelSummary {
  preset: string;
  source: string;
  dir: string;
  numLayers: number;
  parameters: number;
  weightBytes: number;
  seconds: number;
  files: string[];
}

/** Writes the shape model; see the file header. */
export async function writeShapeModel(options: ShapeModelOptions): Promise<ShapeModelSummary> {
  const started = performance.now();
  const preset = shapePreset(options.preset);
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed) || seed < 0)
    throw new Error(`seed must be a non-negative integer, got ${seed}`);
  const configJson = shapeConfig(preset, options.layers);
  const config = parseModelConfig(configJson, `preset ${options.preset}`);
  const dir = resolve(options.dir);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'config.json'), `${JSON.stringify(configJson, null, 2)}\n`);
  await writeFile(
    join(dir, 'generation_config.json'),
    `${JSON.stringify(preset.generationConfig, null, 2)}\n`,
  );
  await writeShapeTokenizer(preset, config.vocabSize, dir);
  const tensors = [...expectedShapes(config)].map(([name, shape]) => ({ name, shape }));
  const weightBytes = await writeRandomBf16(join(dir, 'model.safetensors'), tensors, seed);
  return {
    preset: options.preset,
    source: preset.source,
    dir,
    numLayers: config.numLayers,
    parameters: tensors.reduce((sum, t) => sum + t.shape.reduce((a, b) => a * b, 1), 0),
    weightBytes,
    seconds: Math.round((performance.now() - started) / 10) / 100,
    files: [
      'config.json',
      'generation_config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'model.safetensors',
    ],
  };
}

/**
 * Streams a BF16 safetensors file of random tensors to `path` (through a `.partial` file renamed
 * at the end, so an interrupted run leaves no truncated checkpoint); returns its size in bytes.
 */
async function writeRandomBf16(
  path: string,
  tensors: readonly { name: string; shape: number[] }[],
  seed: number,
): Promise<number> {
  const { header, dataBytes } = safetensorsHeader(tensors, 'BF16', { format: 'pt' });
  const partial = `${path}.partial`;
  const file = await open(partial, 'w');
  try {
    const prefix = new Uint8Array(8);
    new DataView(prefix.buffer).setBigUint64(0, BigInt(header.length), true);
    await file.write(prefix);
    await file.write(header);
    const values = new Float32Array(CHUNK_VALUES);
    const bits = new Uint16Array(CHUNK_VALUES);
    const bytes = new Uint8Array(bits.buffer);
    for (const { name, shape } of tensors) {
      const size = shape.reduce((a, b) => a * b, 1);
      const rng = new Rng(tensorSeed(seed, name));
      const std = name.endsWith('.bias') ? BIAS_STD : MATRIX_STD;
      for (let done = 0; done < size; done += CHUNK_VALUES) {
        const chunk = values.subarray(0, Math.min(CHUNK_VALUES, size - done));
        if (name.endsWith('norm.weight')) chunk.fill(1);
        else fillNormal(rng, chunk, std);
        floatsToBf16Bits(chunk, bits);
        await file.write(bytes, 0, chunk.length * 2);
      }
    }
  } finally {
    await file.close();
  }
  await rename(partial, path);
  return 8 + header.length + dataBytes;
}

/** One tensor's stream: FNV-1a of the seed and the tensor's name (independent of its position). */
function tensorSeed(seed: number, name: string): number {
  let hash = 0x811c9dc5;
  for (const char of `${seed}:${name}`) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * Normal(0, std) values by Box-Muller, each uniform from one 32-bit draw (plenty for weights
 * stored in BF16's 8-bit mantissa, and twice as fast as 53-bit uniforms).
 */
function fillNormal(rng: Rng, out: Float32Array, std: number): void {
  const scale = 2 ** -32;
  for (let i = 0; i < out.length; i += 2) {
    const u1 = (rng.nextUint32() + 1) * scale; // (0, 1]: the log stays finite
    const angle = 2 * Math.PI * rng.nextUint32() * scale;
    const radius = std * Math.sqrt(-2 * Math.log(u1));
    out[i] = radius * Math.cos(angle);
    if (i + 1 < out.length) out[i + 1] = radius * Math.sin(angle);
  }
}

/**
 * `make-shape-model --preset NAME --out DIR [--seed N] [--layers N]` -> one JSON line: the
 * preset, the folder, parameters, weight bytes and seconds taken.
 */
export async function makeShapeModelCommand(args: CliArgs): Promise<void> {
  const layersOption = args.options.get('layers');
  const summary = await writeShapeModel({
    preset: requireOption(args, 'preset'),
    dir: requireOption(args, 'out'),
    seed: numberOption(args, 'seed', 0),
    ...(layersOption === undefined ? {} : { layers: numberOption(args, 'layers', 0) }),
  });
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}
