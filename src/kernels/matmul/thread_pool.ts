// The helper threads' pool for the SIMD matmul kernels (matmul/threads.ts says why and how a
// product is split): starting the helpers with the kernels they hold, the pool's shared memory,
// handing a queue of blocks to the helpers and waiting for them (the protocol of
// matmul/thread_code.ts), and stopping them. Separate from matmul/threads.ts, which decides how
// each kind of product is cut into blocks and lays out their operands in the pool.
import { simdMatmulModule } from '../simd/matmul.ts';
import { simdMatmulCausalModule, simdMatmulTAModule } from '../simd/matmul_variants.ts';
import { simdMatmulTModule } from '../simd/dot.ts';
import { weights16Modules } from '../simd/dot16.ts';
import { kernelCounts } from '../switches.ts';
import {
  BUILD,
  canWait,
  CONTROL_WORDS,
  FAILED,
  FINISHED,
  GENERATION,
  HOLD,
  NEXT,
  ROW,
  spawn,
  SPIN_MS,
  TABLE,
  type Helper,
  type HelperInit,
} from './thread_code.ts';

/** Largest pool memory (pages of 64 KB): 1 GB; products needing more stay on one thread. */
const MAX_PAGES = 16384;

/** How long the caller waits for a helper before it gives up on the pool (ms). */
const HELPER_DEADLINE_MS = 60_000;

/**
 * One block of a split product: the call a helper makes (12 arguments at most) with its build, the
 * same block computed in place by the caller instead, and, for a block a helper computed on the
 * pool, copying its C back (absent when it wrote C in place).
 */
export interface Block {
  args: number[];
  build: number;
  here(): void;
  back?(): void;
}

/** A started pool's parts, as HelperPool's constructor takes them. */
export type PoolParts = [
  memory: WebAssembly.Memory,
  control: Int32Array,
  helpers: Helper[],
  dot: boolean,
  ta: boolean,
  causal: boolean,
  dot16: boolean,
];

/**
 * Starts `helpers` helper threads (the caller is one more) and returns their pool's parts (for
 * MatmulThreads.start), or null where threads cannot work (no shared memory, waiting not allowed,
 * WebAssembly SIMD missing) or helpers <= 0. `dotMemory`: the dot store's memory
 * (matmul/decode_products.ts), when it is shared; with it the helpers also hold the dot kernel and
 * the 16-bit weights' kernels (matmul/weights16.ts).
 */
export async function launchHelpers(
  helpers: number,
  dotMemory: WebAssembly.Memory | null = null,
): Promise<PoolParts | null> {
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
  const valid = (bytes: Uint8Array<ArrayBuffer> | null) =>
    bytes && WebAssembly.validate(bytes) ? bytes : null;
  const dot = valid(dotMemory && fused ? simdMatmulTModule(true) : null);
  const ta = valid(fused ? simdMatmulTAModule(true) : null);
  const causal = valid(fused ? simdMatmulCausalModule(true) : null);
  const dot16 = dot ? weights16Modules(true) : null;
  const dot16Valid = dot16?.every(({ bytes }) => WebAssembly.validate(bytes)) ?? false;
  const control = new SharedArrayBuffer(CONTROL_WORDS * 4);
  const init: HelperInit = {
    memory,
    control,
    plain,
    fused,
    dotMemory: dot ? dotMemory : null,
    dot,
    dot16: dot16Valid ? dot16 : null,
    ta,
    causal,
  };
  const started = await Promise.allSettled(Array.from({ length: helpers }, () => spawn(init)));
  const ok = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (ok.length < helpers) {
    for (const helper of ok) helper.terminate();
    const failure = started.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    throw new Error(
      `matmul helper threads did not start: ${(failure.reason as Error)?.message ?? String(failure.reason)}`,
    );
  }
  return [
    memory,
    new Int32Array(control),
    ok,
    dot !== null,
    ta !== null,
    causal !== null,
    dot16Valid,
  ];
}

/**
 * The pool of helper threads: its memory, the control words shared with the helpers, and which
 * kernels they hold. MatmulThreads (matmul/threads.ts) adds how products are split over it.
 */
export class HelperPool {
  private generation = 0;
  protected broken = false;

