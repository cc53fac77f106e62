// Copy link with unapplied edits in the configuration form: the link carries every valid edit and
// names each one it cannot carry (refused input, a clash with another field) with the reason.
import { describe, expect, it } from 'vitest';
import { decodeLink, encodeLink } from '../../src/run/link.ts';
import { presetConfig } from '../../src/run/presets.ts';
import { parseNumberField } from '../../src/ui/state/config_fields.ts';
import { editText, linkEdits } from '../../src/ui/state/link_edits.ts';

const applied = { ...presetConfig('default'), seed: 1 };

describe('Copy link with unapplied edits', () => {
  it('carries a valid edit: G edited to 4 and not applied is in the link', async () => {
    const edits = linkEdits(applied, {
      draft: { ...applied, groupSize: 4 },
      invalid: new Map(),
    });
    expect(edits.carried).toEqual([{ field: 'groupSize', from: 6, to: 4 }]);
    expect(edits.leftOut).toEqual([]);
    expect(edits.config).toEqual({ ...applied, groupSize: 4 });
    const link = await encodeLink(edits.config);
    expect(link).toBe('#v=2&g=4&seed=1');
    expect((await decodeLink(link)).config.groupSize).toBe(4);
  });

  it('no form, or a form without edits, is the applied run', () => {
    expect(linkEdits(applied, null)).toEqual({ config: applied, carried: [], leftOut: [] });
    expect(linkEdits(applied, { draft: structuredClone(applied), invalid: new Map() })).toEqual({
      config: applied,
      carried: [],
      leftOut: [],
    });
  });

  it('names a refused input with its message and keeps the applied value; carries the valid edits beside it', () => {
    const refused = parseNumberField('temperature', 'abc');
    expect('error' in refused).toBe(true);
    const message = (refused as { error: string }).error;
    const edits = linkEdits(applied, {
      // the form keeps a refused field's last good value in its draft
      draft: { ...applied, groupSize: 4 },
      invalid: new Map([['temperature', message]]),
    });
    expect(edits.carried.map((e) => e.field)).toEqual(['groupSize']);
    expect(edits.leftOut).toEqual([
      { field: 'temperature', from: applied.temperature, to: applied.temperature, reason: message },
    ]);
    expect(edits.config).toEqual({ ...applied, groupSize: 4 });
  });

  it('leaves out an edit that clashes with another field, with the schema’s reason', () => {
    // tasks "custom" with no custom tasks: the schema names tasks
    const custom = linkEdits(applied, {
      draft: { ...applied, tasks: 'custom', groupSize: 4 },
      invalid: new Map(),
    });
    expect(custom.carried.map((e) => e.field)).toEqual(['groupSize']);
    expect(custom.leftOut).toEqual([
      {
        field: 'tasks',
        from: applied.tasks,
        to: 'custom',
        reason: expect.stringMatching(/no custom tasks/),
      },
    ]);
    expect(custom.config).toEqual({ ...applied, groupSize: 4 });

    // search dropped from tools while the applied rewards weigh tool_use: the schema names
    // rewards (not edited), so the edit that causes it is left out
    const searching = {
      ...presetConfig('search'),
      rewards: { ...presetConfig('search').rewards, tool_use: 0.2 },
    };
    const tools = linkEdits(searching, {
      draft: { ...searching, tools: ['execute_code', 'finish'], lr: 0.001 },
      invalid: new Map(),
    });
    expect(tools.carried.map((e) => e.field)).toEqual(['lr']);
    expect(tools.leftOut.map((e) => [e.field, e.reason])).toEqual([
      ['tools', expect.stringMatching(/tool_use rewards searching, but tools has no search/)],
    ]);
    expect(tools.config.tools).toEqual(searching.tools);
    expect(tools.config.lr).toBe(0.001);
  });

  it('shows values short and on one line', () => {
    expect(editText(4)).toBe('4');
    expect(editText(['q_proj', 'v_proj'])).toBe('q_proj, v_proj');
    expect(editText({ output_match: 1 })).toBe('{"output_match":1}');
    expect(editText([{ prompt: 'x'.repeat(100) }])).toHaveLength(48);
  });
});
