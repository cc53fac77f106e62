// What the page says about the link it opened: notices in an info box (the run is as written),
// errors in the error area (a field kept its base value, a lesson option is wrong), and whether it
// starts training by itself (only a link without errors does). All come from decodeLink.
import { describe, expect, it } from 'vitest';
import { decodeLink } from '../../src/run/link.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { linkReport } from '../../src/ui/state/link_report.ts';

describe('the page on a link', () => {
  it('hand-written links (#seed=7, #p=search, #async=1) open silently: every key parsed', async () => {
    const link = await decodeLink('http://127.0.0.1:5173/#seed=7');
    expect(link.config).toEqual({ ...presetConfig('default'), seed: 7 });
    for (const fragment of ['#seed=7', '#p=search', '#async=1'])
      expect(linkReport(await decodeLink(fragment))).toMatchObject({ notice: null, error: null });
  });

  it('a key given twice is still a notice, not an error', async () => {
    const report = linkReport(await decodeLink('#v=2&seed=7&seed=8'));
    expect(report.error).toBeNull();
    expect(report.notice).toMatch(/seed is given more than once/);
  });

  it('a link from Copy link says nothing', async () => {
    expect(linkReport(await decodeLink('#v=2&p=search&seed=3'))).toMatchObject({
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

  it('a lesson link without mistakes starts by itself and says nothing', async () => {
    expect(linkReport(await decodeLink('#seed=3&autostart=1&hide=train,pause,step'))).toEqual({
      notice: null,
      error: null,
      title: expect.any(String),
      autostart: true,
      hide: ['train', 'pause', 'step'],
    });
  });

  it('a mistake in a lesson option names the key, the value and what is accepted, and keeps the page from starting', async () => {
    const autostart = linkReport(await decodeLink('#seed=3&autostart=yes'));
    expect(autostart.autostart).toBe(false);
    expect(autostart.title).toBe('This lesson link has mistakes');
    expect(autostart.error).toMatch(
      /its lesson options have mistakes:\n• autostart: "yes" is not 1 or 0\. Fix: autostart=1 starts training/,
    );
    expect(autostart.error).toMatch(/Training did not start by itself/);

    const hide = linkReport(await decodeLink('#seed=3&autostart=1&hide=train,paws'));
    expect(hide.autostart).toBe(false);
    expect(hide.error).toMatch(
      /• hide: unknown name "paws" \(only train hidden\)\. Fix: hide= takes a comma-separated list of train, pause, step, /,
    );
    expect(hide.error).toMatch(/Training did not start by itself .*press Train/);
    // so Train stays, whatever the lesson hides
    expect(hide.hide).toEqual([]);
    const waiting = linkReport(await decodeLink('#autostart=yes&hide=train,pause,step'));
    expect(waiting.hide).toEqual(['pause', 'step']);
    // a lesson that never asked to start keeps hiding Train (its students use Step)
    expect(linkReport(await decodeLink('#hide=train,paws')).hide).toEqual(['train']);
  });

  it('a damaged link does not autostart with fallback values', async () => {
    const report = linkReport(await decodeLink('#seed=3&g=abc&autostart=1&hide=config'));
    expect(report.autostart).toBe(false);
    expect(report.title).toBe('This link is damaged or from another version');
    expect(report.error).toMatch(/• groupSize: "abc" is not a number/);
    expect(report.error).toMatch(/Training did not start by itself/);
    // a key given twice is a notice: the run is as written, so the lesson starts
    expect(linkReport(await decodeLink('#seed=3&seed=4&autostart=1')).autostart).toBe(true);
  });
});
