// One assertion for "the observation is this string / matches this pattern", with a readable diff.
import { expect } from 'vitest';

/** Exact match for a string, full-pattern test for a RegExp. */
export function expectObservation(actual: string, expected: string | RegExp): void {
  if (typeof expected === 'string') expect(actual).toBe(expected);
  else expect(actual).toMatch(expected);
}

/**
 * Two traced runs went side by side: on different workers, each running while the other did.
 * Read from where the pool says each ran, so a busy machine cannot make it fail (a wall-clock bound
 * on the pair could); the bench measures how long the pair takes.
 */
export function expectSideBySide(
  runs: { ranOn?: { worker: number; startWallMs: number; endWallMs: number } }[],
): void {
  const [a, b] = runs.map((r) => r.ranOn);
  expect(a && b, 'both runs were traced').toBeTruthy();
  expect(a!.worker).not.toBe(b!.worker);
  expect(a!.startWallMs).toBeLessThan(b!.endWallMs);
  expect(b!.startWallMs).toBeLessThan(a!.endWallMs);
}
