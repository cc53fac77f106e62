// The page build's log filter (scripts/vite_logs.ts): the Node built-ins that the shared code
// imports on Node-only paths are expected and dropped; any other externalized module and every
// other warning still print.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { isExpectedBuildLog, NODE_ONLY_IMPORTERS } from '../../scripts/vite_logs.ts';

const root = join(import.meta.dirname, '..', '..');
const externalized = (module: string, importer: string) =>
  `Module "${module}" has been externalized for browser compatibility, imported by "${join(root, importer)}". See https://vite.dev/guide/troubleshooting.html#module-externalized-for-browser-compatibility for more details.`;

describe('the build log filter', () => {
  it('drops a node: built-in externalized in a Node-only file (the 14 warnings the build printed)', () => {
    expect(
      isExpectedBuildLog(externalized('node:worker_threads', 'workers/rollout.worker.ts'), root),
    ).toBe(true);
    expect(
      isExpectedBuildLog(externalized('node:fs/promises', 'src/model_files/node_source.ts'), root),
    ).toBe(true);
    expect(
      isExpectedBuildLog(externalized('node:vm', 'node_modules/pyodide/pyodide.mjs'), root),
    ).toBe(true);
  });

  it('keeps the same warning from any other file, a bare built-in, and every other warning', () => {
    expect(isExpectedBuildLog(externalized('node:fs', 'src/ui/main.ts'), root)).toBe(false);
    expect(isExpectedBuildLog(externalized('fs', 'src/env/node_pool.ts'), root)).toBe(false);
    expect(isExpectedBuildLog('Circular dependency: src/a.ts -> src/b.ts -> src/a.ts', root)).toBe(
      false,
    );
    expect(
      isExpectedBuildLog('Some chunks are larger than 4000 kB after minification.', root),
    ).toBe(false);
  });

  it('names files that exist', async () => {
    const { existsSync } = await import('node:fs');
    for (const file of NODE_ONLY_IMPORTERS) expect(existsSync(join(root, file)), file).toBe(true);
  });
});
