// `train --link`: a link is the page's default run plus its fields; notices (no `v`, page-only
// options) go to stderr and the run goes on, errors refuse it before anything loads.
import { describe, expect, it } from 'vitest';
import { configFromArgs } from '../../src/cli/train_command.ts';
import { presetConfig } from '../../src/run/presets.ts';

/** configFromArgs for `--link LINK`, with what it wrote to stderr. */
async function fromLink(link: string) {
  const lines: string[] = [];
  const config = await configFromArgs(
    { options: new Map([['link', link]]), flags: new Set(), positional: [] },
    (line) => lines.push(line),
  );
  return { config, stderr: lines.join('') };
}

describe('train --link', () => {
  it('#seed=7 is the default run with seed 7, read as the current version, nothing on stderr', async () => {
    const { config, stderr } = await fromLink('http://127.0.0.1/#seed=7');
    expect(config).toEqual({ ...presetConfig('default'), seed: 7 });
    expect(stderr).toBe('');
  });

  it('a link written by Copy link, or no fragment at all, runs with nothing on stderr', async () => {
    expect(await fromLink('http://127.0.0.1/#v=2&p=search&seed=3')).toEqual({
      config: { ...presetConfig('search'), seed: 3 },
      stderr: '',
    });
    expect(await fromLink('http://127.0.0.1/')).toEqual({
      config: presetConfig('default'),
      stderr: '',
    });
  });

  it('page-only options are a notice, not an error', async () => {
    const { config, stderr } = await fromLink('#v=2&seed=2&autostart=1&hide=config');
    expect(config.seed).toBe(2);
    expect(stderr).toMatch(/autostart and hide are page options.*train ignores them/);
    // a mistake in a page option does not change the run: said, not refused
    const bad = await fromLink('#v=2&seed=2&autostart=yes&hide=paws');
    expect(bad.config.seed).toBe(2);
    expect(bad.stderr).toMatch(/notice: link autostart: "yes" is not 1 or 0/);
    expect(bad.stderr).toMatch(/notice: link hide: unknown name "paws"/);
  });

  it('errors refuse the run and name each problem', async () => {
    await expect(fromLink('#seed=7&nosuchsetting=1&g=abc')).rejects.toThrow(
      /the link has problems[\s\S]*- nosuchsetting: unknown key "nosuchsetting" ignored[\s\S]*- groupSize: "abc" is not a number/,
    );
    await expect(fromLink('#v=9&seed=7')).rejects.toThrow(/schema version "9"/);
  });
});
