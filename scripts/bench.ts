// `npm run bench`: one JSON object of figures on stdout (progress on stderr). Sections run one
// after another so they do not compete for the two cores; `--only model,update,sandbox` picks sections.
import { cpus } from 'node:os';
type Section = () => Promise<Record<string, unknown>>;

const sections: Record<string, () => Promise<Section>> = {
  model: async () => (await import('./bench/model.ts')).benchModel,
  update: async () => (await import('./bench/update.ts')).benchUpdate,
  sandbox: async () => (await import('./bench/sandbox.ts')).benchSandbox,
};

const onlyIndex = process.argv.indexOf('--only');
const only = onlyIndex > 0 ? new Set((process.argv[onlyIndex + 1] ?? '').split(',')) : null;
const result: Record<string, unknown> = { node: process.version, cpus: cpus().length };
for (const [name, load] of Object.entries(sections)) {
  if (only && !only.has(name)) continue;
  process.stderr.write(`[bench] ${name}…\n`);
  Object.assign(result, await (await load())());
}
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
process.exit(0);
