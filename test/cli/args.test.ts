// The CLI's argument parser (src/cli/args.ts): an option given more than once keeps every value in
// order in `lists` (score's `--code A --code B`), and `options` keeps the last, as before.
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.ts';

describe('parseArgs', () => {
  it('keeps every value of a repeated option, in order, and the last in options', () => {
    const args = parseArgs([
      '--task',
      't.json',
      '--code',
      'a.py',
      '--code=b.py',
      'x',
      '--code',
      'c.py',
      '--dry',
    ]);
    expect(args.lists?.get('code')).toEqual(['a.py', 'b.py', 'c.py']);
    expect(args.options.get('code')).toBe('c.py');
    expect(args.lists?.get('task')).toEqual(['t.json']);
    expect(args.positional).toEqual(['x']);
    expect([...args.flags]).toEqual(['dry']);
  });
});
