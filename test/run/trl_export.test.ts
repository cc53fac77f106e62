// The TRL export's environment against the tab's: the exported parsers give the tab's actions on the
// same turns, protocol.py holds the tab's strings, the exported sandbox's observations match the
// tab's (output tail, a traceback's last line, TIMEOUT), and the config mapping follows the run.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import type { SandboxPool } from '../../src/env/pool.ts';
import { parseReference, parseStrict, SYSTEM_PROMPT } from '../../src/rl/actions.ts';
import { defaultConfig } from '../../src/run/config.ts';
import {
  baseModelName,
  exportTrlProject,
  grpoMapping,
  loraMapping,
} from '../../src/run/trl_export.ts';

const run = promisify(execFile);
const F = '```';

/** Runs a Python snippet in the exported folder with JSON in on stdin; returns its JSON output. */
async function python(dir: string, script: string, input: unknown): Promise<unknown> {
  const file = join(dir, 'probe_input.json');
  await writeFile(file, JSON.stringify(input));
  const { stdout } = await run('python3', ['-c', script, file], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout);
}

const TURNS = [
  `${F}python\nprint(1)\n${F}`,
  `Let me try.\n${F}\nx = 2\nprint(x)\n${F}\nthen more`,
  `${F}py\nprint('cut off`,
  'FINAL ANSWER: 42',
  'final answer:   spaced out  \n',
  'FINAL ANSWER:\n\n  next line',
  'FINAL ANSWER:',
  `${F}python\n${F}`,
  `${F}javascript\nconsole.log(1)\n${F}`,
  'just words',
  `${F}python\nprint("FINAL ANSWER: 3")\n${F}`,
  `FINAL ANSWER: 5\n${F}python\nprint(5)\n${F}`,
  `${F}python3   \nprint(3)\n${F}${F}python\nprint(4)\n${F}`,
  `${F}search\nmedian\n${F}`,
  'SEARCH: gcd',
  `${F}Python\nprint('tag case')\n${F}`,
  `text ${F}python\nprint(1)`,
  '',
];

describe('the TRL export against the tab', () => {
  let dir: string;
  let pool: SandboxPool;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'trl-export-'));
    const files = exportTrlProject({ ...defaultConfig(), timeoutMs: 2000 });
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    pool = await createNodeSandboxPool({ size: 1, spares: 1, timeoutMs: 2000 });
  }, 60_000);

  afterAll(async () => {
    await pool?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('parses every turn as the tab does (strict and reference parsers)', async () => {
    const got = (await python(
      dir,
      'import json, sys, environment\nturns = json.load(open(sys.argv[1]))\nprint(json.dumps([[environment.parse_strict(t), environment.parse_reference(t)] for t in turns]))',
      TURNS,
    )) as unknown[][];
    const strip = (action: Record<string, unknown>) =>
      action.type === 'execute_code' ? action : { ...action, unterminated: undefined };
    TURNS.forEach((turn, i) => {
      const [strict, reference] = got[i] as Record<string, unknown>[];
      expect({ turn, action: strip(strict!) }).toEqual({
        turn,
        action: strip(parseStrict(turn) as unknown as Record<string, unknown>),
      });
      expect({ turn, action: reference }).toEqual({ turn, action: parseReference(turn) });
    });
  });

  it("writes the tab's system prompt and limits into protocol.py", async () => {
    const got = await python(
      dir,
      'import json, protocol\nprint(json.dumps([protocol.SYSTEM_PROMPT, protocol.MAX_TURNS, protocol.MAX_NEW_TOKENS, protocol.TIMEOUT_S, protocol.MAX_OUTPUT_CHARS, protocol.REWARD_WEIGHTS]))',
      null,
    );
    expect(got).toEqual([
      SYSTEM_PROMPT,
      3,
      128,
      2,
      500,
      { output_match: 1, tests: 1, final_answer: 0, format: 0, tool_use: 0 },
    ]);
  });

  it("gives the tab's observations: the output's tail, a traceback's last line, TIMEOUT", async () => {
    const programs = [
      'print("hello")\nprint(1 + 1)',
      'for i in range(400):\n    print(i)',
      'import sys\nprint("out")\nprint("err", file=sys.stderr)\nprint("out again")',
      'x = [1, 2]\nprint(x[5])',
      'def f():\n    raise ValueError("bad value")\nf()',
      'print("before")\nraise SystemExit("bye")',
      'while True:\n    pass',
      'print("no newline", end="")',
    ];
    const got = (await python(
      dir,
      'import json, sys, environment\nprograms = json.load(open(sys.argv[1]))\nprint(json.dumps([environment.run_program(p) for p in programs]))',
      programs,
    )) as { observation: string; timed_out: boolean }[];
    for (const [i, code] of programs.entries()) {
      const tab = await pool.execute(code);
      const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);
      const traceback = /Traceback/.test(tab.observation);
      expect({ code, timedOut: got[i]!.timed_out }).toEqual({ code, timedOut: tab.timedOut });
      if (traceback) {
        // tracebacks' frames differ between CPython versions; the error line is the same
        expect({ code, last: lastLine(got[i]!.observation) }).toEqual({
          code,
          last: lastLine(tab.observation),
        });
      } else {
        expect({ code, observation: got[i]!.observation }).toEqual({
          code,
          observation: tab.observation,
        });
      }
    }
  }, 60_000);
});

