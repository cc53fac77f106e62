// Exports: JSONL lines parse back to the records, the CSV matches a hand-written table, and the
// zip writer is checked against an independent reader (Python's zipfile).
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  crc32,
  metricsCsv,
  metricsJson,
  trajectoriesJsonl,
  unzipStored,
  zipFiles,
} from '../../src/run/exports.ts';
import { buildMetrics, buildTrajectory } from '../helpers/records.ts';

const sample = buildTrajectory({
  step: 3,
  taskId: 'seed/fibonacci',
  prompt: 'Compute F(10).',
  groupIndex: 0,
  sampleIndex: 1,
  reward: 1,
  advantage: 0.87,
  finalAnswer: '55',
  turns: [
    { text: '```python\nprint(55)\n```', code: 'print(55)', result: { observation: '55\n' } },
    { text: 'FINAL ANSWER: 55', code: null },
  ],
}).trajectory;

describe('trajectoriesJsonl', () => {
  it('writes one parseable line per trajectory with messages, rewards and advantages', () => {
    const text = trajectoriesJsonl([
      {
        step: 3,
        trajectories: [
          sample,
          {
            ...sample,
            id: '3/0/2',
            reward: 0,
            advantage: -0.87,
            tampered: ['redefines builtin exec'],
          },
        ],
      },
    ]);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      step: 3,
      id: '3/0/1',
      taskId: 'seed/fibonacci',
      reward: 1,
      advantage: 0.87,
      passed: true,
      finalAnswer: '55',
      turns: 2,
    });
    expect(lines[0].messages.map((m: { role: string }) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(lines[1]).toMatchObject({ id: '3/0/2', reward: 0, advantage: -0.87 });
    // what the judge caught travels with the sample
    expect(lines[0].tampered).toEqual([]);
    expect(lines[1].tampered).toEqual(['redefines builtin exec']);
    expect(lines[0].ids).toBeUndefined();
    const withTokens = JSON.parse(
      trajectoriesJsonl([{ step: 3, trajectories: [sample] }], { tokens: true }).trim(),
    );
    expect(withTokens.actionMask).toEqual(sample.actionMask);
    expect(trajectoriesJsonl([])).toBe('');
  });
});

describe('metricsCsv', () => {
  it('flattens reward parts, leaves nulls empty and quotes text with commas', () => {
    const rows = [
      buildMetrics(1, {
        reward_parts: { output_match: 0.5 },
        loss: null,
        update_skipped: 'non-finite loss, skipped',
      }),
      buildMetrics(2, { reward_parts: { output_match: 1, tests: 0.25 } }),
    ];
    const [header, first, second] = metricsCsv(rows).trimEnd().split('\n');
    const columns = header!.split(',');
    expect(columns.slice(0, 4)).toEqual(['step', 'reward_mean', 'reward_max', 'reward_std']);
    expect(columns.slice(-2)).toEqual(['reward_output_match', 'reward_tests']);
    expect(columns).not.toContain('reward_parts');
    const cell = (line: string, name: string) => {
      // split on commas outside quotes
      const cells = line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, ''));
      return cells[columns.indexOf(name)];
    };
    expect(cell(first!, 'reward_output_match')).toBe('0.5');
    expect(cell(first!, 'reward_tests')).toBe('');
    expect(cell(first!, 'loss')).toBe('');
    expect(cell(first!, 'update_skipped')).toBe('"non-finite loss, skipped"');
    expect(cell(second!, 'reward_tests')).toBe('0.25');
    expect(cell(second!, 'loss')).toBe('0.012');
    expect(JSON.parse(metricsJson(rows))[1].reward_parts.tests).toBe(0.25);
  });
});

describe('zipFiles', () => {
  it('computes the standard CRC-32 check value', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });

  it("writes an archive that Python's zipfile reads byte for byte, and reads it back", () => {
    const files = {
      'adapter_config.json': new TextEncoder().encode('{"peft_type": "LORA", "r": 8}'),
      'adapter_model.safetensors': Uint8Array.from({ length: 5000 }, (_, i) => (i * 37) % 256),
    };
    const zip = zipFiles(files);
    const dir = mkdtempSync(join(tmpdir(), 'zip-'));
    writeFileSync(join(dir, 'adapter.zip'), zip);
    const script =
      'import zipfile,sys,json\nz=zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nz.extractall(sys.argv[2])\nprint(json.dumps(z.namelist()))';
    const names = JSON.parse(
      execFileSync('/usr/bin/python3', ['-c', script, join(dir, 'adapter.zip'), join(dir, 'out')], {
        encoding: 'utf8',
      }),
    );
    expect(names).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
    for (const [name, bytes] of Object.entries(files))
      expect(new Uint8Array(readFileSync(join(dir, 'out', name)))).toEqual(bytes);
    expect(unzipStored(zip)).toEqual(files);
  });

  it('reads a stored archive written by Python, and refuses what is not a zip', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zip-'));
    const script =
      'import zipfile,sys\nwith zipfile.ZipFile(sys.argv[1],"w") as z:\n  z.writestr("a.txt","hello")\n  z.writestr("b/c.bin",bytes(range(256)))';
    execFileSync('/usr/bin/python3', ['-c', script, join(dir, 'p.zip')]);
    const files = unzipStored(new Uint8Array(readFileSync(join(dir, 'p.zip'))));
    expect(new TextDecoder().decode(files['a.txt'])).toBe('hello');
    expect(files['b/c.bin']).toEqual(Uint8Array.from({ length: 256 }, (_, i) => i));
    expect(() => unzipStored(new TextEncoder().encode('not a zip at all, just text'))).toThrow(
      /not a \.zip file.*Fix:/,
    );
  });
});
