// What the page's build leaves out of its output: the warnings it expects. The code shared with the
// CLI imports Node's built-ins on paths only Node takes (the Node sandbox pool, model files on
// disk, the rollout worker thread; Pyodide's loader likewise), and Vite replaces each with an
// empty module in the browser build, with a warning per import. Those files' `node:` imports are
// expected; any other externalized module (a new browser file importing `node:fs`) and every other
// warning still print.
import { relative } from 'node:path';
import type { Plugin } from 'vite';

/**
 * The files (from the repository root) whose `node:` imports run under Node only: the browser
 * build leaves them as empty modules on purpose.
 */
export const NODE_ONLY_IMPORTERS: readonly string[] = [
  'src/env/node_pool.ts',
  'src/model_files/node_source.ts',
  'workers/pool_host.worker.ts',
  'workers/rollout.worker.ts',
  'node_modules/pyodide/pyodide.mjs',
];

const EXTERNALIZED =
  /^Module "(node:[^"]+)" has been externalized for browser compatibility, imported by "([^"]+)"/;

/**
 * Whether a build log is an expected one: a `node:` built-in externalized where one of
 * NODE_ONLY_IMPORTERS imports it.
 */
export function isExpectedBuildLog(message: string, root: string): boolean {
  const match = EXTERNALIZED.exec(message);
  if (!match) return false;
  const importer = relative(root, match[2]!).split('\\').join('/');
  return NODE_ONLY_IMPORTERS.includes(importer);
}

/** A plugin that drops the expected logs (for the page's and its workers' builds). */
export function quietExpectedLogs(root: string): Plugin {
  return {
    name: 'quiet-expected-logs',
    onLog(_level, log) {
      if (isExpectedBuildLog(log.message, root)) return false;
    },
  };
}
