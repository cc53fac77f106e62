// What the page says about the link it opened: notices in an info box (the run is as written),
// errors in the error area (a field kept its base value). Both come from decodeLink.
import { describe, expect, it } from 'vitest';
import { decodeLink } from '../../src/run/link.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { linkReport } from '../../src/ui/state/link_report.ts';

describe('the page on a link', () => {
  it('hand-written links (#seed=7, #p=search, #async=1) open silently: every key parsed', async () => {
    const link = await decodeLink('http://127.0.0.1:5173/#seed=7');
    expect(link.config).toEqual({ ...presetConfig('default'), seed: 7 });
    for (const fragment of ['#seed=7', '#p=search', '#async=1'])
      expect(linkReport(await decodeLink(fragment))).toEqual({ notice: null, error: null });
  });

  it('a key given twice is still a notice, not an error', async () => {
    const report = linkReport(await decodeLink('#v=2&seed=7&seed=8'));
    expect(report.error).toBeNull();
    expect(report.notice).toMatch(/seed is given more than once/);
  });

  it('a link from Copy link says nothing', async () => {
    expect(linkReport(await decodeLink('#v=2&p=search&seed=3'))).toEqual({
      notice: null,
      error: null,
    });
  });

  it('errors and notices go to their own places', async () => {
    const report = linkReport(await decodeLink('#seed=7&seed=8&g=abc&zz=1'));
    expect(report.notice).toMatch(/• seed: /);
    expect(report.notice).not.toMatch(/zz|groupSize/);
    expect(report.error).toMatch(/part of this link could not be restored/);
    expect(report.error).toMatch(
      /• groupSize: "abc" is not a number \(using the default preset's value\)/,
    );
    expect(report.error).toMatch(/• zz: unknown key "zz" ignored/);
    expect(report.error).toMatch(/Fix: .*Copy link makes a fresh link/);
    expect(report.error).not.toMatch(/• v:/);
  });
});
