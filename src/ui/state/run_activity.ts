// What the run is doing now and what went wrong: the state, the status line, the errors shown,
// and the rule that one call runs at a time (the worker takes one at a time).
import { explainError, type UiError } from './errors.ts';
import type { Changes } from './run_changes.ts';
import type { RunState } from './run_types.ts';

/** The run's state, status line and errors, and the gate every worker call goes through. */
export class RunActivity {
  state: RunState = 'starting';
  status = 'Starting…';
  /**
   * Errors to show, oldest first (a bad link and a failed start can both matter); at most 3. A
   * call's failure replaces its earlier ones, and its success clears them.
   */
  errors: UiError[] = [];
  private readonly settlers: (() => void)[] = [];

  constructor(private readonly changes: Changes) {}

  /** The newest error, or null. */
  get error(): UiError | null {
    return this.errors.at(-1) ?? null;
  }

  /** Enters `state`, with a new status line when given. */
  set(state: RunState, status?: string): void {
    this.state = state;
    if (status !== undefined) this.status = status;
    this.changes.emit('state');
  }

  /** Clears the error area; with `error`, that one alone (each block has its own Dismiss). */
  dismissError(error?: UiError): void {
    this.errors = error ? this.errors.filter((e) => e !== error) : [];
    this.changes.emit('error');
  }

  /** Clears the errors `stale` picks (e.g. a failed load's, once a model has loaded). */
  clearErrors(stale: (error: UiError) => boolean): void {
    const kept = this.errors.filter((e) => !stale(e));
    if (kept.length === this.errors.length) return;
    this.errors = kept;
    this.changes.emit('error');
  }

  /**
   * Shows an error that happened outside a call (e.g. a bad custom task file); `title` overrides
   * the kind's.
   */
  showError(error: unknown, during: string, title?: string): void {
    const explained = explainError(error, during);
    if (title) explained.title = title;
    this.addError(explained);
  }

  /**
   * Adds an error; `replaces` picks the earlier ones it makes stale (a failed call's earlier
   * failures: what the person tried last is what matters). The same message is never shown twice.
   */
  private addError(error: UiError, replaces: (e: UiError) => boolean = () => false): void {
    const kept = this.errors.filter((e) => e.message !== error.message && !replaces(e));
    this.errors = [...kept, error].slice(-3);
    this.changes.emit('error');
  }

  /** Registers what a part undoes when a call ends, however it ends (before the state is idle). */
  onSettled(settle: () => void): void {
    this.settlers.push(settle);
  }

  /**
   * Runs `body` as the one call in flight: refuses when another is running, shows its error, and
   * returns whether it succeeded. A start is let in while the run is still in its first state,
   * 'starting'.
   */
  async exclusive(during: string, state: RunState, body: () => Promise<void>): Promise<boolean> {
    if (this.state !== 'idle' && !(this.state === 'starting' && state === 'starting')) return false;
    this.set(state);
    try {
      await body();
      // what went wrong the last times this was tried holds no longer
      this.clearErrors((e) => e.during === during);
      return true;
    } catch (error) {
      const explained = explainError(error, during);
      this.status = `Stopped while ${during}: ${explained.title.toLowerCase()}.`;
      // this failure replaces the earlier failures of the same call (three tries, one block)
      this.addError(explained, (e) => e.during === during);
      return false;
    } finally {
      for (const settle of this.settlers) settle();
      this.set('idle');
    }
  }
}
