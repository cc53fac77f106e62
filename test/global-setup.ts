// Builds the page once per test run so the browser tests (test/e2e/) serve the real production
// bundle.
import { build } from 'vite';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export default async function setup(): Promise<void> {
  if (process.env.SKIP_BUILD === '1' && existsSync(join(root, 'dist', 'index.html'))) return;
  await build({ root, logLevel: 'warn', configFile: join(root, 'vite.config.ts') });
}
