// Checkpoints that survive a reload or a crash (docs/architecture.md §6): the trainer worker's
// TrainerCheckpoint plus what the page needs to offer "resume" (which model, when, which step).
// The logic (keys, retention, latest, quota handling) sits on a tiny key-value interface with two
// implementations: IndexedDB in the page, a Map in Node tests. Summaries live apart from the
// weights so listing checkpoints never reads megabytes.
import type { ModelChoice, TrainerCheckpoint } from './trainer_api.ts';

/** Minimal async key-value storage. Values must be structured-clonable. */
export interface RecordStore<T> {
  put(key: string, value: T): Promise<void>;
  get(key: string): Promise<T | undefined>;
  delete(key: string): Promise<void>;
  keys(): Promise<string[]>;
}

/**
 * The model a checkpoint was trained on, in a form that survives a reload (picked files do not).
 */
export type SavedModel =
  | { kind: 'demo' }
  | { kind: 'hub'; repo: string; revision?: string; baseUrl?: string }
  | { kind: 'files'; name: string };

/** What the page lists about a saved checkpoint. */
export interface CheckpointSummary {
  key: string;
  runId: string;
  step: number;
  /** Milliseconds since the epoch. */
  savedAt: number;
  /** 'memory': the run as after its last step, saved when the next one ran out of memory. */
  reason: 'auto' | 'pause' | 'manual' | 'memory';
  model: SavedModel;
  modelName: string;
  /** The run link fragment, so the resumed run has the same config. */
  configFragment: string;
}

/** Raised when the browser refuses to store more; the message says what to do. */
export class StorageQuotaError extends Error {
  override name = 'StorageQuotaError';
}

/** The persistent form of a model choice (files become their folder name). */
export function savedModel(choice: ModelChoice, name: string): SavedModel {
  if (choice.kind === 'files') return { kind: 'files', name };
  if (choice.kind === 'hub') {
    const saved: SavedModel = { kind: 'hub', repo: choice.repo };
    if (choice.revision) saved.revision = choice.revision;
    if (choice.baseUrl) saved.baseUrl = choice.baseUrl;
    return saved;
  }
  return { kind: 'demo' };
}

/** Whether a run checkpoints after finishing `step` when saving every `every` steps (0 = never). */
export function shouldCheckpoint(step: number, every: number): boolean {
  return every > 0 && step > 0 && step % every === 0;
}

function isQuotaError(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'QuotaExceededError' || name === 'NS_ERROR_DOM_QUOTA_REACHED';
}

/** Checkpoints by run, newest kept, the rest pruned. */
export class CheckpointStore {
  private readonly keepPerRun: number;

  constructor(
    private readonly summaries: RecordStore<CheckpointSummary>,
    private readonly data: RecordStore<TrainerCheckpoint>,
    options: { keepPerRun?: number } = {},
  ) {
    this.keepPerRun = Math.max(1, options.keepPerRun ?? 2);
  }

  /**
   * Saves `checkpoint` for `runId`, then prunes the run's older checkpoints. When the browser's
   * quota is exceeded it frees other runs' checkpoints and tries once more, then throws
   * StorageQuotaError.
   */
  async save(
    entry: Omit<CheckpointSummary, 'key' | 'step' | 'configFragment'>,
    checkpoint: TrainerCheckpoint,
  ): Promise<CheckpointSummary> {
    const key = `${entry.runId}/${String(checkpoint.step).padStart(6, '0')}`;
    const summary: CheckpointSummary = {
      ...entry,
      key,
      step: checkpoint.step,
      configFragment: checkpoint.configFragment,
    };
    try {
      await this.write(summary, checkpoint);
    } catch (error) {
      if (!isQuotaError(error)) throw error;
      const others = (await this.list()).filter((s) => s.runId !== entry.runId);
      await Promise.all(others.map((s) => this.remove(s.key)));
      try {
        await this.write(summary, checkpoint);
      } catch (again) {
        if (!isQuotaError(again)) throw again;
        throw new StorageQuotaError(
          `the browser's storage is full, so the checkpoint of step ${checkpoint.step} was not saved. ` +
            "Fix: export the adapter and metrics now, then free space (delete old checkpoints here, or clear this site's data in the browser settings).",
        );
      }
    }
    const ofRun = (await this.list()).filter((s) => s.runId === entry.runId);
    await Promise.all(ofRun.slice(this.keepPerRun).map((s) => this.remove(s.key)));
    return summary;
  }

  private async write(summary: CheckpointSummary, checkpoint: TrainerCheckpoint): Promise<void> {
    // Data first: a summary never points at weights that are not there.
    await this.data.put(summary.key, checkpoint);
    await this.summaries.put(summary.key, summary);
  }