describe('the config mapping', () => {
  it('maps a run field by field, and a full run has no LoraConfig', () => {
    const config = {
      ...defaultConfig(),
      groupSize: 8,
      promptsPerStep: 5,
      microBatchSize: 16,
      aggregation: 'token' as const,
      clipEpsHigh: 0.28,
      ppoEpochs: 2,
      klCoef: 0,
      finetune: 'full' as const,
      maxTurns: 4,
      maxNewTokens: 100,
    };
    const mapped = Object.fromEntries(
      Object.entries(grpoMapping(config, 40)).map(([k, v]) => [k, v.value]),
    );
    expect(mapped).toMatchObject({
      num_generations: 8,
      generation_batch_size: 40,
      // 40 completions in passes of the largest divisor of 40 that is at most 16
      per_device_train_batch_size: 10,
      gradient_accumulation_steps: 4,
      max_steps: 60,
      lr_scheduler_type: 'constant',
      generation_kwargs: { max_tokens: 100 },
      max_completion_length: 400,
      epsilon: 0.2,
      epsilon_high: 0.28,
      num_iterations: 2,
      beta: 0,
      loss_type: 'dapo',
    });
    // prompts per step never exceed the tasks there are (the tab draws distinct tasks)
    expect(grpoMapping(config, 3).generation_batch_size!.value).toBe(24);
    expect(grpoMapping({ ...config, promptsPerStep: null }, 7).generation_batch_size!.value).toBe(
      56,
    );
    expect(loraMapping(config)).toBeNull();
    expect(loraMapping(defaultConfig())).toMatchObject({
      r: { value: 8 },
      lora_alpha: { value: 16 },
    });
  });

  it("says in the project's README which of the run's settings TRL has no counterpart for", () => {
    const plain = exportTrlProject({ ...defaultConfig(), evalEvery: 0 })['README.md']!;
    expect(plain).not.toContain('Not mapped');
    const readme = exportTrlProject({
      ...defaultConfig(),
      async: true,
      skipZeroStdGroups: true,
      taskSampling: 'learnable',
      evalEvery: 5,
      finetune: 'full',
    })['README.md']!;
    for (const field of ['async', 'skipZeroStdGroups', "taskSampling: 'learnable'", 'evalEvery'])
      expect(readme).toContain(`- Not mapped: \`${field}\``);
    expect(readme).toContain("- Not mapped: `finetune: 'full'`");
  });

  it('names the base model as PEFT and TRL can load it: hub id, folder name, none for the demo', () => {
    expect(baseModelName('Qwen/Qwen2.5-0.5B-Instruct')).toBe('Qwen/Qwen2.5-0.5B-Instruct');
    expect(baseModelName('/data/models/my-model/')).toBe('my-model');
    expect(baseModelName('demo')).toBeNull();
    const files = exportTrlProject({ ...defaultConfig(), model: 'Qwen/Qwen2.5-0.5B-Instruct' });
    expect(files['train.py']).toContain('MODEL = "Qwen/Qwen2.5-0.5B-Instruct"');
    expect(files['requirements.txt']).toMatch(/^trl\[vllm\]==\d+\.\d+\.\d+$/m);
  });
});
