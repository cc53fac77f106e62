// More cores for the SIMD matmul kernel. tfjs-wasm runs single-threaded here (backend.ts: its
// threaded build breaks under bundling, and tfjs turns threads off in Node), and the kernel works
// in place on tfjs-wasm's heap, which is not shared memory. So each helper thread holds the same
// kernel on a shared WebAssembly.Memory of its own pool: for a large product the calling thread
// copies a helper's share of the operands there (A's rows, or whole matrices of a batch, and B),
// wakes it (Atomics), computes its own share in place on tfjs's heap meanwhile, waits, and copies
// the helper's rows of C back. Every number of C is computed by the same kernel code over the same
// k order as on one thread, so the result is the same bit for bit, however it is split.
//
// Where: Node (worker_threads; tests, bench, CLI) and browser workers in a cross-origin-isolated
// page (SharedArrayBuffer). The calling thread blocks in Atomics.wait, which a page's main thread
// may not do: the trainer runs in a worker, and start() refuses where waiting throws.
//
// Decoding's products with few rows (dot_products.ts) are split too, by columns of C: their weights
// stay resident in the dot store's shared memory, which every helper also maps, so only the rows
// of A go in. Those products take tens of microseconds, less than waking a sleeping thread, so a
// helper spins for SPIN_MS after each job before it sleeps, and the caller spins for its helpers.
import { simdMatmulCausalModule, simdMatmulModule, simdMatmulTAModule, type MatmulCausalKernel, type MatmulKernel, type MatmulTAKernel } from './simd_matmul.ts';
import { simdMatmulTModule, type MatmulTKernel } from './simd_dot.ts';
import type { DotCall } from './dot_products.ts';

/** Int32 words of the control block per helper: job id, done id, the kernel's arguments (up to 12), build. */
const SLOT = 16;
const JOB = 0;
const DONE = 1;
const ARGS = 2;
const BUILD = 14;

/** Products below this many multiply-adds stay on one thread: waking a helper costs ~10-50 µs. */
export const MIN_THREADED_MACS = 1 << 21;

/**
 * Dot products (decoding) below this many multiply-adds stay on one thread. Measured with a
 * spinning helper, through matMul2d, weights in cache: 1 x 256 x 256 takes 6.0 µs alone and 4.6 on
 * two threads, 1 x 256 x 768 14.4 and 9.5, 8 x 256 x 256 24 and 16; at 16k-32k multiply-adds the
 * hand-off costs about what it saves.
 */
export const MIN_THREADED_DOT_MACS = 1 << 15;

/** How long a helper (and the caller, for its helpers) spins before sleeping in Atomics.wait (ms). */
const SPIN_MS = 2;

/** Which kernel a job runs: 0/1 the plain or fused matmul, DOT matmulT on the dot memory, TA matmulTA, CAUSAL matmulCausal (all others on the pool memory). */
const DOT = 2;
const TA = 3;
const CAUSAL = 4;

/** Largest pool memory (pages of 64 KB): 1 GB; products needing more stay on one thread. */
const MAX_PAGES = 16384;

/** How long the caller waits for a helper before it gives up on the pool (ms). */
const HELPER_DEADLINE_MS = 60_000;

/**
 * The helper thread's code (plain JavaScript in a string, so no build tool rewrites it): given
 * `post` and the init message, it builds both kernel builds on the pool memory, says 'ready', then
 * serves jobs until the job id is -1. Words of its slot: JOB, DONE, ARGS (up to 12; a kernel
 * ignores those past its own arity, as WebAssembly exports do), BUILD (0/1: plain/fused, DOT, TA, CAUSAL).
 */
