// Shape models (issue 29): the tiny preset written, loaded and checked against its config; the real
// presets' configs and tokenizers checked without writing their weights.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeShapeModel } from '../../src/cli/shape_model_command.ts';
import { byteLevelBpe, writeShapeTokenizer } from '../../src/cli/shape_tokenizer.ts';
import { CausalLM } from '../../src/model/model.ts';
import { expectedShapes } from '../../src/model/random_weights.ts';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import { countParameters } from '../../src/model_files/memory_estimate.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { parseSafetensors } from '../../src/model_files/safetensors.ts';
import {
  SHAPE_PRESET_NAMES,
  SHAPE_PRESETS,
  shapeConfig,
  shapePreset,
} from '../../src/model_files/shape_presets.ts';
import { CHATML_TEMPLATE, createTokenizer, loadTokenizer } from '../../src/tokenizer/index.ts';
import { useBackend } from '../helpers/models.ts';

const ROUND_TRIP =
  'def f(x):\n\treturn x * 2  # café ✓ 🙂 日本語\r\n  print(f(21))  <|im_start|>user\nhi<|im_end|>';

let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'shape-model-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('make-shape-model: the tiny-qwen preset', () => {
  it('writes a folder that loads: config as the preset, BF16 tensors of the config shapes, a fitting tokenizer', async () => {
    const dir = join(scratch, 'tiny');
    const summary = await writeShapeModel({ preset: 'tiny-qwen', dir, seed: 1 });
    const configJson = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as unknown;
    expect(configJson).toEqual(SHAPE_PRESETS['tiny-qwen']!.config);
    const config = parseModelConfig(configJson);
    expect(config).toMatchObject({ family: 'qwen2', qkvBias: true, tieWordEmbeddings: true });
    const parameters = countParameters(config);
    expect(parameters).toBeGreaterThan(2_000_000);
    expect(parameters).toBeLessThan(50_000_000);
    expect(summary.parameters).toBe(parameters);

    const bytes = new Uint8Array(await readFile(join(dir, 'model.safetensors')));
    expect(summary.weightBytes).toBe(bytes.byteLength);
    const file = parseSafetensors(bytes);
    const shapes = expectedShapes(config);
    expect([...file.entries.keys()].sort()).toEqual([...shapes.keys()].sort());
    let stored = 0;
    for (const [name, entry] of file.entries) {
      expect(entry.dtype).toBe('BF16');
      expect(entry.shape).toEqual(shapes.get(name));
      const size = entry.shape.reduce((a, b) => a * b, 1);
      expect(entry.end - entry.begin).toBe(2 * size);
      stored += size;
    }
    expect(stored).toBe(parameters);
    // norms are 1, matrices normal(0, 0.02), biases small
    expect(new Set(file.float32('model.layers.0.input_layernorm.weight'))).toEqual(new Set([1]));
    const matrix = file.float32('model.layers.0.mlp.down_proj.weight');
    const mean = matrix.reduce((a, b) => a + b, 0) / matrix.length;
    const std = Math.sqrt(matrix.reduce((a, b) => a + (b - mean) ** 2, 0) / matrix.length);
    expect(Math.abs(mean)).toBeLessThan(1e-3);
    expect(std).toBeCloseTo(0.02, 3);
    const bias = file.float32('model.layers.0.self_attn.q_proj.bias');
    expect(Math.max(...bias.map(Math.abs))).toBeLessThan(0.1);

    const source = directorySource(dir);
    const tokenizer = await loadTokenizer(source);
    expect(tokenizer.warnings).toEqual([]);
    expect(tokenizer.vocabSize).toBe(config.vocabSize);
    expect(tokenizer.decode(tokenizer.encode(ROUND_TRIP))).toBe(ROUND_TRIP);
    expect(tokenizer.eosIds).toEqual([2047, 2045]);
    expect(config.eosTokenIds).toEqual([2047]);

    await useBackend('wasm');
    const model = await CausalLM.load(source);
    expect(model.config.numLayers).toBe(4);
    const ids = tokenizer.encodeChat([{ role: 'user', content: 'hi' }], {
      addGenerationPrompt: true,
    });
    const rows = model.logits(ids);
    model.dispose();
    expect(rows).toHaveLength(ids.length);
    expect(rows[0]).toHaveLength(config.vocabSize);
    expect(rows.every((row) => row.every(Number.isFinite))).toBe(true);
  });

  it('is deterministic for a seed, differs across seeds, and --layers sets the layer count', async () => {
    const write = async (name: string, seed: number, layers?: number) => {
      const dir = join(scratch, name);
      await writeShapeModel({ preset: 'tiny-qwen', dir, seed, ...(layers ? { layers } : {}) });
      return dir;
    };
    const weights = async (dir: string) => readFile(join(dir, 'model.safetensors'));
    const [a, b, c] = await Promise.all([write('a', 7, 2), write('b', 7, 2), write('c', 8, 2)]);
    expect((await weights(a)).equals(await weights(b))).toBe(true);
    expect((await weights(a)).equals(await weights(c))).toBe(false);
    const config = JSON.parse(await readFile(join(a, 'config.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(config.num_hidden_layers).toBe(2);
    expect(config.max_window_layers).toBe(2);
    const file = parseSafetensors(new Uint8Array(await weights(a)));
    expect(file.entries.has('model.layers.1.mlp.up_proj.weight')).toBe(true);
    expect(file.entries.has('model.layers.2.mlp.up_proj.weight')).toBe(false);
  });

  it('refuses an unknown preset and a bad layer count with a message', async () => {
    await expect(writeShapeModel({ preset: 'gpt-5', dir: join(scratch, 'x') })).rejects.toThrow(
      /unknown shape preset "gpt-5"; available: smollm2-135m, smollm2-360m, qwen2\.5-0\.5b, qwen3-0\.6b, tiny-qwen/,
    );
    expect(() => shapeConfig(shapePreset('tiny-qwen'), 0)).toThrow(/positive integer/);
  });
});

describe('the real shape presets', () => {
  // Parameters with tied embeddings: V·D + L·(q D·H·hd + k, v 2·D·KV·hd + o H·hd·D [+ q/k/v biases
  // H·hd + 2·KV·hd] + mlp 3·D·I + norms 2·D [+ q/k norms 2·hd]) + final norm D.
  const expected: Record<string, { parameters: number; check: Record<string, unknown> }> = {
    // 49152·576 + 30·(331776 + 2·110592 + 331776 + 3·884736 + 1152) + 576
    'smollm2-135m': {
      parameters: 134_515_008,
      check: { family: 'llama', headDim: 64, numKvHeads: 3, qkvBias: false, qkNorm: false },
    },
    // 49152·960 + 32·(921600 + 2·307200 + 921600 + 3·2457600 + 1920) + 960
    'smollm2-360m': {
      parameters: 361_821_120,
      check: { family: 'llama', headDim: 64, numKvHeads: 5, qkvBias: false, qkNorm: false },
    },
    // 151936·896 + 24·(802816 + 2·114688 + 802816 + 896 + 2·128 + 3·4358144 + 1792) + 896
    'qwen2.5-0.5b': {
      parameters: 494_032_768,
      check: { family: 'qwen2', headDim: 64, numKvHeads: 2, qkvBias: true, qkNorm: false },
    },
    // 151936·1024 + 28·(2097152 + 2·1048576 + 2097152 + 3·3145728 + 2048 + 2·128) + 1024
    'qwen3-0.6b': {
      parameters: 596_049_920,
      check: { family: 'qwen3', headDim: 128, numKvHeads: 8, qkvBias: false, qkNorm: true },
    },
  };

  it('their config.json parse to the published parameter counts', () => {
    expect(SHAPE_PRESET_NAMES.filter((name) => name !== 'tiny-qwen')).toEqual(
      Object.keys(expected),
    );
    for (const [name, { parameters, check }] of Object.entries(expected)) {
      const json = shapeConfig(shapePreset(name));
      expect(json.torch_dtype).toBe('bfloat16');
      const config = parseModelConfig(json, name);
      expect(config).toMatchObject({ ...check, tieWordEmbeddings: true });
      expect(countParameters(config)).toBe(parameters);
      const shapes = [...expectedShapes(config).values()];
      expect(shapes.reduce((sum, s) => sum + s.reduce((a, b) => a * b, 1), 0)).toBe(parameters);
    }
  });

  it('SmolLM2 shapes get a 49152-token byte-level tokenizer with its special ids and chat template', async () => {
    const dir = join(scratch, 'smollm2-tokenizer');
    await writeShapeModelTokenizer('smollm2-135m', dir);
    const tokenizer = await loadTokenizer(directorySource(dir));
    expect(tokenizer.warnings).toEqual([]);
    expect(tokenizer.vocabSize).toBe(49152);
    expect(tokenizer.bosId).toBe(1);
    expect(tokenizer.eosIds).toEqual([2]);
    const specialIds = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'].map((token) =>
      tokenizer.tokenToId(token),
    );
    expect(specialIds).toEqual([0, 1, 2]);
    expect(tokenizer.decode(tokenizer.encode(ROUND_TRIP))).toBe(ROUND_TRIP);
    expect(tokenizer.encode(' print').length).toBeLessThan(6); // merges apply (6 bytes)
    expect(tokenizer.applyChatTemplate([{ role: 'user', content: 'hi' }])).toBe(
      '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n',
    );
  });

  it('Qwen shapes get the Qwen tokenizer: Qwen2.5 its own template and 151665 ids, Qwen3 as packaged', async () => {
    for (const [name, vocabSize, qwen25] of [
      ['qwen2.5-0.5b', 151665, true],
      ['qwen3-0.6b', 151669, false],
    ] as const) {
      const dir = join(scratch, `${name}-tokenizer`);
      await writeShapeModelTokenizer(name, dir);
      const tokenizer = await loadTokenizer(directorySource(dir));
      expect(tokenizer.vocabSize).toBe(vocabSize);
      expect(tokenizer.vocabSize).toBeLessThanOrEqual(151936);
      expect(tokenizer.tokenToId('<|im_end|>')).toBe(151645);
      expect(tokenizer.eosIds).toEqual([151645]);
      expect(tokenizer.decode(tokenizer.encode(ROUND_TRIP))).toBe(ROUND_TRIP);
      const rendered = tokenizer.applyChatTemplate([{ role: 'user', content: 'hi' }]);
      expect(
        rendered.startsWith('<|im_start|>system\nYou are Qwen, created by Alibaba Cloud.'),
      ).toBe(qwen25);
      // Qwen3's template drops earlier turns' thinking, so the loader flags it; Qwen2.5's is stable
      if (qwen25) expect(tokenizer.warnings).toEqual([]);
    }
  });

  it('the generated tokenizer fills any vocabulary exactly, specials where asked', () => {
    const specials = [
      { id: 0, content: '<s>' },
      { id: 299, content: '</s>' },
    ];
    const json = byteLevelBpe(300, specials);
    const tokenizer = createTokenizer('generated', {
      tokenizerJson: json,
      tokenizerConfig: { eos_token: '</s>', chat_template: CHATML_TEMPLATE },
    });
    expect(tokenizer.vocabSize).toBe(300);
    expect(tokenizer.idToToken(1)).toBe('Ā'); // byte 0 right after the special at id 0
    expect(tokenizer.eosIds).toEqual([299]);
    expect(tokenizer.decode(tokenizer.encode(ROUND_TRIP))).toBe(ROUND_TRIP);
    expect(() => byteLevelBpe(200, specials)).toThrow(/outside \[0, 200\)/);
    expect(() =>
      byteLevelBpe(257, [
        { id: 0, content: '<s>' },
        { id: 1, content: '</s>' },
      ]),
    ).toThrow(/no room for the 256 byte tokens/);
  });

  it("tiny-qwen's ChatML template is the loader's own", () => {
    const tokenizer = SHAPE_PRESETS['tiny-qwen']!.tokenizer;
    expect(tokenizer.kind === 'byte-bpe' && tokenizer.tokenizerConfig.chat_template).toBe(
      CHATML_TEMPLATE,
    );
  });
});

/** Writes only the tokenizer files of a preset (its weights would be hundreds of MB). */
async function writeShapeModelTokenizer(name: string, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const preset = shapePreset(name);
  await writeShapeTokenizer(preset, parseModelConfig(preset.config).vocabSize, dir);
}
