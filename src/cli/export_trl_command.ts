// `export-trl --config FILE | --link URL --out DIR`: writes the run as a TRL project
// (docs/trl_export.md) and prints {"out", "files", "tasks"}.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliArgs } from './args.ts';
import { requireOption } from './args.ts';
import { configFromArgs } from './train_command.ts';
import { encodeLink } from '../run/link.ts';
import { exportTrlProject } from '../run/trl_export.ts';

export async function exportTrlCommand(args: CliArgs): Promise<void> {
  const out = requireOption(args, 'out');
  const config = await configFromArgs(args);
  const runLink = args.options.get('link') ?? (await encodeLink(config));
  const files = exportTrlProject(config, { runLink });
  await mkdir(out, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(out, name), text);
  const tasks = files['tasks.jsonl']!.split('\n').filter((line) => line !== '').length;
  process.stdout.write(`${JSON.stringify({ out, files: Object.keys(files).sort(), tasks })}\n`);
}
