// `make-shape-model` through the real CLI (docs/architecture.md §8): the small preset is written,
// then `generate` runs on it, both as `npm run cli` runs them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './helpers.ts';

let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'shape-model-cli-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('cli make-shape-model', () => {
  it('writes tiny-qwen, and generate samples 4 tokens from it', async () => {
    const dir = join(scratch, 'tiny');
    const made = await cli(
      'make-shape-model',
      '--preset',
      'tiny-qwen',
      '--out',
      dir,
      '--seed',
      '3',
    );
    expect(made.code).toBe(0);
    expect(made.json).toMatchObject({ preset: 'tiny-qwen', dir, numLayers: 4 });
    expect(made.json.parameters).toBeGreaterThan(2_000_000);
    const generated = await cli(
      'generate',
      '--model',
      dir,
      '--prompt',
      'hi',
      '--max-new-tokens',
      '4',
    );
    expect(generated.code).toBe(0);
    expect(generated.json.ids).toHaveLength(4);
    expect(typeof generated.json.text).toBe('string');
  });

  it('says what is missing or unknown, as JSON with a non-zero exit', async () => {
    const missing = await cli('make-shape-model', '--preset', 'tiny-qwen');
    expect(missing.code).not.toBe(0);
    expect(missing.json.error).toMatch(/missing --out/);
    const unknown = await cli('make-shape-model', '--preset', 'llama-70b', '--out', scratch);
    expect(unknown.json.error).toMatch(/unknown shape preset "llama-70b"; available: smollm2-135m/);
  });
});
