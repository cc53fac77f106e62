// Bootstrap of a TypeScript worker thread: Node 20 does not apply a parent's `--import tsx` to a
// worker's own entry, so this plain module registers tsx in the worker and then imports the
// TypeScript file named by workerData.entry (a file: URL).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