const HELPER = `function helperMain(post, data) {
  function build(bytes, memory, name) {
    return bytes && memory ? new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory: memory } }).exports[name] : null;
  }
  const kernels = [build(data.plain, data.memory, 'matmul'), build(data.fused, data.memory, 'matmul'), build(data.dot, data.dotMemory, 'matmulT'), build(data.ta, data.memory, 'matmulTA'), build(data.causal, data.memory, 'matmulCausal')];
  const words = new Int32Array(data.control);
  const base = data.slot * ${SLOT};
  post('ready');
  let seen = 0;
  for (;;) {
    let job = Atomics.load(words, base + ${JOB});
    if (job === seen) {
      const until = performance.now() + ${SPIN_MS};
      for (let spins = 1; (job = Atomics.load(words, base + ${JOB})) === seen && ((spins++ & 255) !== 0 || performance.now() < until););
      if (job === seen) {
        Atomics.wait(words, base + ${JOB}, seen);
        continue;
      }
    }
    if (job < 0) return;
    seen = job;
    try {
      const a = base + ${ARGS};
      const build = words[base + ${BUILD}];
      kernels[build](words[a], words[a + 1], words[a + 2], words[a + 3], words[a + 4], words[a + 5], words[a + 6], words[a + 7], words[a + 8], words[a + 9], words[a + 10], words[a + 11]);
      Atomics.store(words, base + ${DONE}, job);
    } catch (error) {
      Atomics.store(words, base + ${DONE}, -job);
    }
    Atomics.notify(words, base + ${DONE});
  }
}`;

/** What a helper gets to start: the pool memory and its kernels, the dot store's memory and its kernel. */
interface HelperInit {
  memory: WebAssembly.Memory; control: SharedArrayBuffer; slot: number; plain: Uint8Array; fused: Uint8Array | null;
  dotMemory: WebAssembly.Memory | null; dot: Uint8Array | null; ta: Uint8Array | null; causal: Uint8Array | null;
}

/** A started helper: terminate() ends it at once. */
interface Helper { terminate(): void }

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof (globalThis as { window?: unknown }).window === 'undefined';

async function spawn(init: HelperInit): Promise<Helper> {
  let helper: Helper;
  const ready = new Promise<void>((resolve, reject) => {
    if (isNode) {
      const source = `const { parentPort } = require('node:worker_threads');
${HELPER}
parentPort.once('message', (data) => helperMain((m) => parentPort.postMessage(m), data));`;
      const specifier = 'node:worker_threads'; // kept from the browser bundle
      import(/* @vite-ignore */ specifier).then(({ Worker }: typeof import('node:worker_threads')) => {
        const worker = new Worker(source, { eval: true });
        worker.unref(); // helpers never keep a process alive
        worker.once('message', () => resolve());
        worker.once('error', reject);
        worker.postMessage(init);
        helper = { terminate: () => void worker.terminate() };
      }, reject);
    } else {
      const source = `${HELPER}
self.onmessage = (event) => { self.onmessage = null; helperMain((m) => self.postMessage(m), event.data); };`;
      const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
      const worker = new Worker(url);
      URL.revokeObjectURL(url);
      worker.onmessage = () => resolve();
      worker.onerror = (event) => reject(new Error(event.message || 'matmul helper failed to start'));
      worker.postMessage(init);
      helper = { terminate: () => worker.terminate() };
    }
  });
  await ready;
  return helper!;
}

/** Whether this thread may block in Atomics.wait on shared memory (not a page's main thread, not without isolation). */
function canWait(): boolean {
  if (typeof SharedArrayBuffer === 'undefined') return false;
  try {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0); // value differs: returns at once where allowed
    return true;
  } catch {
    return false;
  }
}

/** The operands of one kernel call, as the kernel takes them (byte pointers and strides). */
export interface MatmulCall { a: number; b: number; c: number; batch: number; m: number; k: number; n: number; strideA: number; strideB: number }

/** A pool of helper threads for the matmul kernel; see the file comment. */
export class MatmulThreads {
  private jobs = 0;
  private broken = false;
  /** Products split so far (tests: that large products are split, small ones not). */
  split = 0;

  private constructor(
    private readonly memory: WebAssembly.Memory,
    private readonly control: Int32Array,
    private readonly helpers: Helper[],
    /** Whether the helpers hold the dot kernel on the dot store's memory. */
    private readonly dot: boolean,
    /** Whether the helpers hold the transposed-A kernel. */
    private readonly ta: boolean,
    /** Whether the helpers hold the causal kernel. */
    private readonly causal: boolean,
  ) {}

