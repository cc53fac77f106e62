// One assertion for "the observation is this string / matches this pattern", with a readable diff.
import { expect } from 'vitest';

/** Exact match for a string, full-pattern test for a RegExp. */
export function expectObservation(actual: string, expected: string | RegExp): void {
  if (typeof expected === 'string') expect(actual).toBe(expected);
  else expect(actual).toMatch(expected);
}
