// The TRL export's rollout (rollout.py, what rollout_func hands TRL) played in CPython with test
// tokenizers (test/fixtures/trl/rollout_cases.py): the sampled ids stay as sampled and carry
// env_mask 1, the observation's ids are the tokenized delta of the rendered chat (env_mask 0,
// log-prob 0.0), and the whole sequence is the rendered chat, with a tokenizer that adds BOS and
// with sampled ids that are not the tokenizer's own encoding of their text, where the old
// re-render-and-slice way goes wrong; a Qwen3-style template that rewrites a past turn breaks the
// episode (dropped from the update, reward None) and is refused at start; a full context stops the
// episode; with a shared vLLM server every process joins every round until all are done.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presetConfig } from '../../src/run/presets.ts';
import { exportTrlProject } from '../../src/run/trl_export.ts';

const run = promisify(execFile);
const CASES = join(import.meta.dirname, '../fixtures/trl/rollout_cases.py');

interface Summary {
  bos_positions: number[];
  sampled: number[];
  observation_logprobs: number[];
  lengths_agree: boolean;
  ids_are_the_chat: boolean;
  mask: number[];
  end: string;
  prefix_broken: string | null;
  reward: number | null;
  sampled_expected?: number[];
}

interface Results {
  bos: Summary;
  naive_bos_is_ours: boolean;
  naive_split_is_ours: boolean;
  qwen3_think: Summary;
  qwen3_plain: Summary;
  template_problem: { qwen3: string | null; bos: string | null; always_bos: string | null };
  context_full: Summary;
  lockstep: { calls: number[]; ends: string[] };
  bad_prompt: string | null;
  unknown_logprob: { logprobs: number[]; mask: number[] };
}

describe('the exported rollout, as token ids', () => {
  let dir: string;
  let results: Results;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'trl-rollout-'));
    for (const [name, text] of Object.entries(exportTrlProject(presetConfig('reference')))) {
      await writeFile(join(dir, name), text);
    }
    const { stdout } = await run('python3', [CASES], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    results = JSON.parse(stdout) as Results;
  }, 60_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps the sampled ids, masks the observation, and the ids are the chat, with a BOS-adding tokenizer', () => {
    const bos = results.bos;
    expect(bos.sampled).toEqual(bos.sampled_expected);
    expect(bos.bos_positions).toEqual([0]);
    expect(bos.ids_are_the_chat).toBe(true);
    expect(bos.lengths_agree).toBe(true);
    expect(bos.observation_logprobs).toEqual([0]);
    expect(bos.mask.filter((m) => m === 0).length).toBeGreaterThan(0);
    expect({ end: bos.end, reward: bos.reward, broken: bos.prefix_broken }).toEqual({
      end: 'final_answer',
      reward: 1,
      broken: null,
    });
  });

  it('finds the observation where re-rendering and slicing the chat would not', () => {
    expect(results.naive_bos_is_ours).toBe(false);
    expect(results.naive_split_is_ours).toBe(false);
  });

  it('drops an episode whose past turn a Qwen3-style template rewrites, and refuses the template at start', () => {
    const broken = results.qwen3_think;
    expect(broken.prefix_broken).toMatch(/renders the model's turn differently/);
    expect(broken.end).toBe('error');
    expect(broken.mask.every((m) => m === 0)).toBe(true);
    expect(broken.reward).toBeNull();
    expect(results.template_problem.qwen3).toMatch(/renders the model's turn differently/);
    expect(results.template_problem.bos).toBeNull();
    // a turn without a think block is not rewritten, so the same template plays it
    expect({
      broken: results.qwen3_plain.prefix_broken,
      reward: results.qwen3_plain.reward,
    }).toEqual({
      broken: null,
      reward: 1,
    });
    expect(results.qwen3_plain.ids_are_the_chat).toBe(true);
  });

  it('refuses a tokenizer that adds BOS even when asked not to', () => {
    expect(results.template_problem.always_bos).toMatch(/does not give back the prompt/);
  });

  it('stops an episode whose observation would fill the context, as the tab does', () => {
    const full = results.context_full;
    expect(full.end).toBe('context_full');
    expect(full.mask.every((m) => m === 1)).toBe(true);
  });

  it('keeps a token whose log-prob vLLM reports as unknown (None, NaN) out of the loss', () => {
    expect(results.unknown_logprob).toEqual({ logprobs: [-0.5, 0, 0], mask: [1, 0, 0] });
  });

  it('joins every round while another process still plays, and refuses a prompt that is not the opening', () => {
    expect(results.lockstep).toEqual({
      calls: [2, 0, 0, 0],
      ends: ['final_answer', 'final_answer'],
    });
    expect(results.bad_prompt).toMatch(/not the protocol's opening turns/);
  });
});