  /**
   * Starts `helpers` helper threads (the caller is one more), or returns null where threads
   * cannot work (no shared memory, waiting not allowed, WebAssembly SIMD missing) or helpers <= 0.
   */
  /**
   * `dotMemory`: the dot store's memory (dot_products.ts), when it is shared; with it the helpers
   * also take decoding's products (splitDot).
   */
  static async start(helpers: number, dotMemory: WebAssembly.Memory | null = null): Promise<MatmulThreads | null> {
    if (helpers <= 0 || !canWait()) return null;
    const plain = simdMatmulModule(false, true);
    if (!WebAssembly.validate(plain)) return null;
    const fusedBytes = simdMatmulModule(true, true);
    const fused = WebAssembly.validate(fusedBytes) ? fusedBytes : null;
    let memory: WebAssembly.Memory;
    try {
      memory = new WebAssembly.Memory({ initial: 1, maximum: MAX_PAGES, shared: true });
    } catch {
      return null;
    }
    const dotBytes = dotMemory && fused ? simdMatmulTModule(true) : null;
    const dot = dotBytes && WebAssembly.validate(dotBytes) ? dotBytes : null;
    const taBytes = fused ? simdMatmulTAModule(true) : null;
    const ta = taBytes && WebAssembly.validate(taBytes) ? taBytes : null;
    const causalBytes = fused ? simdMatmulCausalModule(true) : null;
    const causal = causalBytes && WebAssembly.validate(causalBytes) ? causalBytes : null;
    const control = new SharedArrayBuffer(helpers * SLOT * 4);
    const init = (slot: number): HelperInit => ({ memory, control, slot, plain, fused, dotMemory: dot ? dotMemory : null, dot, ta, causal });
    const started = await Promise.allSettled(Array.from({ length: helpers }, (_, slot) => spawn(init(slot))));
    const ok = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    if (ok.length < helpers) {
      for (const helper of ok) helper.terminate();
      const failure = started.find((result) => result.status === 'rejected') as PromiseRejectedResult;
      throw new Error(`matmul helper threads did not start: ${(failure.reason as Error)?.message ?? String(failure.reason)}`);
    }
    return new MatmulThreads(memory, new Int32Array(control), ok, dot !== null, ta !== null, causal !== null);
  }

  /** Threads a product is split over: the helpers and the caller. */
  get threads(): number {
    return this.broken ? 1 : this.helpers.length + 1;
  }

