// `train` and `eval` through a subprocess, as a user runs them: JSON lines per step with the
// metrics, a summary, a saved PEFT adapter, and eval of that adapter.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeModelFolder, PROMPT } from '../helpers/tiny_policy.ts';
import { cli, cliLines } from './helpers.ts';

describe('train and eval CLI commands', () => {
  let modelDir: string;
  const work = mkdtempSync(join(tmpdir(), 'train-cli-'));
  beforeAll(async () => {
    modelDir = await makeModelFolder();
  }, 300_000);

  it('train prints one metrics line per step and a summary, and --out saves the adapter; eval reads it', async () => {
    const config = {
      model: modelDir,
      tasks: 'custom',
      customTasks: [{ prompt: PROMPT, expectedOutput: '7' }],
      steps: 2,
      groupSize: 4,
      maxTurns: 1,
      maxNewTokens: 24,
      evalEvery: 0,
      seed: 3,
    };
    writeFileSync(join(work, 'run.json'), JSON.stringify(config));
    const out = join(work, 'out');
    const { code, lines } = await cliLines(
      'train',
      '--config',
      join(work, 'run.json'),
      '--out',
      out,
    );
    expect(code).toBe(0);
    expect(lines).toHaveLength(3);
    lines.slice(0, 2).forEach((line, i) => {
      expect(line.step).toBe(i + 1);
      for (const key of [
        'reward_mean',
        'loss',
        'kl',
        'pass_rate',
        'seconds_generate',
        'ran_code_fraction',
        'search_fraction',
        'overlap_fraction',
        'seconds_idle_trainer',
        'seconds_idle_rollout',
      ])
        expect(line).toHaveProperty(key);
      // the synchronous loop never overlaps rollout and update; each idles while the other works
      expect(line.overlap_fraction).toBe(0);
      expect(line.seconds_idle_trainer).toBeGreaterThan(0);
      expect(line.seconds_idle_rollout).toBeGreaterThan(0);
      expect(line).not.toHaveProperty('staleness');
      // a run without the search tool never searches
      expect(line.search_fraction).toBe(0);
    });
    expect(lines[2]!.summary).toMatchObject({ steps: 2 });
    for (const file of [
      'adapter_config.json',
      'adapter_model.safetensors',
      'run_config.json',
      'run_link.txt',
    ])
      expect(existsSync(join(out, file))).toBe(true);

    const evaluated = await cli(
      'eval',
      '--model',
      modelDir,
      '--adapter',
      out,
      '--tasks',
      'seed',
      '--samples',
      '2',
    );
    expect(evaluated.code).toBe(0);
    expect(Object.keys(evaluated.json.tasks as object).sort()).toEqual(
      ['seed/fibonacci', 'seed/palindrome', 'seed/sort'].sort(),
    );
    expect(evaluated.json['pass@1']).toBeGreaterThanOrEqual(0);
    expect(evaluated.json.k).toBe(2);
  }, 600_000);

  it('a config with a mistake fails with the fix, before loading anything', async () => {
    writeFileSync(join(work, 'bad.json'), JSON.stringify({ groupSize: 1, stpes: 3 }));
    const { code, json } = await cli('train', '--config', join(work, 'bad.json'));
    expect(code).not.toBe(0);
    expect(json.error).toMatch(/groupSize must be/);
    expect(json.error).toMatch(/did you mean steps/);
  }, 60_000);
});
