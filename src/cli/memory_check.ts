// `cli train`'s memory check before it reads any weights: the page's check (src/run/memory_check.ts)
// from config.json alone, on the WASM heap's (or the CPU backend's) budget and this machine's RAM.
// A model judged too large is refused with the page's message; a tight one is run, with the
// message on stderr. There is no override: the page has none either (a `too_large` verdict is
// only given where loading alone cannot fit).
import { totalmem } from 'node:os';
import type { ModelSource } from '../model_files/source.ts';
import type { RunConfig } from '../run/config.ts';
import { checkMemory, type MemoryCheck } from '../run/memory_check.ts';

const GiB = 1024 ** 3;

/**
 * Checks that `config`'s model (read from `source`) can train here on `backend`; throws the
 * verdict's message when it is too large, writes it to stderr when it is tight.
 */
export async function checkTrainMemory(
  source: ModelSource,
  config: RunConfig,
  backend: 'wasm' | 'cpu',
  stderr: (line: string) => void = (line) => process.stderr.write(line),
): Promise<MemoryCheck> {
  const check = await checkMemory(source, config.model, config, {
    backend,
    deviceMemoryGiB: Math.floor(totalmem() / GiB),
  });
  if (check.fit === 'too_large') throw new Error(check.message);
  if (check.fit === 'tight') stderr(`warning: ${check.message}\n`);
  return check;
}