  /**
   * Runs `call` split over the caller and the helpers, `kernel` being the caller's kernel on the
   * heap `heap` (tfjs's memory) and `fused` which build the helpers use. `causal`: the causal
   * kernel's (mode, period, offset), `kernel` then being it; split by whole matrices only (a share
   * of rows would start mid-period). Returns false, having done nothing, for a product it does not
   * split (small, or strided other than packed); the caller then runs it on one thread.
   */
  run(kernel: MatmulKernel | MatmulCausalKernel, fused: boolean, heap: WebAssembly.Memory, call: MatmulCall, causal: [number, number, number] | null = null): boolean {
    const { batch, m, k, n } = call;
    if (this.broken || batch * m * k * n < MIN_THREADED_MACS || (causal && (batch === 1 || !this.causal))) return false;
    const parts = this.helpers.length + 1;
    // One matrix: split its rows (multiples of 4, the kernel's row block). Several: split the batch,
    // when the matrices are packed (A every m * k numbers, B every k * n or one shared B).
    const byRows = batch === 1;
    if (!byRows && (call.strideA !== m * k * 4 || (call.strideB !== 0 && call.strideB !== k * n * 4))) return false;
    const units = byRows ? m : batch;
    const per = byRows ? Math.ceil(units / parts / 4) * 4 : Math.ceil(units / parts);
    const shares: [number, number][] = [];
    for (let start = per; start < units; start += per) shares.push([start, Math.min(units, start + per)]);
    if (shares.length === 0) return false;
    const sharedB = byRows || call.strideB === 0;
    // pool layout (floats): one B if shared, then per helper its A, its B (unless shared), its C
    const floatsB = k * n;
    let cursor = sharedB ? floatsB : 0;
    const layout = shares.map(([start, end]) => {
      const count = end - start;
      const rowsA = byRows ? count * k : count * m * k;
      const a = cursor; cursor += rowsA;
      const b = sharedB ? 0 : cursor; if (!sharedB) cursor += count * floatsB;
      const c = cursor; cursor += byRows ? count * n : count * m * n;
      return { start, count, a, b, c };
    });
    if (!this.reserve(cursor * 4)) return false;
    const source = new Float32Array(heap.buffer);
    const pool = new Float32Array(this.memory.buffer);
    const [a0, b0, c0] = [call.a / 4, call.b / 4, call.c / 4];
    if (sharedB) pool.set(source.subarray(b0, b0 + floatsB), 0);
    const jobs: number[] = [];
    layout.forEach(({ start, count, a, b, c }, h) => {
      const from = byRows ? a0 + start * k : a0 + start * m * k;
      pool.set(source.subarray(from, from + (byRows ? count * k : count * m * k)), a);
      if (!sharedB) pool.set(source.subarray(b0 + start * k * n, b0 + (start + count) * k * n), b);
      const args = byRows ? [a * 4, b * 4, c * 4, 1, count, k, n, 0, 0] : [a * 4, b * 4, c * 4, count, m, k, n, m * k * 4, sharedB ? 0 : k * n * 4];
      jobs.push(this.post(h, causal ? [...args, ...causal] : args, causal ? CAUSAL : fused ? 1 : 0));
    });
    // the caller's share, in place
    const mine = shares[0]![0];
    if (causal) (kernel as MatmulCausalKernel)(call.a, call.b, call.c, mine, m, k, n, call.strideA, call.strideB, ...causal);
    else if (byRows) (kernel as MatmulKernel)(call.a, call.b, call.c, 1, mine, k, n, 0, 0);
    else (kernel as MatmulKernel)(call.a, call.b, call.c, mine, m, k, n, call.strideA, call.strideB);
    const target = new Float32Array(heap.buffer);
    layout.forEach(({ start, count, c }, h) => {
      this.await(h, jobs[h]!);
      const size = byRows ? count * n : count * m * n;
      target.set(pool.subarray(c, c + size), c0 + (byRows ? start * n : start * m * n));
    });
    this.split++;
    return true;
  }

  /**
   * Splits C (m, n) = A^T @ B, A stored (k, m) on tfjs's heap (matmulTA), by rows of C: a helper's
   * share of A is a block of A's stored columns, copied into the pool as a packed (k, count) matrix;
   * B goes in whole. `kernel` is the caller's matmulTA on `heap`. Returns false, having done
   * nothing, when the helpers lack the kernel, the product is small, or it has under 64 rows (LoRA's
   * factors: copying B then costs about what the helper saves); the caller then runs it alone.
   */
  runTA(kernel: MatmulTAKernel, heap: WebAssembly.Memory, call: { a: number; b: number; c: number; m: number; k: number; n: number; scratch: number }): boolean {
    const { m, k, n } = call;
    if (this.broken || !this.ta || m * k * n < MIN_THREADED_MACS || m < 64) return false;
    const parts = this.helpers.length + 1;
    const per = Math.ceil(m / parts / 4) * 4;
    const shares: [number, number][] = [];
    for (let start = per; start < m; start += per) shares.push([start, Math.min(m, start + per)]);
    if (shares.length === 0) return false;
    // pool layout (floats): B, then per helper its columns of A, its rows of C and its scratch
    let cursor = k * n;
    const layout = shares.map(([start, end]) => {
      const count = end - start;
      const a = cursor; cursor += k * count;
      const c = cursor; cursor += count * n;
      const scratch = cursor; cursor += k * 4;
      return { start, count, a, c, scratch };
    });
    if (!this.reserve(cursor * 4)) return false;
    const source = new Float32Array(heap.buffer);
    const pool = new Float32Array(this.memory.buffer);
    const [a0, b0, c0] = [call.a / 4, call.b / 4, call.c / 4];
    pool.set(source.subarray(b0, b0 + k * n), 0);
    const jobs = layout.map(({ start, count, a, c, scratch }, h) => {
      for (let row = 0, from = a0 + start, to = a; row < k; row++, from += m, to += count) {
        for (let col = 0; col < count; col++) pool[to + col] = source[from + col]!;
      }
      return this.post(h, [a * 4, 0, c * 4, count, k, n, count, scratch * 4], TA);
    });
    kernel(call.a, call.b, call.c, shares[0]![0], k, n, m, call.scratch); // the caller's share, in place
    const target = new Float32Array(heap.buffer);
    layout.forEach(({ start, count, c }, h) => {
      this.await(h, jobs[h]!);
      target.set(pool.subarray(c, c + count * n), c0 + start * n);
    });
    this.split++;
    return true;
  }

