// The run's activity alone (src/ui/state/run_activity.ts): one call at a time, a failure turned
// into the status line and an actionable error, the parts' clean-up before idle, and the error
// area's limits.
import { describe, expect, it } from 'vitest';
import { RunActivity } from '../../src/ui/state/run_activity.ts';
import { Changes } from '../../src/ui/state/run_changes.ts';
import type { Change } from '../../src/ui/state/run_types.ts';

function setup() {
  const changes = new Changes();
  const seen: Change[] = [];
  changes.subscribe((change) => seen.push(change));
  return { activity: new RunActivity(changes), seen };
}

describe('RunActivity', () => {
  it('lets the start in from the first state, then runs one call at a time', async () => {
    const { activity } = setup();
    expect(await activity.exclusive('training', 'training', async () => {})).toBe(false);
    expect(await activity.exclusive('starting', 'starting', async () => {})).toBe(true);
    expect(activity.state).toBe('idle');

    let finish = () => {};
    const first = activity.exclusive(
      'running a step',
      'busy',
      () => new Promise<void>((resolve) => (finish = resolve)),
    );
    expect(activity.state).toBe('busy');
    expect(await activity.exclusive('resetting', 'busy', async () => {})).toBe(false);
    finish();
    expect(await first).toBe(true);
    expect(activity.state).toBe('idle');
  });

  it("turns a failed call into the status line and an error, after the parts' clean-up", async () => {
    const { activity, seen } = setup();
    await activity.exclusive('starting', 'starting', async () => {});
    const order: string[] = [];
    activity.onSettled(() => order.push(`settled while ${activity.state}`));
    seen.length = 0;
    const ok = await activity.exclusive('training', 'training', async () => {
      throw new Error('WebAssembly.Memory(): could not allocate memory: out of memory');
    });
    expect(ok).toBe(false);
    expect(order).toEqual(['settled while training']);
    expect(seen).toEqual(['state', 'error', 'state']);
    expect(activity.status).toBe('Stopped while training: out of memory.');
    expect(activity.error).toMatchObject({ kind: 'memory', during: 'training' });
  });

  it('keeps the three newest different errors; dismissing clears them', () => {
    const { activity } = setup();
    for (const message of ['a', 'b', 'a', 'c', 'd'])
      activity.showError(new Error(message), 'reading a file');
    expect(activity.errors.map((e) => e.message)).toEqual(['a', 'c', 'd']);
    activity.showError(new Error('e'), 'reading a file', 'Bad task file');
    expect(activity.error).toMatchObject({ message: 'e', title: 'Bad task file' });
    activity.dismissError();
    expect(activity.error).toBeNull();
  });
});
