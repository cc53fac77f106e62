// The run's change notices: panels subscribe and re-render only what a change touches.
import type { Change } from './run_types.ts';

/** Tells every subscriber what changed, in the order the changes happen. */
export class Changes {
  private readonly listeners = new Set<(change: Change) => void>();

  /** Subscribes to changes; returns the unsubscribe function. */
  subscribe(listener: (change: Change) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(change: Change): void {
    for (const listener of this.listeners) listener(change);
  }
}
