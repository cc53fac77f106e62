// `export-trl`: the default run exported through the CLI runs with Debian's python3 (no TRL):
// `rewards.py --self-test` (reference solutions 1, wrong and hack programs 0) and
// `train.py --dry-run` (tasks, the config mapping, one scripted episode that scores 1); a search
// run exports its docs index and its dry run plays a search turn.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './helpers.ts';
import { writeFile } from 'node:fs/promises';

const run = promisify(execFile);
const dirs: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'export-trl-'));
  dirs.push(dir);
  return dir;
}

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('export-trl (CLI)', () => {
  it('exports the default run; rewards.py --self-test and train.py --dry-run pass with python3', async () => {
    const dir = await tempDir();
    const config = join(dir, 'config.json');
    await writeFile(config, '{}');
    const out = join(dir, 'project');
    const { code, json } = await cli('export-trl', '--config', config, '--out', out);
    expect(code).toBe(0);
    const files = [
      'README.md',
      'environment.py',
      'judge_child.py',
      'protocol.py',
      'requirements.txt',
      'rewards.py',
      'rollout.py',
      'tasks.jsonl',
      'train.py',
    ];
    expect(json).toEqual({ out, files, tasks: 3 });
    expect((await readdir(out)).sort()).toEqual(files);

    const selfTest = await run('python3', ['rewards.py', '--self-test'], { cwd: out });
    expect(JSON.parse(selfTest.stdout)).toEqual({
      reference_solutions: 3,
      wrong_programs: 3,
      hack_and_wrong_programs: expect.any(Number),
      failures: [],
    });

    const dry = await run('python3', ['train.py', '--dry-run'], { cwd: out });
    const [mapping, episode] = dry.stdout.split(/\n(?=\{)/).map((part) => JSON.parse(part));
    expect(mapping.tasks).toBe(3);
    expect(mapping.model).toBeNull();
    expect(mapping.grpo_config).toMatchObject({
      num_generations: 4,
      generation_batch_size: 12,
      learning_rate: 5e-5,
      beta: 0.04,
      epsilon: 0.2,
      epsilon_high: 0.2,
      loss_type: 'grpo',
      max_steps: 30,
      seed: 0,
    });
    expect(mapping.lora_config).toMatchObject({ r: 8, lora_alpha: 16 });
    expect(episode).toMatchObject({
      task: 'seed/fibonacci',
      turns: 2,
      end: 'final_answer',
      final_answer: '55',
      reward: 1,
    });
  }, 120_000);

  it('refuses a missing --out, saying what to fix', async () => {
    const dir = await tempDir();
    const config = join(dir, 'config.json');
    await writeFile(config, '{}');
    const noOut = await cli('export-trl', '--config', config);
    expect(noOut.code).not.toBe(0);
    expect(String(noOut.json.error)).toMatch(/--out/);
  }, 60_000);

  it('exports a search run with its docs index; the dry run searches, runs and answers', async () => {
    const dir = await tempDir();
    const config = join(dir, 'config.json');
    await writeFile(
      config,
      JSON.stringify({ tasks: 'search', tools: ['execute_code', 'search', 'finish'] }),
    );
    const out = join(dir, 'project');
    const { code, json } = await cli('export-trl', '--config', config, '--out', out);
    expect(code).toBe(0);
    expect(json.files).toEqual(expect.arrayContaining(['docs.json', 'docs_search.py']));
    const dry = await run('python3', ['train.py', '--dry-run'], { cwd: out });
    const [, episode] = dry.stdout.split(/\n(?=\{)/).map((part) => JSON.parse(part));
    expect(episode).toMatchObject({
      turns: 3,
      end: 'final_answer',
      reward: 1,
      search: { tool: 'search', observation: expect.stringMatching(/^Search results:\n1\. /) },
    });
  }, 60_000);
});
