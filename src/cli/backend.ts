// The tfjs backend for CLI commands: `--backend wasm` (default, as docs/architecture.md §3 says for
// Node) or `--backend cpu`. On wasm the matmul kernel's large products use every core (up to 4):
// the same results bit for bit, sooner.
import { selectBackend, type BackendInfo, type BackendName } from '../kernels/backend.ts';
import type { CliArgs } from './args.ts';

/** Starts the backend named by --backend (default wasm). */
export async function useNodeBackend(args: CliArgs): Promise<BackendInfo> {
  const name = args.options.get('backend') ?? 'wasm';
  if (name !== 'wasm' && name !== 'cpu')
    throw new Error(`--backend must be wasm or cpu in Node, got ${JSON.stringify(name)}`);
  return selectBackend({ force: name as BackendName, threads: 'auto' });
}