  /** Every checkpoint, newest first. */
  async list(): Promise<CheckpointSummary[]> {
    const keys = await this.summaries.keys();
    const found = await Promise.all(keys.map((key) => this.summaries.get(key)));
    return found
      .filter((s): s is CheckpointSummary => s !== undefined)
      .sort((a, b) => b.savedAt - a.savedAt || b.step - a.step);
  }

  /** The newest checkpoint's summary, or null. */
  async latest(): Promise<CheckpointSummary | null> {
    return (await this.list())[0] ?? null;
  }

  /** The checkpoint under `key`; throws with a fix if it is gone. */
  async load(key: string): Promise<TrainerCheckpoint> {
    const checkpoint = await this.data.get(key);
    if (!checkpoint)
      throw new Error(
        `checkpoint ${key} is no longer stored (the browser may have cleared it). Fix: start a new run.`,
      );
    return checkpoint;
  }

  async remove(key: string): Promise<void> {
    await this.summaries.delete(key);
    await this.data.delete(key);
  }

  /** Removes every checkpoint. */
  async clear(): Promise<void> {
    await Promise.all((await this.summaries.keys()).map((key) => this.remove(key)));
  }
}

/** A RecordStore in memory; values are structured-cloned, as IndexedDB does. */
export function memoryRecordStore<T>(): RecordStore<T> & { readonly size: () => number } {
  const entries = new Map<string, T>();
  return {
    async put(key, value) {
      entries.set(key, structuredClone(value));
    },
    async get(key) {
      const value = entries.get(key);
      return value === undefined ? undefined : structuredClone(value);
    },
    async delete(key) {
      entries.delete(key);
    },
    async keys() {
      return [...entries.keys()];
    },
    size: () => entries.size,
  };
}

/** A CheckpointStore in memory (tests, and the page when IndexedDB is unavailable). */
export function memoryCheckpointStore(options: { keepPerRun?: number } = {}): CheckpointStore {
  return new CheckpointStore(memoryRecordStore(), memoryRecordStore(), options);
}

const SUMMARIES = 'summaries';
const DATA = 'checkpoints';

function requestResult<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });
}

/**
 * Opens (creating where missing) the IndexedDB database `dbName` with the object stores `names`,
 * and returns a RecordStore over any of them; each write resolves once its transaction commits.
 * The checkpoint store and the run history (run_history.ts) each open their own database.
 */
export async function indexedDbRecordStores(
  factory: IDBFactory,
  dbName: string,
  names: readonly string[],
): Promise<<T>(name: string) => RecordStore<T>> {
  const open = factory.open(dbName, 1);
  open.onupgradeneeded = () => {
    for (const name of names)
      if (!open.result.objectStoreNames.contains(name)) open.result.createObjectStore(name);
  };
  const db = await requestResult(open);
  return <T>(name: string): RecordStore<T> => {
    const run = async <R>(
      mode: IDBTransactionMode,
      body: (s: IDBObjectStore) => IDBRequest<R>,
    ): Promise<R> => {
      const transaction = db.transaction(name, mode);
      // Resolve when the transaction commits (a put is durable only then), not when the request
      // succeeds.
      const done = new Promise<void>((resolve, reject) => {
        transaction.oncomplete = () => resolve();
        transaction.onerror = () =>
          reject(transaction.error ?? new Error('IndexedDB transaction failed'));
        transaction.onabort = () =>
          reject(transaction.error ?? new Error('IndexedDB transaction aborted'));
      });
      const [result] = await Promise.all([
        requestResult(body(transaction.objectStore(name))),
        done,
      ]);
      return result;
    };
    return {
      put: async (key, value) => void (await run('readwrite', (s) => s.put(value, key))),
      get: (key) => run('readonly', (s) => s.get(key) as IDBRequest<T | undefined>),
      delete: async (key) => void (await run('readwrite', (s) => s.delete(key))),
      keys: async () => (await run('readonly', (s) => s.getAllKeys())).map(String),
    };
  };
}

/** A CheckpointStore over IndexedDB (`factory` is the page's `indexedDB`). */
export async function indexedDbCheckpointStore(
  factory: IDBFactory,
  options: { dbName?: string; keepPerRun?: number } = {},
): Promise<CheckpointStore> {
  const store = await indexedDbRecordStores(factory, options.dbName ?? 'agentic-rl-checkpoints', [
    SUMMARIES,
    DATA,
  ]);
  return new CheckpointStore(
    store<CheckpointSummary>(SUMMARIES),
    store<TrainerCheckpoint>(DATA),
    options,
  );
}
