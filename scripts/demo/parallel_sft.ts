// Data-parallel SFT on the cores of one machine: the batch's rows are dealt out to the main thread
// and to worker-thread replicas of the model (sft_worker.ts); each computes the gradient of its
// rows' summed NLL divided by the whole batch's divisor, the main thread sums them in a fixed order
// (its own, then each worker's), clips and applies AdamW, and sends the new weights with the next
// batch. The sum is the whole batch's gradient up to float rounding, so a run is deterministic for
// a given worker count (but not bit-identical across counts).
import * as tf from '@tensorflow/tfjs';
import { Worker } from 'node:worker_threads';
import type { AdamW } from '../../src/model/adamw.ts';
import type { ModelConfig } from '../../src/model_files/hf_config.ts';
import type { CausalLM } from '../../src/model/model.ts';
import {
  applySftGradients,
  sftDivisor,
  sftGradients,
  type SftExample,
  type SftStepOptions,
} from '../../src/rl/sft.ts';

/** Main thread → worker: the current weights (trainable-variable order) and this worker's rows. */
export interface HelperRequest {
  weights: Float32Array[];
  batch: SftExample[];
  divisor: number;
}

/** Worker → main thread: its rows' value and gradients by variable name, or what went wrong. */
export type HelperReply =
  | { value: number; names: string[]; grads: Float32Array[] }
  | { error: string };

/**
 * Deals rows round-robin into `parts` parts (row i to part i mod parts), so padded lengths stay
 * alike.
 */
export function dealRows<T>(rows: readonly T[], parts: number): T[][] {
  const out: T[][] = Array.from({ length: parts }, () => []);
  rows.forEach((row, i) => out[i % parts]!.push(row));
  return out;
}

class Helper {
  private pending: {
    resolve: (reply: HelperReply) => void;
    reject: (error: Error) => void;
  } | null = null;
  private failure: Error | null = null;

  constructor(
    private readonly worker: Worker,
    private readonly id: number,
  ) {
    worker.on('message', (message: HelperReply | { ready: true }) => {
      if ('ready' in message) return;
      const pending = this.pending;
      this.pending = null;
      pending?.resolve(message);
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      this.pending?.reject(error);
      this.pending = null;
    };
    worker.on('error', (error) =>
      fail(new Error(`SFT worker ${this.id} failed: ${error.message}`)),
    );
    worker.on('exit', (code) => fail(new Error(`SFT worker ${this.id} exited (code ${code})`)));
  }

  request(request: HelperRequest): Promise<HelperReply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    this.failure ??= new Error(`SFT worker ${this.id} was closed`);
    await this.worker.terminate();
  }
}

/** A data-parallel SFT stepper over `workers` threads in all (the main thread is one of them). */
export class ParallelSft {
  private constructor(private readonly helpers: Helper[]) {}

  /** Starts workers - 1 worker threads, each with a replica of a model of `config`. */
  static async start(workers: number, config: ModelConfig, backend: string): Promise<ParallelSft> {
    if (!Number.isInteger(workers) || workers < 1)
      throw new Error(`workers must be a positive integer, got ${workers}`);
    const bootstrap = new URL('./ts_worker.mjs', import.meta.url);
    const entry = new URL('./sft_worker.ts', import.meta.url).href;
    const started = Array.from(
      { length: workers - 1 },
      (_, i) =>
        new Promise<Helper>((resolve, reject) => {
          const worker = new Worker(bootstrap, { workerData: { entry, config, backend } });
          const onError = (error: Error) =>
            reject(new Error(`SFT worker ${i + 1} failed to start: ${error.message}`));
          worker.once('error', onError);
          worker.once('message', () => {
            worker.off('error', onError);
            resolve(new Helper(worker, i + 1));
          });
        }),
    );
    const settled = await Promise.allSettled(started);
    const helpers = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      await Promise.all(helpers.map((h) => h.close()));
      throw failed.reason as Error;
    }
    return new ParallelSft(helpers);
  }

  /** Threads in all, the main thread included. */
  get workers(): number {
    return this.helpers.length + 1;
  }

  /**
   * sftStep's contract (same options, same returned loss), with the batch spread over the threads.
   */
  async step(
    model: CausalLM,
    optimizer: AdamW,
    batch: readonly SftExample[],
    options: SftStepOptions,
  ): Promise<number> {
    const { count, divisor } = sftDivisor(batch, options);
    if (!(divisor > 0)) throw new Error(`sftStep: normalizer must be positive, got ${divisor}`); // before any worker starts
    const [own, ...rest] = dealRows(batch, this.workers);
    // Read once; postMessage copies them to each worker (dataSync may hand out a backend's own
    // buffer).
    const weights = [...model.trainableVariables().values()].map(
      (v) => v.dataSync() as Float32Array,
    );
    const replies = this.helpers.flatMap((helper, i) =>
      rest[i]!.length > 0 ? [helper.request({ weights, batch: rest[i]!, divisor })] : [],
    );
    // The main thread works on its rows while the workers work on theirs.
    const mine = sftGradients(model, own!, divisor);
    const theirs = await Promise.allSettled(replies);
    const grads = mine.grads;
    let value = mine.value;
    let problem: string | null = null;
    for (const settled of theirs) {
      const reply =
        settled.status === 'fulfilled'
          ? settled.value
          : { error: (settled.reason as Error).message };
      if ('error' in reply) {
        problem ??= reply.error;
        continue;
      }
      value += reply.value;
      reply.names.forEach((name, i) => {
        const mineGrad = grads[name];
        if (!mineGrad) {
          problem ??= `a worker returned a gradient for ${name}, which the main thread has none for`;
          return;
        }
        const sum = tf.tidy(() => tf.add(mineGrad, tf.tensor(reply.grads[i]!, mineGrad.shape)));
        mineGrad.dispose();
        grads[name] = sum;
      });
    }
    if (problem) {
      Object.values(grads).forEach((g) => g.dispose());
      throw new Error(`data-parallel SFT step failed: ${problem}`);
    }
    applySftGradients(optimizer, grads, options);
    return (value * divisor) / count;
  }

  async close(): Promise<void> {
    await Promise.all(this.helpers.map((h) => h.close()));
  }
}
