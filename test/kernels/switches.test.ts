// The fast paths' switches (switches.ts): all on by default; setSwitches hands back what it
// changed, so a caller restores it; withSwitches restores after a return, a throw or a settled
// promise.
import { describe, expect, it } from 'vitest';
import { setSwitches, switches, withSwitches } from '../../src/kernels/switches.ts';

describe('kernel switches', () => {
  it('are all on by default', () => {
    expect(Object.values(switches).every((on) => on === true)).toBe(true);
  });

  it('setSwitches returns the previous values of the keys it changed', () => {
    const previous = setSwitches({ simdSoftmax: false, loraOp: false });
    expect(previous).toEqual({ simdSoftmax: true, loraOp: true });
    expect([switches.simdSoftmax, switches.loraOp, switches.simdMatMul]).toEqual([
      false,
      false,
      true,
    ]);
    setSwitches(previous);
    expect([switches.simdSoftmax, switches.loraOp]).toEqual([true, true]);
    expect(() => setSwitches({ noSuchSwitch: false } as never)).toThrow(/noSuchSwitch/);
  });

  it('withSwitches restores after a return, a throw and an async function', async () => {
    expect(withSwitches({ simdRope: false }, () => switches.simdRope)).toBe(false);
    expect(switches.simdRope).toBe(true);
    expect(() =>
      withSwitches({ simdRope: false }, () => {
        throw new Error('inside');
      }),
    ).toThrow('inside');
    expect(switches.simdRope).toBe(true);
    const pending = withSwitches({ simdRope: false }, async () => {
      await Promise.resolve();
      return switches.simdRope;
    });
    expect(switches.simdRope).toBe(false); // still off while the function runs
    expect(await pending).toBe(false);
    expect(switches.simdRope).toBe(true);
    await expect(
      withSwitches({ simdRope: false }, async () => {
        throw new Error('later');
      }),
    ).rejects.toThrow('later');
    expect(switches.simdRope).toBe(true);
  });
});
