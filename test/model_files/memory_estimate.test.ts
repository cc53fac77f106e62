// Memory estimates from config.json: parameter counts against independent references (the
// safetensors headers of our fixtures, the hub's published counts), and the refusal logic.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseModelConfig } from '../../src/model_files/hf_config.ts';
import {
  countLoraParameters,
  countParameters,
  estimateFromSource,
  estimateMemory,
  formatBytes,
  kvBytesPerToken,
  memoryBudget,
  memoryVerdict,
  ROLLOUT_KV_BUDGET_BYTES,
  rolloutSequences,
} from '../../src/model_files/memory_estimate.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { SHAPE_PRESETS } from '../../src/model_files/shape_presets.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'models');

/** Parameter count straight from a safetensors header: sum of the products of the shapes. */
function safetensorsParameters(path: string): number {
  const bytes = readFileSync(path);
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8')) as Record<
    string,
    { shape?: number[] }
  >;
  return Object.entries(header)
    .filter(([name]) => name !== '__metadata__')
    .reduce((sum, [, tensor]) => sum + (tensor.shape ?? []).reduce((a, b) => a * b, 1), 0);
}

// Public config.json values of the hub presets (hidden sizes, heads, vocab; all tie embeddings).
const smollm135 = {
  model_type: 'llama',
  vocab_size: 49152,
  hidden_size: 576,
  intermediate_size: 1536,
  num_hidden_layers: 30,
  num_attention_heads: 9,
  num_key_value_heads: 3,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
};
const smollm360 = {
  model_type: 'llama',
  vocab_size: 49152,
  hidden_size: 960,
  intermediate_size: 2560,
  num_hidden_layers: 32,
  num_attention_heads: 15,
  num_key_value_heads: 5,
  tie_word_embeddings: true,
};
/** Qwen3-0.6B's config.json, as the shape-model preset writes it. */
const QWEN3_06B = SHAPE_PRESETS['qwen3-0.6b']!.config;

const qwen05 = {
  model_type: 'qwen2',
  vocab_size: 151936,
  hidden_size: 896,
  intermediate_size: 4864,
  num_hidden_layers: 24,
  num_attention_heads: 14,
  num_key_value_heads: 2,
  tie_word_embeddings: true,
};

