// The sandbox harness's Python files reach the runner as one text however the TypeScript runs:
// inlined by Vite (here, under Vitest: the page and its workers build the same way) or read from
// disk by plain Node through tsx (the CLI and the sandbox's worker threads).
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  HARNESS_FILES,
  harnessSource,
  PROGRAM_FILENAME,
  SLEEP_DEVICE,
  trustedSource,
} from '../../src/env/harness_source.ts';
import { tsWorker } from '../../src/env/node_pool.ts';

const workerFile = new URL('../helpers/harness_source.worker.ts', import.meta.url).href;

describe('harnessSource', () => {
  it('compiles every Python file beside it, in its order (the trusted judge apart)', () => {
    const files = readdirSync(new URL('../../src/env/python/', import.meta.url));
    expect([...files].sort()).toEqual([...HARNESS_FILES, 'trusted.py'].sort());
    expect(trustedSource()).toContain('def _make_trusted(');
    expect(harnessSource()).not.toContain('def _make_trusted(');
    const source = harnessSource();
    const defined = [
      'class _Tail',
      'class _Baseline',
      'def _run(',
      'def _make_judge(',
      'def _lockdown(',
    ].map((definition) => source.indexOf(definition));
    expect(defined.every((at, i) => at >= 0 && (i === 0 || at > defined[i - 1]!))).toBe(true);
  });

  it('writes in the values it shares with TypeScript and leaves no placeholder', () => {
    const source = harnessSource();
    expect(source).toContain(`_FILENAME = '${PROGRAM_FILENAME}'\n`);
    expect(source).toContain(`_SLEEP_DEVICE = '${SLEEP_DEVICE}'\n`);
    expect(source).not.toMatch(/\$\{\w+\}/);
  });

  it('is the same text read from disk by plain Node as inlined by Vite', async () => {
    const worker = tsWorker(workerFile);
    const [fromDisk] = (await once(worker, 'message')) as [string];
    await worker.terminate();
    expect(fromDisk).toBe(harnessSource());
  });
});
