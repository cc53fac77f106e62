// PEFT adapter files: key names, transposes and the alpha/r scale, checked against an independent
// PyTorch merge (scripts/golden/peft_adapter.py: W + alpha/r * B A, then the float64 forward).
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import {
  exportPeftAdapter,
  importPeftAdapter,
  peftBaseModelName,
  unsupportedAdapterSettings,
} from '../../src/model/peft.ts';
import { parseSafetensors } from '../../src/model_files/safetensors.ts';
import { useBackend } from '../helpers/models.ts';
import { maxAbsDiff } from '../helpers/numbers.ts';

const fixture = 'test/fixtures/adapters/tiny-llama-r4';
const files = {
  'adapter_config.json': new Uint8Array(readFileSync(`${fixture}/adapter_config.json`)),
  'adapter_model.safetensors': new Uint8Array(readFileSync(`${fixture}/adapter_model.safetensors`)),
};
const golden = JSON.parse(readFileSync(`${fixture}/golden.json`, 'utf8')) as {
  ids: number[];
  logits: number[][];
};
const lora = (rank: number, alpha: number) => ({
  kind: 'lora' as const,
  lora: {
    rank,
    alpha,
    dropout: 0,
    targetModules: [
      'q_proj',
      'k_proj',
      'v_proj',
      'o_proj',
      'gate_proj',
      'up_proj',
      'down_proj',
    ] as ('q_proj' | 'k_proj' | 'v_proj' | 'o_proj' | 'gate_proj' | 'up_proj' | 'down_proj')[],
    seed: 0,
  },
});

describe('PEFT adapters', () => {
  beforeAll(() => useBackend('wasm'));

  it('an imported PEFT adapter gives the logits of the PyTorch-merged model', async () => {
    const model = await CausalLM.load(directorySource('test/fixtures/models/tiny-llama'), {
      training: lora(4, 8),
    });
    const before = model.logits(golden.ids);
    importPeftAdapter(model, files);
    const rows = model.logits(golden.ids);
    rows.forEach((row, t) => expect(maxAbsDiff(row, golden.logits[t]!)).toBeLessThan(1e-4));
    // The adapter really changes the model (so the check above is not passing on the base).
    expect(maxAbsDiff(before[1]!, golden.logits[1]!)).toBeGreaterThan(1e-2);
    model.dispose();
  });

  it('export writes the same tensors under the same names, and a config PEFT reads', async () => {
    const model = await CausalLM.load(directorySource('test/fixtures/models/tiny-llama'), {
      training: lora(4, 8),
    });
    importPeftAdapter(model, files);
    const exported = await exportPeftAdapter(model, 'tiny-llama');
    const ours = parseSafetensors(exported['adapter_model.safetensors']!);
    const theirs = parseSafetensors(files['adapter_model.safetensors']);
    expect([...ours.entries.keys()].sort()).toEqual([...theirs.entries.keys()].sort());
    for (const name of theirs.entries.keys()) {
      expect(ours.entries.get(name)!.shape).toEqual(theirs.entries.get(name)!.shape);
      expect(maxAbsDiff(ours.float32(name), theirs.float32(name))).toBe(0);
    }
    const config = JSON.parse(new TextDecoder().decode(exported['adapter_config.json']!)) as Record<
      string,
      unknown
    >;
    expect(config).toMatchObject({
      peft_type: 'LORA',
      task_type: 'CAUSAL_LM',
      r: 4,
      lora_alpha: 8,
      base_model_name_or_path: 'tiny-llama',
    });
    model.dispose();
  });

  it('refuses an adapter whose rank differs from the run, saying what to set', async () => {
    const model = await CausalLM.load(directorySource('test/fixtures/models/tiny-llama'), {
      training: lora(8, 16),
    });
    expect(() => importPeftAdapter(model, files)).toThrow(
      /r=4, lora_alpha=8 but this run uses r=8.*Fix: set loraRank/,
    );
    expect(() =>
      importPeftAdapter(model, { 'adapter_config.json': files['adapter_config.json'] }),
    ).toThrow(/adapter_model.safetensors/);
    model.dispose();
  });
});

describe('PEFT adapter settings the importer does not implement', () => {
  beforeAll(() => useBackend('wasm'));
  const config = JSON.parse(new TextDecoder().decode(files['adapter_config.json'])) as Record<
    string,
    unknown
  >;
  const withConfig = (changes: Record<string, unknown>) => ({
    ...files,
    'adapter_config.json': new TextEncoder().encode(JSON.stringify({ ...config, ...changes })),
  });

  it("PEFT's own defaults (false, empty patterns, or absent) are accepted", () => {
    expect(
      unsupportedAdapterSettings({
        ...config,
        use_rslora: false,
        use_dora: false,
        fan_in_fan_out: false,
        rank_pattern: {},
        alpha_pattern: {},
      }),
    ).toEqual([]);
    expect(unsupportedAdapterSettings({ r: 4, lora_alpha: 8 })).toEqual([]);
  });

  it.each([
    [
      'use_rslora',
      true,
      /use_rslora: true.*sqrt\(r\).*Fix: train the adapter with use_rslora=False/,
    ],
    ['use_dora', true, /use_dora: true.*DoRA.*Fix:/],
    ['fan_in_fan_out', true, /fan_in_fan_out: true.*transposed.*Fix:/],
    [
      'rank_pattern',
      { 'model.layers.0.self_attn.q_proj': 8 },
      /rank_pattern: \{.*Fix:.*empty rank_pattern/,
    ],
    ['alpha_pattern', { q_proj: 32 }, /alpha_pattern: \{"q_proj":32\}.*Fix:/],
  ])('an adapter with %s set is refused, the message naming it', async (field, value, message) => {
    expect(unsupportedAdapterSettings({ ...config, [field]: value })).toEqual([
      expect.stringMatching(message),
    ]);
    const model = await CausalLM.load(directorySource('test/fixtures/models/tiny-llama'), {
      training: lora(4, 8),
    });
    expect(() => importPeftAdapter(model, withConfig({ [field]: value }))).toThrow(message);
    model.dispose();
  });
});

describe("the exported adapter's base_model_name_or_path", () => {
  it('is the hub id for a hub model, the folder name for a folder, demo for the demo', () => {
    expect(peftBaseModelName('Qwen/Qwen2.5-0.5B-Instruct', 'hub')).toBe(
      'Qwen/Qwen2.5-0.5B-Instruct',
    );
    expect(peftBaseModelName('owner/tiny (http://127.0.0.1:8080)', 'hub')).toBe('owner/tiny');
    expect(peftBaseModelName('/home/me/models/SmolLM2-135M-Instruct', 'path')).toBe(
      'SmolLM2-135M-Instruct',
    );
    expect(peftBaseModelName('/home/me/models/tiny/', 'path')).toBe('tiny');
    expect(peftBaseModelName('my-model', 'files')).toBe('my-model');
    expect(peftBaseModelName('demo', 'demo')).toBe('demo');
  });
});
