// A CodeExecutor with deadlines for model-written code: the project's Pyodide runner in a child
// process (sandbox_child.ts), one program at a time; a program past its deadline gets the
// `TIMEOUT` observation and the child is killed and restarted on the next call.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { CodeExecutor, ExecOutcome } from '../../src/env/types.ts';

const CHILD = fileURLToPath(new URL('./sandbox_child.ts', import.meta.url));

/** The executor plus `close()`, which ends the child process. */
export interface ProcessExecutor extends CodeExecutor {
  close(): void;
}

/** Starts (lazily) a Pyodide child process; `defaultTimeoutMs` applies when a call gives none. */
export function processExecutor(defaultTimeoutMs = 5000): ProcessExecutor {
  let child: ChildProcess | null = null;
  let ready: Promise<void> | null = null;
  let nextId = 0;
  const waiting = new Map<number, (result: ExecOutcome) => void>();
  let queue: Promise<unknown> = Promise.resolve();

  function start(): Promise<void> {
    const proc = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    child = proc;
    return new Promise<void>((resolve, reject) => {
      proc.once('exit', (code) => {
        if (child === proc) {
          child = null;
          ready = null;
        }
        reject(new Error(`sandbox child exited with ${code}`));
      });
      createInterface({ input: proc.stdout! }).on('line', (line) => {
        const message = JSON.parse(line) as { ready?: true; id?: number; result?: ExecOutcome };
        if (message.ready) {
          resolve();
          return;
        }
        const done = waiting.get(message.id!);
        waiting.delete(message.id!);
        done?.(message.result!);
      });
    });
  }

  async function run(code: string, timeoutMs: number): Promise<ExecOutcome> {
    ready ??= start();
    await ready;
    const proc = child!;
    const id = nextId++;
    return new Promise<ExecOutcome>((resolve) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        child = null;
        ready = null;
        proc.kill('SIGKILL');
        resolve({ ok: false, observation: 'TIMEOUT', timedOut: true, error: null });
      }, timeoutMs);
      waiting.set(id, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      proc.stdin!.write(`${JSON.stringify({ id, code })}\n`);
    });
  }

  return {
    execute(code, options) {
      const result = queue.then(() => run(code, options?.timeoutMs ?? defaultTimeoutMs));
      queue = result.catch(() => undefined);
      return result;
    },
    close() {
      child?.kill('SIGKILL');
      child = null;
      ready = null;
    },
  };
}
