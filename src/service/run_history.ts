// The page's run history (docs/page.md "Compare runs"): each finished or paused run's curves,
// config and recent trajectories, kept in IndexedDB so an earlier run can be overlaid on the
// current one after a reload. Capped (the oldest go first), each run deletable. Summaries (config,
// metrics: a few KB a step) live apart from the trajectories (tens of KB a step), so listing the
// history never reads the trajectories; as the checkpoint store, it sits on the RecordStore
// interface, with IndexedDB in the page and a Map in Node tests.
import type { StepMetrics, Trajectory } from '../rl/types.ts';
import type { RunConfig } from '../run/config.ts';
import {
  indexedDbRecordStores,
  memoryRecordStore,
  type RecordStore,
  StorageQuotaError,
} from './checkpoint_store.ts';
import type { EvalReport } from './trainer_api.ts';

/** Runs the history keeps; saving one more deletes the oldest. */
export const HISTORY_CAP = 20;
/** Steps whose trajectories a saved run keeps (the viewer's last steps). */
export const HISTORY_STEPS = 20;

/** A saved run as the history lists it (no trajectories). */
export interface SavedRunSummary {
  /** The run's id (RunView.runId): saving the same run again replaces it. */
  id: string;
  /** Milliseconds since the epoch. */
  savedAt: number;
  reason: 'finished' | 'paused' | 'lesson';
  /** Its name on the legend: a lesson run's label, else what differs from the default run. */
  label: string;
  /** The lesson and run it was trained for, if any. */
  lesson: { id: string; run: number; seed: number } | null;
  config: RunConfig;
  modelName: string;
  metrics: StepMetrics[];
  evals: EvalReport[];
}

/** One step's trajectories, without token arrays. */
export interface SavedStep {
  step: number;
  trajectories: Trajectory[];
}

/** A saved run with its trajectories. */
export interface SavedRun extends SavedRunSummary {
  steps: SavedStep[];
}

/** A trajectory without what only the update reads (ids, mask, log-probs): a tenth of its size. */
export function lightTrajectory(t: Trajectory): Trajectory {
  return { ...t, ids: [], actionMask: [], oldLogprobs: null, refLogprobs: null };
}

function isQuotaError(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'QuotaExceededError' || name === 'NS_ERROR_DOM_QUOTA_REACHED';
}

/** Saved runs, newest first, at most `cap`. */
export class RunHistory {
  constructor(
    private readonly summaries: RecordStore<SavedRunSummary>,
    private readonly trajectories: RecordStore<SavedStep[]>,
    readonly cap = HISTORY_CAP,
  ) {}

  /**
   * Saves `run` (replacing an earlier save of the same run), keeping the last HISTORY_STEPS
   * steps' trajectories, then deletes the oldest runs past the cap. When the browser's quota is
   * full it drops the oldest run and tries again, then says what to do.
   */
  async save(run: SavedRun): Promise<SavedRunSummary> {
    const { steps, ...summary } = run;
    const kept = steps.slice(-HISTORY_STEPS).map((s) => ({
      step: s.step,
      trajectories: s.trajectories.map(lightTrajectory),
    }));
    for (let attempt = 0; ; attempt++) {
      try {
        // trajectories first: a listed run always has them
        await this.trajectories.put(run.id, kept);
        await this.summaries.put(run.id, summary);
        break;
      } catch (error) {
        if (!isQuotaError(error)) throw error;
        const oldest = (await this.list()).filter((r) => r.id !== run.id).at(-1);
        if (!oldest || attempt >= 3)
          throw new StorageQuotaError(
            "the browser's storage is full, so this run was not kept for comparing. Fix: delete earlier runs under Compare runs, or clear this site's data in the browser settings.",
          );
        await this.remove(oldest.id);
      }
    }
    const all = await this.list();
    await Promise.all(all.slice(this.cap).map((r) => this.remove(r.id)));
    return summary;
  }

  /** Every saved run's summary, newest first. */
  async list(): Promise<SavedRunSummary[]> {
    const keys = await this.summaries.keys();
    const found = await Promise.all(keys.map((key) => this.summaries.get(key)));
    return found
      .filter((r): r is SavedRunSummary => r !== undefined)
      .sort((a, b) => b.savedAt - a.savedAt);
  }

  /** A saved run with its trajectories, or null when it is gone. */
  async load(id: string): Promise<SavedRun | null> {
    const summary = await this.summaries.get(id);
    if (!summary) return null;
    return { ...summary, steps: (await this.trajectories.get(id)) ?? [] };
  }

  async remove(id: string): Promise<void> {
    await this.summaries.delete(id);
    await this.trajectories.delete(id);
  }

  /** Deletes every saved run. */
  async clear(): Promise<void> {
    await Promise.all((await this.summaries.keys()).map((id) => this.remove(id)));
  }
}

/** A RunHistory in memory (tests, and the page when IndexedDB is unavailable). */
export function memoryRunHistory(cap = HISTORY_CAP): RunHistory {
  return new RunHistory(memoryRecordStore(), memoryRecordStore(), cap);
}

/** A RunHistory over IndexedDB (`factory` is the page's `indexedDB`). */
export async function indexedDbRunHistory(
  factory: IDBFactory,
  options: { dbName?: string; cap?: number } = {},
): Promise<RunHistory> {
  const store = await indexedDbRecordStores(factory, options.dbName ?? 'agentic-rl-runs', [
    'summaries',
    'trajectories',
  ]);
  return new RunHistory(store('summaries'), store('trajectories'), options.cap);
}
