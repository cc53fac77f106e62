// The helper threads of matmul/threads.ts: their code, how they start, and the control block they
// share with the calling thread.
//
// A split product is a queue of blocks. The caller writes each block's kernel call (arguments and
// which build) into the control block's table, publishes the count in NEXT, bumps GENERATION to
// wake the helpers, and computes its own share; then it, too, takes blocks from the queue. Each
// thread claims the next block with a compare-and-swap on NEXT, runs it, and counts it in FINISHED;
// the caller returns once FINISHED reaches the count. So a helper the system has not yet scheduled,
// or one still waking from Atomics.wait, no longer holds the caller up: the caller runs the blocks
// it has not claimed (measured on a 2-core VM: ~10% of a training step and ~15% of a batch-8
// decoding step went to waiting on a late helper before).
//
// Why no job ids on the claims: the table is written only while the queue is exhausted (NEXT's
// next >= count), and a thread reads a block's call only after its claim succeeded, which the
// caller cannot outrun (it waits for that block to finish). A stale helper either finds the queue
// exhausted or claims a block of the current product, which it then runs correctly.

/** Int32 words of the control block. */
export const GENERATION = 0; // products posted so far (the helpers wake when it changes); -1: stop
export const NEXT = 1; // (blocks << 8) | next block to claim
export const FINISHED = 2; // blocks of the current product finished
export const FAILED = 3; // nonzero once a helper's kernel threw
export const HOLD = 4; // nonzero: helpers hold off claiming (tests: a helper that is late)
export const TABLE = 16; // the blocks' calls, ROW words each: 12 arguments, then the build
export const ROW = 16;
export const BUILD = 12;
/** Most blocks in one product (the count is 8 bits of NEXT). */
export const MAX_BLOCKS = 64;
export const CONTROL_WORDS = TABLE + MAX_BLOCKS * ROW;

/**
 * Builds of the kernel a block runs: plain or fused matmul, DOT matmulT on the dot memory, TA
 * matmulTA, CAUSAL matmulCausal (those on the pool memory), then the 16-bit weights' kernels on
 * the dot memory (matmul/weights16.ts): DOT16 dot16 for BF16 and + 1 for F16, PANEL16 panel16
 * likewise.
 */
export const PLAIN = 0;
export const FUSED = 1;
export const DOT = 2;
export const TA = 3;
export const CAUSAL = 4;
export const DOT16 = 5;
export const PANEL16 = 7;

/**
 * How long a helper (and the caller, for its helpers) spins before sleeping in Atomics.wait (ms).
 */
export const SPIN_MS = 2;

/**
 * The helper thread's code (plain JavaScript in a string, so no build tool rewrites it): given
 * `post` and the init message, it builds the kernels, says 'ready', then serves products until
 * GENERATION is -1. A kernel ignores arguments past its own arity, as WebAssembly exports do.
 */
const HELPER = `function helperMain(post, data) {
  function build(bytes, memory, name) {
    return bytes && memory ? new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory: memory } }).exports[name] : null;
  }
  const kernels = [build(data.plain, data.memory, 'matmul'), build(data.fused, data.memory, 'matmul'), build(data.dot, data.dotMemory, 'matmulT'), build(data.ta, data.memory, 'matmulTA'), build(data.causal, data.memory, 'matmulCausal')].concat((data.dot16 || []).map((module) => build(module.bytes, data.dotMemory, module.name)));
  const words = new Int32Array(data.control);
  post('ready');
  let seen = 0;
  for (;;) {
    let generation = Atomics.load(words, ${GENERATION});
    if (generation === seen) {
      const until = performance.now() + ${SPIN_MS};
      for (let spins = 1; (generation = Atomics.load(words, ${GENERATION})) === seen && ((spins++ & 255) !== 0 || performance.now() < until););
      if (generation === seen) {
        Atomics.wait(words, ${GENERATION}, seen);
        continue;
      }
    }
    if (generation < 0) return;
    seen = generation;
    let hold;
    while ((hold = Atomics.load(words, ${HOLD})) !== 0 && Atomics.load(words, ${GENERATION}) >= 0) Atomics.wait(words, ${HOLD}, hold);
    for (;;) {
      const next = Atomics.load(words, ${NEXT});
      const i = next & 255;
      if (i >= next >>> 8) break;
      if (Atomics.compareExchange(words, ${NEXT}, next, next + 1) !== next) continue;
      const r = ${TABLE} + i * ${ROW};
      try {
        kernels[words[r + ${BUILD}]](words[r], words[r + 1], words[r + 2], words[r + 3], words[r + 4], words[r + 5], words[r + 6], words[r + 7], words[r + 8], words[r + 9], words[r + 10], words[r + 11]);
      } catch (error) {
        Atomics.store(words, ${FAILED}, 1);
      }
      Atomics.add(words, ${FINISHED}, 1);
      Atomics.notify(words, ${FINISHED});
    }
  }
}`;

/**
 * What a helper gets to start: the pool memory and its kernels, the dot store's memory and its
 * kernels.
 */
export interface HelperInit {
  memory: WebAssembly.Memory;
  control: SharedArrayBuffer;
  plain: Uint8Array;
  fused: Uint8Array | null;
  dotMemory: WebAssembly.Memory | null;
  dot: Uint8Array | null;
  /** The 16-bit weights' kernels on the dot memory, builds DOT16 on, in order. */
  dot16: { bytes: Uint8Array; name: string }[] | null;
  ta: Uint8Array | null;
  causal: Uint8Array | null;
}

/** A started helper: terminate() ends it at once. */
export interface Helper {
  terminate(): void;
}

const isNode =
  typeof process !== 'undefined' &&
  !!process.versions?.node &&
  typeof (globalThis as { window?: unknown }).window === 'undefined';

/**
 * Starts one helper thread (worker_threads in Node, a Worker from a blob elsewhere); resolves once
 * its kernels are built.
 */
export async function spawn(init: HelperInit): Promise<Helper> {
  let helper: Helper;
  const ready = new Promise<void>((resolve, reject) => {
    if (isNode) {
      const source = `const { parentPort } = require('node:worker_threads');
${HELPER}
parentPort.once('message', (data) => helperMain((m) => parentPort.postMessage(m), data));`;
      const specifier = 'node:worker_threads'; // kept from the browser bundle
      import(/* @vite-ignore */ specifier).then(
        ({ Worker }: typeof import('node:worker_threads')) => {
          const worker = new Worker(source, { eval: true });
          worker.unref(); // helpers never keep a process alive
          worker.once('message', () => resolve());
          worker.once('error', reject);
          worker.postMessage(init);
          helper = { terminate: () => void worker.terminate() };
        },
        reject,
      );
    } else {
      const source = `${HELPER}
self.onmessage = (event) => { self.onmessage = null; helperMain((m) => self.postMessage(m), event.data); };`;
      const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
      const worker = new Worker(url);
      URL.revokeObjectURL(url);
      worker.onmessage = () => resolve();
      worker.onerror = (event) =>
        reject(new Error(event.message || 'matmul helper failed to start'));
      worker.postMessage(init);
      helper = { terminate: () => worker.terminate() };
    }
  });
  await ready;
  return helper!;
}

/**
 * Whether this thread may block in Atomics.wait on shared memory (not a page's main thread, not
 * without isolation).
 */
export function canWait(): boolean {
  if (typeof SharedArrayBuffer === 'undefined') return false;
  try {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0); // value differs: returns at once where allowed
    return true;
  } catch {
    return false;
  }
}