describe('countParameters', () => {
  it.each(['tiny-llama', 'tiny-qwen2', 'tiny-qwen3'])(
    'matches the safetensors header of %s (untied llama, tied qwen2 with qkv bias, qwen3 with q/k norms)',
    (name) => {
      const config = parseModelConfig(
        JSON.parse(readFileSync(join(fixtures, name, 'config.json'), 'utf8')),
      );
      expect(countParameters(config)).toBe(
        safetensorsParameters(join(fixtures, name, 'model.safetensors')),
      );
    },
  );

  it('matches the published sizes of the hub presets', () => {
    expect(countParameters(parseModelConfig(smollm135))).toBe(134_515_008);
    expect(countParameters(parseModelConfig(smollm360))).toBe(361_821_120);
    expect(countParameters(parseModelConfig(qwen05))).toBe(494_032_768);
  });

  it('counts Qwen3-0.6B by hand (heads of 128 wider than hidden / heads, q/k norms)', () => {
    const qwen3 = QWEN3_06B;
    // a layer: q 1024·2048 + k, v 1024·1024 each + o 2048·1024 + MLP 3·1024·3072 + norms 2·1024 +
    // 2·128
    const layer =
      1024 * 2048 + 2 * 1024 * 1024 + 2048 * 1024 + 3 * 1024 * 3072 + 2 * 1024 + 2 * 128;
    expect(countParameters(parseModelConfig(qwen3))).toBe(151936 * 1024 + 28 * layer + 1024); // 596,049,920: the model card's 0.6B, 0.44B without embeddings
  });

  it('samples as many sequences at once as 2 GiB of KV cache holds, counting only those', () => {
    const qwen3 = parseModelConfig(QWEN3_06B);
    // keys and values, 28 layers × 8 heads × 128, float32: 229,376 bytes a token
    expect(kvBytesPerToken(qwen3)).toBe(2 * 28 * 8 * 128 * 4);
    // 1,244 tokens a sequence (the default run): 285 MB each, 2 GiB / 285 MB = 7.5
    expect(rolloutSequences(qwen3, 18, 1244)).toBe(7);
    expect(rolloutSequences(qwen3, 6, 1244)).toBe(6); // fewer than fit: all of them
    expect(rolloutSequences(qwen3, 18, 100_000)).toBe(1); // never none
    const run = { sequences: 18, contextTokens: 1244, microBatch: 1, loraRank: 8 };
    const estimate = estimateMemory(qwen3, { ...run, fileBytesPerParameter: 2 });
    expect(estimate.sequences).toBe(18);
    expect(estimate.rolloutSequences).toBe(7);
    expect(estimate.kvCacheBytes).toBe(7 * 1244 * 229_376);
    expect(estimate.kvCacheBytes).toBeLessThanOrEqual(ROLLOUT_KV_BUDGET_BYTES);
    expect(memoryVerdict(estimate, memoryBudget({ backend: 'wasm' }), 'Qwen3').message).toContain(
      'The rollout samples 7 of the 18 episodes at a time, as many as 2.0 GB of KV cache holds.',
    );
    // a model whose cache fits keeps every sequence, and the message says nothing of it
    const small = estimateMemory(parseModelConfig(qwen05), { ...run, fileBytesPerParameter: 2 });
    expect(small.rolloutSequences).toBe(18);
    expect(memoryVerdict(small, memoryBudget({ backend: 'wasm' }), 'small').message).not.toContain(
      'at a time',
    );
  });

  it('counts LoRA on q, k, v, o by hand for the tiny llama (D 32, 4 heads of 8, 2 kv heads, 2 layers, rank 4)', () => {
    const config = parseModelConfig(
      JSON.parse(readFileSync(join(fixtures, 'tiny-llama', 'config.json'), 'utf8')),
    );
    // q: 4·(32+32), k and v: 4·(32+16) each, o: 4·(32+32) → 256 + 384 + 256 = 896 per layer
    expect(countLoraParameters(config, 4, ['q_proj', 'k_proj', 'v_proj', 'o_proj'])).toBe(2 * 896);
    // all seven (the default): + gate and up 4·(32+I) each, down 4·(I+32)
    const I = config.intermediateSize;
    expect(countLoraParameters(config, 4)).toBe(2 * (896 + 3 * 4 * (32 + I)));
  });
});

