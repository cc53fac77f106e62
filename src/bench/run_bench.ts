// The bench's sections, for `npm run bench` (scripts/bench.ts) and `npm run --silent cli -- bench`:
// one JSON object of figures (progress on stderr). Sections run one after another so they do not
// compete for the two cores; `--only model,update,sandbox` picks sections, and `--only scale` runs
// the real model shapes (scale.ts), which the default leaves out for its length.
import { cpus } from 'node:os';

type Section = () => Promise<Record<string, unknown>>;

const sections: Record<string, () => Promise<Section>> = {
  model: async () => (await import('./model.ts')).benchModel,
  update: async () => (await import('./update.ts')).benchUpdate,
  sandbox: async () => (await import('./sandbox.ts')).benchSandbox,
  scale: async () => (await import('./scale.ts')).benchScale,
  async: async () => (await import('./async.ts')).benchAsync,
  estimate: async () => async () => (await import('./estimate.ts')).benchEstimate(),
};

/**
 * Sections that run only when `--only` names them (scale: 20-30 minutes; async: the default run
 * six times over; estimate: the default run's 30 steps, about two minutes).
 */
const onRequest = new Set(['scale', 'async', 'estimate']);

/**
 * The sections `only` names (a comma-separated list; all of them when absent), checked before any
 * runs.
 */
function chosen(only: string | undefined): string[] {
  if (only === undefined) return Object.keys(sections).filter((name) => !onRequest.has(name));
  const names = only
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const choices = `${Object.keys(sections).join(', ')} (comma-separated)`;
  if (names.length === 0) throw new Error(`--only needs a list of sections: ${choices}`);
  const unknown = names.filter((name) => !(name in sections));
  if (unknown.length > 0)
    throw new Error(
      `unknown bench section${unknown.length === 1 ? '' : 's'} ${JSON.stringify(unknown.join(','))}; choose from ${choices}`,
    );
  return Object.keys(sections).filter((name) => names.includes(name));
}

/**
 * Runs the sections `only` names (all when absent) and returns their figures, with Node's version
 * and the core count.
 */
export async function runBench(only?: string): Promise<Record<string, unknown>> {
  const names = chosen(only);
  const result: Record<string, unknown> = { node: process.version, cpus: cpus().length };
  for (const name of names) {
    process.stderr.write(`[bench] ${name}…\n`);
    Object.assign(result, await (await sections[name]!())());
  }
  return result;
}
