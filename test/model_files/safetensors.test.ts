// The safetensors reader: dtype conversion, corrupt and truncated files, sharded checkpoints, and
// the weights written back in the Hugging Face layout (hf_weights.ts).
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readWeightFiles } from '../../src/model_files/weight_files.ts';
import { hfWeights } from '../../src/model/hf_weights.ts';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { halfToFloat, parseSafetensors, toFloat32 } from '../../src/model_files/safetensors.ts';
import { fixture, loadFixture, useBackend } from '../helpers/models.ts';
import { maxAbsDiff } from '../helpers/numbers.ts';

/** A safetensors file from float32 tensors (the format: u64 header length, JSON header, data). */
function safetensorsBytes(
  tensors: Record<string, { shape: number[]; data: Float32Array }>,
): Uint8Array {
  const header: Record<string, unknown> = {};
  let offset = 0;
  for (const [name, { shape, data }] of Object.entries(tensors)) {
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + data.byteLength] };
    offset += data.byteLength;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const { data } of Object.values(tensors)) {
    out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), at);
    at += data.byteLength;
  }
  return out;
}

const scratch = mkdtempSync(join(tmpdir(), 'safetensors-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('dtype conversion', () => {
  it('decodes half precision by hand-worked values', () => {
    expect(halfToFloat(0x3c00)).toBe(1);
    expect(halfToFloat(0xc000)).toBe(-2);
    expect(halfToFloat(0x3555)).toBeCloseTo(0.33325195, 8);
    expect(halfToFloat(0x0001)).toBe(2 ** -24); // smallest subnormal
    expect(halfToFloat(0x7c00)).toBe(Infinity);
    expect(halfToFloat(0x7e00)).toBeNaN();
  });

  it('decodes bfloat16 and float16 little-endian bytes', () => {
    // bf16 0x3f80 = 1, 0xc040 = -3; f16 0x3800 = 0.5
    expect(Array.from(toFloat32(Uint8Array.from([0x80, 0x3f, 0x40, 0xc0]), 'BF16'))).toEqual([
      1, -3,
    ]);
    expect(Array.from(toFloat32(Uint8Array.from([0x00, 0x38]), 'F16'))).toEqual([0.5]);
  });
});

describe('corrupt files', () => {
  const good = safetensorsBytes({ w: { shape: [2, 2], data: Float32Array.from([1, 2, 3, 4]) } });

  it('reads a well-formed file', () => {
    expect(Array.from(parseSafetensors(good).float32('w'))).toEqual([1, 2, 3, 4]);
  });

  it('refuses truncated data, a header longer than the file, junk headers, and wrong sizes', () => {
    expect(() => parseSafetensors(good.subarray(0, good.length - 4), 'm.safetensors')).toThrow(
      /m.safetensors is not a valid safetensors file: tensor w ends at byte 16 but the data section has 12 bytes \(truncated\?\)/,
    );
    expect(() => parseSafetensors(good.subarray(0, 20))).toThrow(
      /header length \d+ exceeds the file size 20/,
    );
    expect(() => parseSafetensors(Uint8Array.from([1, 2, 3]))).toThrow(/only 3 bytes/);
    const junk = good.slice();
    junk[9] = 0x7b; // break the JSON
    junk[10] = 0x7b;
    expect(() => parseSafetensors(junk)).toThrow(/header is not JSON/);
    const wrong = safetensorsBytes({ w: { shape: [3, 2], data: Float32Array.from([1, 2, 3, 4]) } });
    expect(() => parseSafetensors(wrong)).toThrow(/16 bytes for shape \[3, 2\] of F32/);
  });

  it('refuses a truncated model.safetensors when loading a model', async () => {
    const dir = join(scratch, 'truncated');
    rmSync(dir, { recursive: true, force: true });
    await import('node:fs').then((fs) => fs.mkdirSync(dir));
    copyFileSync(join(fixture('tiny-llama'), 'config.json'), join(dir, 'config.json'));
    const bytes = readFileSync(join(fixture('tiny-llama'), 'model.safetensors'));
    writeFileSync(join(dir, 'model.safetensors'), bytes.subarray(0, bytes.length - 100));
    await expect(CausalLM.load(directorySource(dir))).rejects.toThrow(
      /model.safetensors is not a valid safetensors file: .*truncated/,
    );
  });
});

