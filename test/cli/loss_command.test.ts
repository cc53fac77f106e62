// `loss --model DIR --batch FILE` through a subprocess, against the PyTorch golden batch.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './helpers.ts';

const golden = JSON.parse(readFileSync('test/fixtures/grpo_model_loss.json', 'utf8')) as {
  cases: { name: string; batch: unknown; loss: number; gradNorm: number }[];
};
const dir = mkdtempSync(join(tmpdir(), 'loss-cli-'));

describe('loss CLI command', () => {
  it('prints {"loss", "gradNorm"} matching PyTorch for a batch with old log-probs and a KL reference', async () => {
    const c = golden.cases[0]!;
    const file = join(dir, 'batch.json');
    writeFileSync(file, JSON.stringify(c.batch));
    const { code, json } = await cli(
      'loss',
      '--model',
      'test/fixtures/models/tiny-llama',
      '--batch',
      file,
    );
    expect(code).toBe(0);
    expect(Object.keys(json).sort()).toEqual(['gradNorm', 'loss']);
    expect(Math.abs((json.loss as number) - c.loss)).toBeLessThan(1e-5);
    expect(Math.abs((json.gradNorm as number) - c.gradNorm) / c.gradNorm).toBeLessThan(1e-4);
  });

  it("keeps each sequence's old log-probs when another sequence in the batch has none", async () => {
    const c = golden.cases.find((x) => x.name === 'seed_mixed_old')!;
    const file = join(dir, 'mixed.json');
    writeFileSync(file, JSON.stringify(c.batch));
    const { code, json } = await cli(
      'loss',
      '--model',
      'test/fixtures/models/tiny-llama',
      '--batch',
      file,
    );
    expect(code).toBe(0);
    expect(Math.abs((json.loss as number) - c.loss)).toBeLessThan(1e-5);
    expect(Math.abs((json.gradNorm as number) - c.gradNorm) / c.gradNorm).toBeLessThan(1e-4);
  });

  it('names the field that is wrong in a malformed batch', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        sequences: [{ ids: [1, 2, 3], actionMask: [1, 1, 1], advantage: 1, oldLogprobs: null }],
        clipEps: 0.2,
        klCoef: 0,
        ref: null,
        aggregation: 'seed',
      }),
    );
    const { code, json } = await cli(
      'loss',
      '--model',
      'test/fixtures/models/tiny-llama',
      '--batch',
      file,
    );
    expect(code).not.toBe(0);
    expect(json.error).toMatch(/actionMask\[0\] must be 0/);
  });
});
