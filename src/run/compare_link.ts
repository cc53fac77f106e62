// A shared comparison (docs/page.md "Compare runs"): `#compare=…` carries the compared runs, each as
// its own run link (link.ts, so a run reads back exactly as Copy link would restore it) with its
// legend name, as JSON compressed like custom tasks. The page that opens it trains the runs one
// after another and overlays them, as a lesson's: the same seed and backend give the same samples.
import type { RunConfig } from './config.ts';
import { compressText, decodeLink, decompressText, encodeLink, type LinkOptions } from './link.ts';

/** One run of a shared comparison. */
export interface SharedRun {
  label: string;
  config: RunConfig;
}

/** Most runs a comparison link carries (the charts overlay at most three earlier runs). */
export const MAX_SHARED_RUNS = 4;
/** Longest legend name kept. */
const MAX_LABEL = 80;

/** The `#compare=…` fragment for `runs`, with the link options (autostart, hide) after it. */
export async function encodeComparison(
  runs: readonly SharedRun[],
  options: LinkOptions = {},
): Promise<string> {
  if (runs.length < 2 || runs.length > MAX_SHARED_RUNS)
    throw new Error(`a comparison link carries 2 to ${MAX_SHARED_RUNS} runs, got ${runs.length}`);
  const body = await Promise.all(
    runs.map(async (run) => ({ label: run.label, link: (await encodeLink(run.config)).slice(1) })),
  );
  const parts = [`compare=${await compressText(JSON.stringify(body))}`];
  if (options.autostart) parts.push('autostart=1');
  if (options.hide && options.hide.length > 0) parts.push(`hide=${options.hide.join(',')}`);
  return `#${parts.join('&')}`;
}

/** What a `compare=` value restores: the runs, or the reasons it could not. */
export interface DecodedComparison {
  runs: SharedRun[];
  /** Each problem in words (a damaged value, a run whose link has errors); empty when none. */
  errors: string[];
}

/** Reads a `compare=` value; never throws. A run whose own link has errors is named and left out. */
export async function decodeComparison(encoded: string): Promise<DecodedComparison> {
  let body: unknown;
  try {
    body = JSON.parse(await decompressText(encoded));
  } catch (error) {
    return { runs: [], errors: [`compare: the value is damaged (${(error as Error).message})`] };
  }
  if (!Array.isArray(body) || body.length < 2 || body.length > MAX_SHARED_RUNS)
    return {
      runs: [],
      errors: [`compare: expected a list of 2 to ${MAX_SHARED_RUNS} runs`],
    };
  const runs: SharedRun[] = [];
  const errors: string[] = [];
  for (const [i, item] of body.entries()) {
    const { label, link } = (item ?? {}) as { label?: unknown; link?: unknown };
    if (typeof label !== 'string' || typeof link !== 'string') {
      errors.push(`compare: run ${i + 1} is not {label, link}`);
      continue;
    }
    const decoded = await decodeLink(link);
    if (decoded.fallbacks.length > 0) {
      errors.push(
        `compare: run ${i + 1} (${label.slice(0, MAX_LABEL)}): ${decoded.fallbacks.map((f) => `${f.field}: ${f.reason}`).join('; ')}`,
      );
      continue;
    }
    runs.push({ label: label.slice(0, MAX_LABEL), config: decoded.config });
  }
  return { runs, errors };
}
