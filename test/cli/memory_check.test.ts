// `cli train` runs the page's memory check before reading any weights (src/cli/memory_check.ts):
// a model too large is refused with the page's own message, from a folder that holds config.json
// alone (so no weights are needed), and a tight one runs with the message on stderr.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTrainMemory } from '../../src/cli/memory_check.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { SHAPE_PRESETS } from '../../src/model_files/shape_presets.ts';
import { checkModelFits } from '../../src/ui/state/model_fit.ts';
import { cli } from './helpers.ts';

/** Qwen2.5-7B's shape: 7.6B parameters, 30 GB of float32 weights. */
const QWEN_7B = {
  model_type: 'qwen2',
  vocab_size: 152064,
  hidden_size: 3584,
  intermediate_size: 18944,
  num_hidden_layers: 28,
  num_attention_heads: 28,
  num_key_value_heads: 4,
};

/** SmolLM2-135M's shape: it loads, but the default run's worst case may not fit 4 GiB. */
const SMOLLM2_135M = {
  model_type: 'llama',
  vocab_size: 49152,
  hidden_size: 576,
  intermediate_size: 1536,
  num_hidden_layers: 30,
  num_attention_heads: 9,
  num_key_value_heads: 3,
  tie_word_embeddings: true,
};

/** A model folder with config.json and nothing else. */
function configOnlyFolder(config: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'config-only-'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}

/** A fetch that serves `config` as any hub repo's config.json (the page's path). */
const hubWith =
  (config: object): typeof fetch =>
  async (input) =>
    String(input).endsWith('/config.json')
      ? new Response(JSON.stringify(config), { status: 200 })
      : new Response('not found', { status: 404 });

describe('cli train memory check', () => {
  it("refuses a model too large with the page's message, from config.json alone", async () => {
    const dir = configOnlyFolder(QWEN_7B);
    const config = presetConfig('default', { model: 'big/qwen-7b' });
    let cliMessage = '';
    await checkTrainMemory(directorySource(dir), config, 'wasm').catch((error: Error) => {
      cliMessage = error.message;
    });
    // the page: the same model on the hub, checked before its download
    let pageMessage = '';
    await checkModelFits({ kind: 'hub', repo: 'big/qwen-7b' }, config, {
      fetch: hubWith(QWEN_7B),
      device: { backend: 'wasm' },
    }).catch((error: Error) => {
      pageMessage = error.message;
    });
    expect(cliMessage).toMatch(
      /^big\/qwen-7b cannot even load here: .* over 4\.0 GB, the 4 GiB heap limit of WebAssembly\. Fix: choose a smaller model/,
    );
    expect(cliMessage).toBe(pageMessage);
  });

  it('runs a tight model, with the message on stderr', async () => {
    const dir = configOnlyFolder(SMOLLM2_135M);
    const lines: string[] = [];
    // it loads, but 192 episodes of 20 turns × 4096 tokens cannot keep their KV caches in 4 GiB
    const config = presetConfig('default', {
      model: dir,
      groupSize: 64,
      maxTurns: 20,
      maxNewTokens: 4096,
    });
    const check = await checkTrainMemory(directorySource(dir), config, 'wasm', (line) =>
      lines.push(line),
    );
    expect(check.fit).toBe('tight');
    expect(lines).toEqual([`warning: ${check.message}\n`]);
    expect(check.message).toMatch(/long episodes may run out of memory/);
  });

  it('fits Qwen3-0.6B at the default run by sampling a few of its episodes at a time', async () => {
    // Qwen3-0.6B: 8 key/value heads of 128 over 28 layers. Measured (docs/performance.md): the
    // default run's 18 sequences at once ran out of the 4 GiB heap in the rollout; 8 at a time fit
    const dir = configOnlyFolder(SHAPE_PRESETS['qwen3-0.6b']!.config);
    const lines: string[] = [];
    const check = await checkTrainMemory(
      directorySource(dir),
      presetConfig('default', { model: dir, tasks: 'seed' }),
      'wasm',
      (line) => lines.push(line),
    );
    expect(check.fit).toBe('fits');
    expect(check.estimate.rolloutSequences).toBe(8);
    expect(check.message).toMatch(
      /The rollout samples 8 of the 18 episodes at a time, as many as 2\.0 GB of KV cache holds\.$/,
    );
    expect(lines).toEqual([]); // nothing to warn of
  });

  it('`cli train` exits non-zero with the JSON error before reading weights', async () => {
    const dir = configOnlyFolder(QWEN_7B);
    const run = join(dir, 'run.json');
    writeFileSync(run, JSON.stringify({ model: dir, steps: 1 }));
    const started = performance.now();
    const { code, json } = await cli('train', '--config', run);
    expect(code).not.toBe(0);
    expect(String(json.error)).toMatch(
      /cannot even load here: .* the 4 GiB heap limit of WebAssembly\. Fix: choose a smaller model/,
    );
    expect(String(json.error)).toContain(dir); // named as the config names it
    expect(performance.now() - started).toBeLessThan(60_000); // no sandbox, no weights
  });
});
