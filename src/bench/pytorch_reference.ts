// PyTorch's time for the model benchmark's training step: scripts/bench/pytorch_train_step.py run
// as a server under Debian's python3 with torch, asked for steps on demand so model_training.ts
// can alternate them with ours. Separate because it is the benchmark's only child process.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { log } from './model_setup.ts';

/**
 * PyTorch's step (scripts/bench/pytorch_train_step.py --serve), asked for steps on demand; null
 * without python3 and torch.
 */
export async function pytorchServer(env: Record<string, string>): Promise<{
  steps(count: number): Promise<number[]>;
  blas: string | null;
  /** OpenBLAS's pool size (null for another BLAS). */
  blasThreads: number | null;
  close(): void;
} | null> {
  const script = join(
    dirname(fileURLToPath(import.meta.url)),
    '..',
    '..',
    'scripts',
    'bench',
    'pytorch_train_step.py',
  );
  if (!existsSync('/usr/bin/python3')) return null;
  const child = spawn('/usr/bin/python3', [script, '--threads', '1', '--serve'], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.on('error', () => {}); // a PyTorch that died: next() says so with its stderr
  const exited = new Promise<string>((resolve) =>
    child.once('close', (code, signal) =>
      resolve(signal ? `python3 ended by ${signal}` : `python3 exited with code ${code}`),
    ),
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    if (line.done) {
      const how = await exited; // and all of its stderr read
      throw new Error(stderr.trim().split('\n').at(-1) || how);
    }
    return JSON.parse(line.value) as unknown;
  };
  try {
    const about = (await next()) as { blas: string | null; blas_threads?: number | null };
    return {
      blas: about.blas,
      blasThreads: about.blas_threads ?? null,
      steps: async (count) => {
        child.stdin.write(`3 ${count}\n`); // 3 steps unmeasured: PyTorch's first ones after idling are slow
        return (await next()) as number[];
      },
      close: () => child.kill(),
    };
  } catch (error) {
    log(`PyTorch reference unavailable: ${(error as Error).message}`);
    child.kill();
    return null;
  }
}
