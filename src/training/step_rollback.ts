// Undoing a failed step: the trainer's weights and optimizer state as they were before it, and the
// tensors it created freed. Why: a step can fail anywhere (out of memory above all), and the update
// writes its variables one at a time (AdamW), over `ppoEpochs` optimizer steps, so a failure late in
// the update would leave some variables a step ahead of the others and of the optimizer's moments.
//
// - The snapshot is a copy in JavaScript memory, outside the WebAssembly heap (or GPU) that ran
//   out: restoring needs no room that a failed step may have left taken. Taken before the update
//   only (no other phase writes weights), and only of what trains: the LoRA adapters and their
//   moments, a few MB at the presets' sizes.
// - The tensor scope holds everything a phase creates: the engine's scope for tensors made outside
//   a tidy() (gradients summed over micro-batches), and every tensor the phase keep()s (a failed
//   backward pass leaves its tape's saved activations kept and unreferenced). On failure, all of
//   them are freed except what the model or the optimizer still holds (caches made on first use).
import * as tf from '@tensorflow/tfjs';
import type { AdamW, AdamWState } from '../model/adamw.ts';

/** The trainable weights and the optimizer state, copied out of the backend. */
export interface TrainableState {
  weights: Map<string, { shape: number[]; dtype: tf.DataType; data: tf.TypedArray }>;
  optimizer: AdamWState;
}

/** Copies the trainable variables and the optimizer's state out of the backend. */
export async function saveTrainable(
  variables: Map<string, tf.Variable>,
  optimizer: AdamW,
): Promise<TrainableState> {
  const entries = await Promise.all(
    [...variables].map(async ([name, variable]) => {
      const data = (await variable.data()) as tf.TypedArray;
      const saved = { shape: [...variable.shape], dtype: variable.dtype, data };
      return [name, saved] as [string, typeof saved];
    }),
  );
  return { weights: new Map(entries), optimizer: await optimizer.saveState() };
}

/** Writes a saved state back into the variables and the optimizer. */
export function loadTrainable(
  state: TrainableState,
  variables: Map<string, tf.Variable>,
  optimizer: AdamW,
): void {
  for (const [name, variable] of variables) {
    const saved = state.weights.get(name);
    if (!saved) continue;
    const value = tf.tensor(saved.data, saved.shape, saved.dtype);
    variable.assign(value);
    value.dispose();
  }
  optimizer.loadState(state.optimizer);
}

/** Every tensor reachable from `roots` through object fields, arrays, maps and sets. */
export function reachableTensors(roots: readonly unknown[]): Set<tf.Tensor> {
  const found = new Set<tf.Tensor>();
  const seen = new Set<object>();
  let frontier: unknown[] = [...roots];
  for (let depth = 0; depth < 12 && frontier.length > 0 && seen.size < 200_000; depth++) {
    const next: unknown[] = [];
    for (const value of frontier) {
      if (typeof value !== 'object' || value === null || seen.has(value)) continue;
      seen.add(value);
      if (value instanceof tf.Tensor) found.add(value);
      else if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) continue;
      else if (value instanceof Map) next.push(...value.keys(), ...value.values());
      else if (value instanceof Set) next.push(...value);
      else if (Array.isArray(value)) {
        if (typeof value[0] === 'object') next.push(...value);
      } else next.push(...Object.values(value));
    }
    frontier = next;
  }
  return found;
}

/** A scope around one phase: on failure, frees the tensors the phase made and left behind. */
export class TensorScope {
  private readonly kept: tf.Tensor[] = [];
  private readonly depth: number;
  private readonly ownKeep: PropertyDescriptor | undefined;
  private closed = false;

  constructor() {
    const engine = tf.engine();
    engine.startScope('trainer phase');
    this.depth = engine.state.scopeStack.length;
    // engine.keep is also what the engine calls for a tape's saved tensors (this.keep(…))
    this.ownKeep = Object.getOwnPropertyDescriptor(engine, 'keep');
    const keep = engine.keep;
    engine.keep = <T extends tf.Tensor>(result: T): T => {
      this.kept.push(result);
      return keep.call(engine, result) as T;
    };
  }

  /** The phase succeeded: its tensors stay, tracked as if made outside this scope. */
  close(): void {
    if (this.closed) return;
    const engine = tf.engine();
    this.unwind(engine);
    engine.endScope(engine.state.activeScope.track.filter((t) => !t.isDisposed));
    this.finish(engine);
  }

  /**
   * The phase failed: frees what it made, except tensors reachable from `holders` (the model, the
   * optimizer: caches made on first use). Returns how many tensors were freed.
   */
  abort(holders: readonly unknown[]): number {
    if (this.closed) return 0;
    const engine = tf.engine();
    this.unwind(engine);
    const made = [...engine.state.activeScope.track, ...this.kept];
    const alive = reachableTensors(holders);
    let freed = 0;
    engine.endScope(made.filter((t) => alive.has(t) && !t.isDisposed));
    for (const tensor of made) {
      if (tensor.isDisposed || alive.has(tensor) || tensor instanceof tf.Variable) continue;
      tensor.dispose();
      freed++;
    }
    // a gradient pass that failed leaves its tape (outside any gradient pass, nothing reads it)
    if (engine.state.gradientDepth === 0 && engine.state.activeTape) {
      for (const node of engine.state.activeTape)
        for (const tensor of node.saved ?? []) if (!tensor.isDisposed) tensor.dispose();
      engine.state.activeTape = null as unknown as typeof engine.state.activeTape;
    }
    this.finish(engine);
    return freed;
  }

  /** Ends scopes opened inside this one and left open by a failure. */
  private unwind(engine: ReturnType<typeof tf.engine>): void {
    while (engine.state.scopeStack.length > this.depth) engine.endScope();
  }

  private finish(engine: ReturnType<typeof tf.engine>): void {
    if (this.ownKeep) Object.defineProperty(engine, 'keep', this.ownKeep);
    else Reflect.deleteProperty(engine, 'keep');
    this.closed = true;
  }
}