  /** Grows the pool memory to hold `bytes`; false where that passes MAX_PAGES. */
  private reserve(bytes: number): boolean {
    if (bytes <= this.memory.buffer.byteLength) return true;
    const pages = Math.ceil((bytes - this.memory.buffer.byteLength) / 65536);
    if (this.memory.buffer.byteLength / 65536 + pages > MAX_PAGES) return false;
    this.memory.grow(pages);
    return true;
  }

  /** Hands helper `h` a job: the kernel's arguments and which build runs them; returns the job id. */
  private post(h: number, args: number[], build: number): number {
    const base = h * SLOT;
    this.control.set(args, base + ARGS);
    this.control[base + BUILD] = build;
    const job = ++this.jobs;
    Atomics.store(this.control, base + JOB, job);
    Atomics.notify(this.control, base + JOB);
    return job;
  }

  /**
   * Splits a dot product C (m, n) = A W^T, all on the dot store's memory, by blocks of C's
   * columns (W's rows): `kernel` is the caller's matmulT on that memory. Returns false, having done
   * nothing, when the helpers lack the dot kernel or the product is small (MIN_THREADED_DOT_MACS).
   */
  splitDot(kernel: MatmulTKernel, { a, w, c, m, k, n }: DotCall): boolean {
    if (this.broken || !this.dot || m * k * n < MIN_THREADED_DOT_MACS) return false;
    const parts = this.helpers.length + 1;
    const tile = m >= 4 ? 2 : 4; // the kernel's tile width in columns, so no share starts mid-tile
    const per = Math.ceil(n / parts / tile) * tile;
    const jobs: number[] = [];
    for (let h = 0, start = per; h < this.helpers.length && start < n; h++, start += per) {
      const count = Math.min(per, n - start);
      jobs.push(this.post(h, [a, w + start * k * 4, c + start * 4, m, k, count, n], DOT));
    }
    if (jobs.length === 0) return false;
    kernel(a, w, c, m, k, Math.min(per, n), n);
    jobs.forEach((job, h) => this.await(h, job));
    this.split++;
    return true;
  }

  /** Waits for helper `h` to finish `job`: spinning SPIN_MS, then sleeping; fails the pool on an error or after HELPER_DEADLINE_MS. */
  private await(h: number, job: number): void {
    const at = h * SLOT + DONE;
    const spinUntil = performance.now() + SPIN_MS;
    let done: number;
    for (let spins = 1; (done = Atomics.load(this.control, at)) !== job && done !== -job && ((spins++ & 255) !== 0 || performance.now() < spinUntil););
    const deadline = performance.now() + HELPER_DEADLINE_MS;
    for (;;) {
      done = Atomics.load(this.control, at);
      if (done === job) return;
      if (done === -job) this.fail('a matmul helper thread failed');
      if (performance.now() > deadline) this.fail(`a matmul helper thread did not answer in ${HELPER_DEADLINE_MS / 1000} s`);
      Atomics.wait(this.control, at, done, 100);
    }
  }

  private fail(message: string): never {
    this.broken = true;
    this.stop();
    throw new Error(`${message}; products run on one thread from now on`);
  }

  /** Ends the helpers. */
  stop(): void {
    this.broken = true;
    for (let h = 0; h < this.helpers.length; h++) {
      Atomics.store(this.control, h * SLOT + JOB, -1);
      Atomics.notify(this.control, h * SLOT + JOB);
    }
    for (const helper of this.helpers) helper.terminate();
  }
}
