// Child-process entry of processExecutor: one in-process Pyodide runner serving JSON lines on
// stdin ({ id, code }) with JSON lines on stdout ({ id, result }). Killing the process is how a
// runaway program is stopped.
import { createInterface } from 'node:readline';
import { sandboxExecutor } from './sandbox_executor.ts';

const executor = await sandboxExecutor();
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const { id, code } = JSON.parse(line) as { id: number; code: string };
  const result = await executor.execute(code);
  process.stdout.write(`${JSON.stringify({ id, result })}\n`);
}
