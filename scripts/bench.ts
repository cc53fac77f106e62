// `npm run bench` (and `npm run --silent cli -- bench`, DESIGN.md §8): one JSON object of figures
// on stdout (progress on stderr). Sections run one after another so they do not compete for the
// two cores; `--only model,update,sandbox` picks sections.
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

type Section = () => Promise<Record<string, unknown>>;

const sections: Record<string, () => Promise<Section>> = {
  model: async () => (await import('./bench/model.ts')).benchModel,
  update: async () => (await import('./bench/update.ts')).benchUpdate,
  sandbox: async () => (await import('./bench/sandbox.ts')).benchSandbox,
};

/** The sections `only` names (a comma-separated list; all of them when absent), checked before any runs. */
function chosen(only: string | undefined): string[] {
  if (only === undefined) return Object.keys(sections);
  const names = only.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const choices = `${Object.keys(sections).join(', ')} (comma-separated)`;
  if (names.length === 0) throw new Error(`--only needs a list of sections: ${choices}`);
  const unknown = names.filter((name) => !(name in sections));
  if (unknown.length > 0) throw new Error(`unknown bench section${unknown.length === 1 ? '' : 's'} ${JSON.stringify(unknown.join(','))}; choose from ${choices}`);
  return Object.keys(sections).filter((name) => names.includes(name));
}

/** Runs the sections `only` names (all when absent) and returns their figures, with Node's version and the core count. */
export async function runBench(only?: string): Promise<Record<string, unknown>> {
  const names = chosen(only);
  const result: Record<string, unknown> = { node: process.version, cpus: cpus().length };
  for (const name of names) {
    process.stderr.write(`[bench] ${name}…\n`);
    Object.assign(result, await (await sections[name]!())());
  }
  return result;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const onlyIndex = process.argv.indexOf('--only');
  try {
    const result = await runBench(onlyIndex > 0 ? (process.argv[onlyIndex + 1] ?? '') : undefined);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    process.exit(0);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ error: (error as Error).message })}\n`);
    process.exit(1);
  }
}
