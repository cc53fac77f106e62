// The memory bandwidth the decoding floor is measured against: how fast WebAssembly SIMD loads
// stream a buffer much larger than the caches (256 MB, as a model's weights are), on one thread
// and on several at once (worker threads over one shared memory, each its own slice), since
// decoding splits its products over the matmul helper threads. The read is kernels/simd/
// stream_read.ts's (the page's speed probe uses it too). The best of a few passes, as the machines
// are shared.
import { Worker } from 'node:worker_threads';
import { streamReadModule } from '../kernels/simd/stream_read.ts';

const BUFFER_BYTES = 256 * 1024 * 1024;

// a worker: instantiates the module on the shared memory, waits for the start flag, streams its
// slice `passes` times and posts the best pass's milliseconds
const workerCode = `
const { parentPort, workerData } = require('node:worker_threads');
const { bytes, memory, flag, start, length, passes } = workerData;
const read = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports.read;
read(start, length); // warm
Atomics.add(flag, 1, 1);
Atomics.wait(flag, 0, 0);
let best = Infinity;
for (let pass = 0; pass < passes; pass++) {
  const t = performance.now();
  read(start, length);
  best = Math.min(best, performance.now() - t);
}
parentPort.postMessage(best);
`;

/**
 * GB/s streamed by `threads` threads at once, each over its own slice of a 256 MB buffer (the
 * best pass of each; the total over the slowest).
 */
export async function readBandwidth(threads: number, passes = 5): Promise<number> {
  const pages = BUFFER_BYTES / 65536 + 1;
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
  new Uint8Array(memory.buffer).fill(1, 64); // touched: the pages are real, not the zero page
  const bytes = streamReadModule(true);
  const flag = new Int32Array(new SharedArrayBuffer(8));
  const slice = Math.floor(BUFFER_BYTES / threads / 64) * 64;
  const workers = Array.from(
    { length: threads },
    (_, i) =>
      new Worker(workerCode, {
        eval: true,
        workerData: { bytes, memory, flag, start: 64 + i * slice, length: slice, passes },
      }),
  );
  const results = workers.map(
    (worker) =>
      new Promise<number>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      }),
  );
  while (Atomics.load(flag, 1) < threads) await new Promise((r) => setTimeout(r, 5));
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
  try {
    const slowest = Math.max(...(await Promise.all(results)));
    return (slice * threads) / slowest / 1e6;
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
