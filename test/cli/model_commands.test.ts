// The CLI contract (DESIGN.md §8) through a real subprocess: JSON on stdout, errors as {"error"}.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fixture, golden, maxAbsDiff } from '../model/helpers.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const run = promisify(execFile);

async function cli(...args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  try {
    const { stdout } = await run('npx', ['tsx', 'src/cli.ts', ...args], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, json: JSON.parse(stdout) as Record<string, unknown> };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, json: JSON.parse(failed.stdout) as Record<string, unknown> };
  }
}

describe('model CLI commands', () => {
  it('logits prints one float32 row per position, matching the PyTorch golden values', async () => {
    const expected = golden('tiny-llama-bf16');
    const { code, json } = await cli('logits', '--model', fixture('tiny-llama-bf16'), '--ids', expected.ids.join(','));
    expect(code).toBe(0);
    const logits = json.logits as number[][];
    expect(logits).toHaveLength(expected.ids.length);
    logits.forEach((row, t) => expect(maxAbsDiff(row, expected.logits[t]!)).toBeLessThan(1e-4));
  });

  it('generate prints the new text and ids, reproducibly for a seed', async () => {
    const args = ['generate', '--model', fixture('tiny-llama'), '--prompt', 'Hi there', '--max-new-tokens', '6', '--seed', '3'];
    const first = await cli(...args);
    const again = await cli(...args);
    expect(first.code).toBe(0);
    expect(Object.keys(first.json).sort()).toEqual(['ids', 'text']);
    expect(first.json.ids).toHaveLength(6);
    expect(typeof first.json.text).toBe('string');
    expect(again.json).toEqual(first.json);
  });

  it('errors are JSON with a non-zero exit', async () => {
    const bad = await cli('logits', '--model', fixture('tiny-llama'), '--ids', '1,999');
    expect(bad.code).not.toBe(0);
    expect(bad.json.error).toMatch(/token id 999 outside the vocabulary \[0, 288\)/);
    const missing = await cli('logits', '--model', fixture('tiny-llama'));
    expect(missing.json.error).toMatch(/missing --ids/);
  });
});
