// The charts' axes and markers, from the chart definitions alone (chart_data.ts): an empty chart's
// axis reads 0..1 (not −0.5..0.5), a count never gets negative ticks, and a value a line cannot
// show (one step, or one between gaps) is a marker.
import { describe, expect, it } from 'vitest';
import { CHARTS, isolatedPoints, yRange } from '../../src/ui/state/chart_data.ts';

const chart = (id: string) => CHARTS.find((c) => c.id === id)!;
// uPlot's rangeNum(min, max, 0.1, true) stood in for by a 10% pad on each side
const pad = (min: number, max: number): [number, number] => [
  min - (max - min) * 0.1,
  max + (max - min) * 0.1,
];

describe('chart y ranges', () => {
  it('an empty chart reads 0..1, whatever it plots', () => {
    for (const spec of CHARTS)
      expect(yRange(spec, null, null, pad), spec.id).toEqual(spec.range ?? [0, 1]);
  });

  it('tokens, turns, seconds and KL never get a negative tick', () => {
    for (const id of ['tokens', 'turns', 'time', 'kl']) {
      expect(chart(id).nonNegative, id).toBe(true);
      // one step: a flat value, padded by half its size
      expect(yRange(chart(id), 0, 0, pad), id).toEqual([0, 1]);
      expect(yRange(chart(id), 2, 2, pad), id).toEqual([1, 3]);
      // a range whose padding would cross zero starts at it
      expect(yRange(chart(id), 0, 10, pad)[0], id).toBe(0);
      expect(yRange(chart(id), 0, 10, pad)[1], id).toBe(11);
    }
  });

  it('a quantity that may be negative (the loss) keeps its padding, and a surprise is not cut off', () => {
    expect(chart('loss').nonNegative).toBeUndefined();
    expect(yRange(chart('loss'), -0.2, 0.2, pad)).toEqual(pad(-0.2, 0.2));
    expect(yRange(chart('loss'), 0, 0, pad)).toEqual([-0.5, 0.5]);
    expect(yRange(chart('kl'), -1e-6, 0.01, pad)[0]).toBeLessThan(0);
  });

  it('fixed ranges stay fixed', () => {
    expect(yRange(chart('reward'), null, null, pad)).toEqual([0, 1]);
    expect(yRange(chart('reward'), 0.4, 0.4, pad)).toEqual([0, 1]);
  });
});

describe('chart markers', () => {
  it('marks values with no value on either side, and only those', () => {
    expect(isolatedPoints([])).toEqual([]);
    expect(isolatedPoints([3])).toEqual([0]);
    expect(isolatedPoints([3, 4])).toEqual([]);
    expect(isolatedPoints([null, 2, null, 5, 6, null, 1])).toEqual([1, 6]);
    expect(isolatedPoints([0, null, null])).toEqual([0]); // a zero is a value
    expect(isolatedPoints(new Float64Array([1, 2, 3]))).toEqual([]);
  });
});