  protected constructor(
    protected readonly memory: WebAssembly.Memory,
    private readonly control: Int32Array,
    protected readonly helpers: Helper[],
    /** Whether the helpers hold the dot kernel on the dot store's memory. */
    protected readonly dot: boolean,
    /** Whether the helpers hold the transposed-A kernel. */
    protected readonly ta: boolean,
    /** Whether the helpers hold the causal kernel. */
    protected readonly causal: boolean,
    /** Whether the helpers hold the 16-bit weights' kernels on the dot store's memory. */
    protected readonly dot16: boolean,
  ) {}

  /** Bytes of the pool's memory (operands copied in for the helpers), for memory accounting. */
  get memoryBytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Threads a product is split over: the helpers and the caller. */
  get threads(): number {
    return this.broken ? 1 : this.helpers.length + 1;
  }

  /**
   * Runs a split product: publishes `queue` to the helpers, runs `own` (the caller's share), then
   * takes queued blocks itself until none is left, waits for the helpers' blocks to finish and
   * copies back the ones they computed on the pool. See matmul/thread_code.ts for the protocol.
   */
  protected share(own: () => void, queue: Block[]): void {
    const words = this.control;
    queue.forEach(({ args, build }, i) => {
      words.set(args, TABLE + i * ROW);
      words[TABLE + i * ROW + BUILD] = build;
    });
    Atomics.store(words, FINISHED, 0);
    Atomics.store(words, NEXT, queue.length << 8); // the table is complete before this store
    this.generation = this.generation === 0x7fffffff ? 1 : this.generation + 1;
    Atomics.store(words, GENERATION, this.generation);
    Atomics.notify(words, GENERATION);
    own();
    const ranHere = new Uint8Array(queue.length);
    for (;;) {
      const next = Atomics.load(words, NEXT);
      const i = next & 255;
      if (i >= next >>> 8) break;
      if (Atomics.compareExchange(words, NEXT, next, next + 1) !== next) continue;
      queue[i]!.here();
      ranHere[i] = 1;
      kernelCounts.takenOver++; // tests: that a late helper's blocks are taken over
      Atomics.add(words, FINISHED, 1);
    }
    this.awaitFinished(queue.length);
    if (Atomics.load(words, FAILED) !== 0) this.fail('a matmul helper thread failed');
    queue.forEach((block, i) => ranHere[i] || block.back?.());
    kernelCounts.splitProducts++; // tests: that large products are split, small ones not
  }

  /**
   * Waits until `count` blocks have finished: spinning SPIN_MS, then sleeping; fails the pool after
   * HELPER_DEADLINE_MS.
   */
  private awaitFinished(count: number): void {
    const words = this.control;
    const spinUntil = performance.now() + SPIN_MS;
    for (
      let spins = 1;
      Atomics.load(words, FINISHED) !== count &&
      ((spins++ & 255) !== 0 || performance.now() < spinUntil);
    );
    const deadline = performance.now() + HELPER_DEADLINE_MS;
    for (;;) {
      const finished = Atomics.load(words, FINISHED);
      if (finished === count) break;
      if (performance.now() > deadline)
        this.fail(`a matmul helper thread did not answer in ${HELPER_DEADLINE_MS / 1000} s`);
      Atomics.wait(words, FINISHED, finished, 100);
    }
  }

  /**
   * Tests: true makes the helpers hold off claiming blocks, as a helper the system has not yet
   * scheduled would, so the caller runs every block itself; false lets them go again.
   */
  hold(on: boolean): void {
    Atomics.store(this.control, HOLD, on ? 1 : 0);
    Atomics.notify(this.control, HOLD);
  }

  /** Grows the pool memory to hold `bytes`; false where that passes MAX_PAGES. */
  protected reserve(bytes: number): boolean {
    if (bytes <= this.memory.buffer.byteLength) return true;
    const pages = Math.ceil((bytes - this.memory.buffer.byteLength) / 65536);
    if (this.memory.buffer.byteLength / 65536 + pages > MAX_PAGES) return false;
    this.memory.grow(pages);
    return true;
  }

  private fail(message: string): never {
    this.stop();
    throw new Error(`${message}; products run on one thread from now on`);
  }

  /** Ends the helpers. */
  stop(): void {
    this.broken = true;
    Atomics.store(this.control, GENERATION, -1);
    Atomics.notify(this.control, GENERATION);
    Atomics.notify(this.control, HOLD);
    for (const helper of this.helpers) helper.terminate();
  }
}
