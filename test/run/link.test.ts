// Run links: round trips (including compressed custom tasks) and bad links that fall back field by
// field.
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/run/config.ts';
import { parseRunConfig } from '../../src/run/config_validation.ts';
import { compressText, decodeLink, decompressText, encodeLink } from '../../src/run/link.ts';

const customTasks = [
  { prompt: 'Print the sum of 1..10 — «unicode», "quotes" & ampersands', expectedOutput: '55' },
  {
    prompt: 'Define `add(a, b)`.',
    tests: 'assert add(2, 3) == 5\nfor x in range(3):\n    assert add(x, 0) == x',
  },
];

describe('run links', () => {
  it('the default run is just the version and the seed', async () => {
    expect(await encodeLink(defaultConfig())).toBe('#v=1&seed=0');
    expect(await decodeLink('#v=1&seed=0')).toEqual({
      config: defaultConfig(),
      fallbacks: [],
      autostart: false,
      hide: [],
    });
  });

  it('round-trips every kind of field, custom tasks compressed, and link options', async () => {
    const config = parseRunConfig({
      model: 'HuggingFaceTB/SmolLM2-135M-Instruct',
      tasks: 'seed+builtin',
      customTasks,
      groupSize: 8,
      lr: 1e-4,
      clipEpsHigh: 0.28,
      aggregation: 'dr_grpo',
      finetune: 'full',
      loraTargets: ['q_proj', 'v_proj'],
      rewards: { final_answer: 0.5, format: 0.1 },
      partialCredit: true,
      parser: 'reference',
      seed: 1234,
      backend: 'wasm',
      skipZeroStdGroups: true,
      temperature: 0.7,
    });
    const link = await encodeLink(config, { autostart: true, hide: ['lr', 'klCoef'] });
    expect(link).toMatch(
      /^#v=1&m=HuggingFaceTB%2FSmolLM2-135M-Instruct&t=seed%2Bbuiltin&ct=[A-Za-z0-9_-]+&g=8&temp=0.7&lr=0.0001&ceh=0.28/,
    );
    expect(link).toContain('lt=q_proj,v_proj');
    expect(link).toContain('rw=output_match:1,tests:1,final_answer:0.5,format:0.1');
    expect(link).toContain('seed=1234');
    expect(link).toMatch(/&autostart=1&hide=lr,klCoef$/);
    expect(await decodeLink(`https://example.org/agentic/?x=1${link}`)).toEqual({
      config,
      fallbacks: [],
      autostart: true,
      hide: ['lr', 'klCoef'],
    });
  });

  it('compresses custom tasks well below their JSON size', async () => {
    const many = Array.from({ length: 10 }, (_, i) => ({
      prompt: `Define a function \`f${i}(n)\` that returns n * ${i}. Then print f${i}(3).`,
      expectedOutput: String(3 * i),
    }));
    const encoded = await compressText(JSON.stringify(many));
    expect(encoded.length).toBeLessThan(JSON.stringify(many).length / 2);
    expect(JSON.parse(await decompressText(encoded))).toEqual(many);
  });

  it('a bad link restores what it can and lists each fallback with its reason', async () => {
    const { config, fallbacks } = await decodeLink(
      '#v=1&seed=7&g=abc&mt=99&zz=1&kl=0.1&sz=maybe&agg=mean&ct=%%%&rw=tests',
    );
    expect(config.seed).toBe(7);
    expect(config.klCoef).toBe(0.1);
    expect(config.groupSize).toBe(4);
    expect(config.maxTurns).toBe(3);
    expect(config.customTasks).toEqual([]);
    const reasons = Object.fromEntries(fallbacks.map((f) => [f.field, f.reason]));
    expect(Object.keys(reasons).sort()).toEqual([
      'aggregation',
      'customTasks',
      'groupSize',
      'maxTurns',
      'rewards',
      'skipZeroStdGroups',
      'zz',
    ]);
    expect(reasons.groupSize).toMatch(/"abc" is not a number \(using the default\)/);
    expect(reasons.maxTurns).toMatch(/maxTurns must be a whole number from 1 to 20, got 99/);
    expect(reasons.zz).toMatch(/unknown key "zz" ignored/);
    expect(reasons.customTasks).toMatch(/damaged/);
    expect(reasons.aggregation).toMatch(/one of seed, token, dr_grpo/);
    expect(reasons.rewards).toMatch(/not name:weight/);
  });

  it('version problems are reported; fields still decode', async () => {
    expect((await decodeLink('#g=8')).fallbacks).toEqual([
      { field: 'v', reason: expect.stringMatching(/no schema version/) },
    ]);
    const newer = await decodeLink('#v=2&g=8');
    expect(newer.config.groupSize).toBe(8);
    expect(newer.fallbacks[0]!.reason).toMatch(/schema version "2"/);
    expect((await decodeLink('')).config).toEqual(defaultConfig());
  });

  it('cross-field problems fall back too (custom set without tasks)', async () => {
    const { config, fallbacks } = await decodeLink('#v=1&t=custom');
    expect(config.tasks).toBe('seed');
    expect(fallbacks).toEqual([
      {
        field: 'tasks',
        reason: expect.stringMatching(/no custom tasks. Fix: .* \(using the default\)/),
      },
    ]);
  });

  it('invalid custom tasks inside a well-formed link are reported with the fix', async () => {
    const ct = await compressText(JSON.stringify([{ prompt: '', expectedOutput: '1' }]));
    const { fallbacks } = await decodeLink(`#v=1&ct=${ct}`);
    expect(fallbacks).toEqual([
      {
        field: 'customTasks',
        reason: expect.stringMatching(/custom task 1: the prompt is empty. Fix/),
      },
    ]);
  });

  it('refuses data that inflates past the limit', async () => {
    const bomb = await compressText('a'.repeat(300 * 1024));
    expect(bomb.length).toBeLessThan(2000);
    await expect(decompressText(bomb)).rejects.toThrow(/inflates to more than/);
    const { fallbacks } = await decodeLink(`#v=1&ct=${bomb}`);
    expect(fallbacks[0]!.reason).toMatch(/damaged \(it inflates/);
  });
});
