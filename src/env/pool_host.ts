// A sandbox pool on a thread of its own (workers/pool_host.worker.ts), so that its queue, deadlines
// and interrupts run on time whatever the threads that call it are doing. An overlapped run needs
// it: the trainer's thread spends whole seconds inside WASM during an update, and a pool driven from
// that thread left the rollout worker's programs unanswered until the update ended (overlap 17% on
// 2 cores). Hosted, the pool answers the trainer and, on a port of their own (`share`), other
// threads (the rollout worker), while staying one pool: one queue, one set of workers.
//
// Environment-neutral: the worker's shell supplies how the pool is made (the worker factory) and
// how a port is served; node_pool.ts and browser_pool_host.ts start the thread.
import { transfer, type Remote } from 'comlink';
import type { SandboxPool, SandboxPoolOptions } from './pool.ts';
import type {
  CallOptions,
  CodeExecutor,
  ExecResult,
  HiddenTest,
  Judgement,
  RanOn,
  SandboxMetrics,
  SandboxReady,
} from './types.ts';

/** The pool's options that can cross threads (the shell adds the factory and the snapshot). */
export type HostedPoolOptions = Omit<
  SandboxPoolOptions,
  'workerFactory' | 'snapshot' | 'onSnapshot'
>;

/** What a sharing thread may call: run and judge programs (not close the pool). */
export interface PoolCalls {
  execute(code: string, options?: CallOptions): Promise<ExecResult & { ranOn?: RanOn }>;
  judge(
    code: string,
    tests: readonly HiddenTest[],
    options?: CallOptions,
  ): Promise<Judgement & { ranOn?: RanOn }>;
}

/** The host thread's API (to its creator). */
export interface PoolHostApi extends PoolCalls {
  start(options: HostedPoolOptions): Promise<void>;
  metrics(): SandboxMetrics;
  lastReady(): SandboxReady | null;
  whenSparesReady(): Promise<void>;
  /** Serves PoolCalls on `port` as well: another thread's own line to the pool. */
  connect(port: unknown): void;
  close(): Promise<void>;
}

/** The host's side: one pool made on start(), its calls served to the creator and on shared ports. */
export function poolHost(
  create: (options: HostedPoolOptions) => Promise<SandboxPool>,
  serve: (calls: PoolCalls, port: unknown) => void,
): PoolHostApi {
  let pool: SandboxPool | null = null;
  const need = (): SandboxPool => {
    if (!pool) throw new Error('the sandbox host has no pool: call start() first');
    return pool;
  };
  const calls: PoolCalls = {
    execute: (code, options) => need().execute(code, options),
    judge: (code, tests, options) => need().judge(code, tests, options),
  };
  return {
    ...calls,
    async start(options) {
      if (pool) throw new Error('the sandbox host already has a pool');
      pool = await create(options);
    },
    metrics: () => need().metrics(),
    lastReady: () => need().lastReady(),
    whenSparesReady: () => need().whenSparesReady(),
    connect: (port) => serve(calls, port),
    async close() {
      await pool?.close();
      pool = null;
    },
  };
}

/** The host thread, as its creator sees it. */
export interface HostThread {
  /** Rejects (with a message that says the pool's thread died) when the thread dies. */
  death: Promise<never>;
  terminate(): void;
}

/** The creator's side of a hosted pool: a CodeExecutor, closable, that can give out more lines. */
export class HostedSandboxPool implements CodeExecutor<ExecResult> {
  private closed = false;

  private constructor(
    private readonly host: Remote<PoolHostApi>,
    private readonly thread: HostThread,
  ) {
    thread.death.catch(() => {});
  }

  /** Starts the pool on a freshly started host thread; a failed start ends the thread. */
  static async start(
    host: Remote<PoolHostApi>,
    thread: HostThread,
    options: HostedPoolOptions,
  ): Promise<HostedSandboxPool> {
    const pool = new HostedSandboxPool(host, thread);
    try {
      await Promise.race([host.start(options), thread.death]);
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  execute(code: string, options?: CallOptions): Promise<ExecResult & { ranOn?: RanOn }> {
    return this.call(() => this.host.execute(code, options));
  }

  judge(
    code: string,
    tests: readonly HiddenTest[],
    options?: CallOptions,
  ): Promise<Judgement & { ranOn?: RanOn }> {
    return this.call(() => this.host.judge(code, tests, options));
  }

  metrics(): Promise<SandboxMetrics> {
    return this.call(() => this.host.metrics());
  }

  lastReady(): Promise<SandboxReady | null> {
    return this.call(() => this.host.lastReady());
  }

  whenSparesReady(): Promise<void> {
    return this.call(() => this.host.whenSparesReady());
  }

  /**
   * A port on which another thread calls this pool directly (PoolCalls, served with comlink), not
   * through this thread: hand it on with a transfer.
   */
  async share(): Promise<unknown> {
    // (Node's global MessageChannel is worker_threads' own)
    const { port1, port2 } = new MessageChannel();
    await this.call(() => this.host.connect(transfer(port2, [port2])));
    return port1;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.race([this.host.close(), this.thread.death]).catch(() => {});
    this.thread.terminate();
  }

  private async call<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('the sandbox pool is closed');
    return Promise.race([work(), this.thread.death]);
  }
}

/**
 * A port on which another thread (a rollout worker) runs programs on `executor`: a line of its own
 * to a hosted pool, whose thread answers while this one is busy; otherwise calls relayed through
 * this thread, served on the channel's other end by `serve` (comlink, with Node's adapter there).
 * `close` ends this side's part.
 */
export async function executorLine<Port extends { close(): void }>(
  executor: CodeExecutor,
  serve: (calls: Pick<CodeExecutor, 'execute'>, port: Port) => void,
): Promise<{ port: Port; close(): void }> {
  if (canShare(executor)) {
    const port = (await executor.share()) as Port;
    return { port, close: () => port.close() };
  }
  // (Node's global MessageChannel is worker_threads' own)
  const { port1, port2 } = new MessageChannel() as unknown as { port1: Port; port2: Port };
  serve({ execute: (code, options) => executor.execute(code, options) }, port1);
  return { port: port2, close: () => port1.close() };
}

/** Whether an executor is a hosted pool that can give another thread its own line. */
export function canShare(executor: unknown): executor is Pick<HostedSandboxPool, 'share'> {
  return typeof (executor as { share?: unknown })?.share === 'function';
}