describe('checkpoints', () => {
  it.each(['tiny-llama', 'tiny-qwen2', 'tiny-qwen3'])(
    '%s: hfWeights writes back exactly the tensors it was loaded from',
    async (name) => {
      await useBackend('cpu');
      const source = await readWeightFiles(directorySource(fixture(name)));
      const model = await loadFixture(name);
      const written = hfWeights(model.params);
      expect(written.map((t) => t.name).sort()).toEqual(source.names().sort()); // q/k norms included for Qwen3
      for (const tensor of written) {
        expect(tensor.shape, tensor.name).toEqual(source.shape(tensor.name));
        expect(maxAbsDiff(tensor.data, source.float32(tensor.name)), tensor.name).toBe(0);
      }
      model.dispose();
    },
  );

  it('loads a sharded checkpoint (model.safetensors.index.json) to the same logits', async () => {
    await useBackend('cpu');
    const single = await readWeightFiles(directorySource(fixture('tiny-qwen2')));
    const names = single.names();
    const half = Math.floor(names.length / 2);
    const dir = join(scratch, 'sharded');
    await import('node:fs').then((fs) => fs.mkdirSync(dir, { recursive: true }));
    copyFileSync(join(fixture('tiny-qwen2'), 'config.json'), join(dir, 'config.json'));
    const weightMap: Record<string, string> = {};
    [names.slice(0, half), names.slice(half)].forEach((group, i) => {
      const file = `model-0000${i + 1}-of-00002.safetensors`;
      const tensors: Record<string, { shape: number[]; data: Float32Array }> = {};
      for (const name of group) {
        tensors[name] = { shape: single.shape(name), data: single.float32(name) };
        weightMap[name] = file;
      }
      writeFileSync(join(dir, file), safetensorsBytes(tensors));
    });
    writeFileSync(
      join(dir, 'model.safetensors.index.json'),
      JSON.stringify({ metadata: {}, weight_map: weightMap }),
    );
    const sharded = await CausalLM.load(directorySource(dir));
    const reference = await loadFixture('tiny-qwen2');
    const ids = [257, 72, 105];
    expect(maxAbsDiff(sharded.logits(ids).at(-1)!, reference.logits(ids).at(-1)!)).toBe(0);
    sharded.dispose();
    reference.dispose();
  });

  it('says what is missing', async () => {
    await expect(CausalLM.load(directorySource(scratch))).rejects.toThrow(/config.json not found/);
    const dir = join(scratch, 'no-weights');
    await import('node:fs').then((fs) => fs.mkdirSync(dir, { recursive: true }));
    copyFileSync(join(fixture('tiny-qwen2'), 'config.json'), join(dir, 'config.json'));
    await expect(CausalLM.load(directorySource(dir))).rejects.toThrow(
      /neither model.safetensors nor model.safetensors.index.json/,
    );
    const mismatched = join(scratch, 'mismatch');
    await import('node:fs').then((fs) => fs.mkdirSync(mismatched, { recursive: true }));
    const config = JSON.parse(
      readFileSync(join(fixture('tiny-qwen2'), 'config.json'), 'utf8'),
    ) as Record<string, unknown>;
    writeFileSync(
      join(mismatched, 'config.json'),
      JSON.stringify({ ...config, intermediate_size: 64 }),
    );
    copyFileSync(
      join(fixture('tiny-qwen2'), 'model.safetensors'),
      join(mismatched, 'model.safetensors'),
    );
    await expect(CausalLM.load(directorySource(mismatched))).rejects.toThrow(
      /gate_proj.weight has shape \[48, 32\] but config.json implies \[64, 32\]/,
    );
  });
});