describe('estimateMemory and memoryVerdict', () => {
  const run = {
    sequences: 4,
    contextTokens: 1024,
    microBatch: 1,
    loraRank: 8,
    fileBytesPerParameter: 2,
  };

  it('puts frozen 16-bit weights at 2 bytes a matrix parameter, float32 ones at 4, and grows with the run', () => {
    const config = parseModelConfig(qwen05);
    const small = estimateMemory(config, { ...run, sixteenBit: false });
    expect(small.weightBytes).toBe(494_032_768 * 4);
    expect(small.largestTensorBytes).toBe(151936 * 896 * 4);
    // 16-bit (LoRA on wasm, a BF16 checkpoint: the default): norms and biases stay float32
    const half = estimateMemory(config, run);
    expect(half.sixteenBit).toBe(true);
    const vectors = 24 * (896 + 2 * 128 + 2 * 896) + 896; // q, k, v biases and two norms a layer
    expect(half.weightBytes).toBe((494_032_768 - vectors) * 2 + vectors * 4);
    const bigger = estimateMemory(config, { ...run, sequences: 16, contextTokens: 2048 });
    expect(bigger.totalBytes).toBeGreaterThan(half.totalBytes);
    expect(bigger.kvCacheBytes).toBe(small.kvCacheBytes * 8);
    const full = estimateMemory(config, { ...run, full: true });
    expect(full.adapterBytes).toBe(3 * small.weightBytes);
  });

  it('lets the presets load on WASM but refuses a 7B model with the reason and a fix', () => {
    const wasm = memoryBudget({ backend: 'wasm' });
    expect(
      memoryVerdict(estimateMemory(parseModelConfig(smollm135), run), wasm, 'SmolLM2-135M').fit,
    ).toBe('fits');
    for (const preset of [smollm360, qwen05]) {
      expect(
        memoryVerdict(estimateMemory(parseModelConfig(preset), run), wasm, 'preset').fit,
      ).not.toBe('too_large');
    }
    const qwen7b = {
      model_type: 'qwen2',
      vocab_size: 152064,
      hidden_size: 3584,
      intermediate_size: 18944,
      num_hidden_layers: 28,
      num_attention_heads: 28,
      num_key_value_heads: 4,
    };
    const verdict = memoryVerdict(
      estimateMemory(parseModelConfig(qwen7b), run),
      wasm,
      'Qwen2.5-7B',
    );
    expect(verdict.fit).toBe('too_large');
    expect(verdict.message).toMatch(
      /Qwen2\.5-7B cannot even load here: \d+(\.\d)? GB while reading its 16-bit weights into place.*4 GiB heap limit of WebAssembly.*Fix:/,
    );
  });

  it('calls a run that loads but may not train tight, and one that cannot load too large', () => {
    const estimate = estimateMemory(parseModelConfig(smollm135), run);
    const budget = (bytes: number) => ({ bytes, reason: 'test' });
    expect(memoryVerdict(estimate, budget(estimate.totalBytes), 'm').fit).toBe('fits');
    const tight = memoryVerdict(estimate, budget(estimate.totalBytes - 1), 'm');
    expect(tight.fit).toBe('tight');
    // the update is this run's larger part: what to lower is the micro-batch's
    expect(estimate.updateBytes).toBeGreaterThan(estimate.rolloutBytes);
    expect(tight.message).toMatch(/lower Micro-batch, Tokens per turn or Turns/);
    expect(
      memoryVerdict(estimate, budget(estimate.weightBytes + estimate.downloadBytes), 'm').fit,
    ).toBe('tight');
    expect(
      memoryVerdict(estimate, budget(estimate.weightBytes + estimate.downloadBytes - 1), 'm').fit,
    ).toBe('too_large');
  });

  it('refuses on a small device, and on WebGPU when one tensor exceeds the largest buffer', () => {
    const estimate = estimateMemory(parseModelConfig(qwen05), run);
    const phone = memoryBudget({ backend: 'wasm', deviceMemoryGiB: 2 });
    expect(phone.bytes).toBeCloseTo(0.6 * 2 * 1024 ** 3);
    expect(memoryVerdict(estimate, phone, 'Qwen').fit).toBe('too_large');
    const gpu = memoryBudget({ backend: 'webgpu', maxBufferBytes: 128 * 1024 ** 2 });
    const verdict = memoryVerdict(estimate, gpu, 'Qwen');
    expect(verdict.fit).toBe('too_large');
    expect(verdict.message).toContain('one GPU buffer can hold at most 128 MB');
  });

  it("estimates from config.json alone and passes unsupported architectures' errors through", async () => {
    const { estimate } = await estimateFromSource(directorySource(join(fixtures, 'tiny-llama')), {
      sequences: 4,
      contextTokens: 256,
      microBatch: 1,
      loraRank: 4,
    });
    expect(estimate.parameters).toBe(33952);
    expect(estimate.downloadBytes).toBe(33952 * 4); // torch_dtype float32
    const gpt2 = {
      name: 'gpt2',
      has: async () => true,
      readFile: async () => new TextEncoder().encode('{"model_type": "gpt2"}'),
    };
    await expect(estimateFromSource(gpt2, run)).rejects.toThrow(
      /unsupported model: model_type "gpt2"/,
    );
  });

  it('formats bytes', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(2 * 1024 ** 3)).toBe('2.0 GB');
  });
});
