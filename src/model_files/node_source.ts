// A model folder on disk, for Node (CLI, tests, scripts). Not imported by browser code.
import { access, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ModelSource } from './source.ts';

/** A ModelSource over a local folder in the Hugging Face layout. */
export function directorySource(dir: string): ModelSource {
  const root = resolve(dir);
  return {
    name: root,
    async readFile(path) {
      try {
        return new Uint8Array(await readFile(join(root, path)));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new Error(
          code === 'ENOENT'
            ? `${path} not found in ${root}`
            : `cannot read ${join(root, path)}: ${(error as Error).message}`,
        );
      }
    },
    async has(path) {
      try {
        await access(join(root, path));
        return true;
      } catch {
        return false;
      }
    },
  };
}
