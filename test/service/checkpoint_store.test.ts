// Checkpoint storage logic on the in-memory store (IndexedDB itself is covered by the browser
// test): keys, newest-first listing, retention per run, data kept apart from summaries, and the
// quota path (free other runs, retry, then a clear error).
import { describe, expect, it } from 'vitest';
import type { TrainerCheckpoint } from '../../src/service/trainer_api.ts';
import {
  CheckpointStore,
  memoryRecordStore,
  savedModel,
  shouldCheckpoint,
  StorageQuotaError,
  type CheckpointSummary,
  type RecordStore,
} from '../../src/service/checkpoint_store.ts';
import { buildMetrics } from '../helpers/records.ts';

function checkpoint(step: number, fragment = 'v=1&g=4'): TrainerCheckpoint {
  return {
    version: 1,
    configFragment: fragment,
    step,
    rngState: [1, 2, 3, step],
    taskOrder: [2, 0, 1],
    taskCursor: 1,
    model: {
      name: 'demo',
      source: 'demo',
      architecture: 'llama',
      parameters: 1000,
      trainableParameters: 10,
      card: null,
      warnings: [],
    },
    tensors: [{ name: 'lora.a', shape: [2, 2], data: Float32Array.from([step, 2, 3, 4]) }],
    optimizer: {
      step,
      moments: [{ name: 'lora.a', shape: [2, 2], m: new Float32Array(4), v: new Float32Array(4) }],
    },
    metrics: Array.from({ length: step }, (_, i) => buildMetrics(i + 1)),
    evals: [],
  };
}

const entry = (runId: string, savedAt: number) => ({
  runId,
  savedAt,
  reason: 'auto' as const,
  model: { kind: 'demo' as const },
  modelName: 'demo',
});

/** A RecordStore whose puts fail with the browser's quota error while `full` is true. */
function quotaStore<T>(
  inner: RecordStore<T>,
  state: { full: boolean | ((key: string) => boolean) },
): RecordStore<T> {
  return {
    ...inner,
    put: async (key, value) => {
      const full = typeof state.full === 'function' ? state.full(key) : state.full;
      if (full)
        throw Object.assign(new Error('The quota has been exceeded.'), {
          name: 'QuotaExceededError',
        });
      await inner.put(key, value);
    },
  };
}

describe('CheckpointStore', () => {
  it('saves, lists newest first, loads the exact tensors, and keeps only the newest per run', async () => {
    const summaries = memoryRecordStore<CheckpointSummary>();
    const data = memoryRecordStore<TrainerCheckpoint>();
    const store = new CheckpointStore(summaries, data, { keepPerRun: 2 });
    await store.save(entry('run-a', 1000), checkpoint(5));
    await store.save(entry('run-b', 1500), checkpoint(2, 'v=1&s=7'));
    await store.save(entry('run-a', 2000), checkpoint(10));
    await store.save(entry('run-a', 3000), checkpoint(15));
    const list = await store.list();
    expect(list.map((s) => s.key)).toEqual(['run-a/000015', 'run-a/000010', 'run-b/000002']);
    expect(data.size()).toBe(3); // run-a/000005 pruned with its weights
    const latest = await store.latest();
    expect(latest).toMatchObject({
      runId: 'run-a',
      step: 15,
      configFragment: 'v=1&g=4',
      modelName: 'demo',
    });
    const loaded = await store.load(latest!.key);
    expect(loaded.tensors[0]!.data).toEqual(Float32Array.from([15, 2, 3, 4]));
    expect(loaded.metrics).toHaveLength(15);
    expect((await store.load('run-b/000002')).configFragment).toBe('v=1&s=7');
  });

  it('removes and clears, and says how to recover when a checkpoint is gone', async () => {
    const store = new CheckpointStore(memoryRecordStore(), memoryRecordStore());
    await store.save(entry('r', 1), checkpoint(1));
    await store.save(entry('s', 2), checkpoint(1));
    await store.remove('r/000001');
    expect((await store.list()).map((s) => s.runId)).toEqual(['s']);
    await store.clear();
    expect(await store.latest()).toBeNull();
    await expect(store.load('r/000001')).rejects.toThrow(/no longer stored.*Fix:/);
  });

  it('frees other runs when the quota is hit, then succeeds', async () => {
    const state: { full: boolean | ((key: string) => boolean) } = { full: false };
    const data = memoryRecordStore<TrainerCheckpoint>();
    const store = new CheckpointStore(memoryRecordStore(), quotaStore(data, state));
    await store.save(entry('old', 1), checkpoint(3));
    // Full until the old run's weights are gone.
    state.full = () => data.size() > 0;
    const saved = await store.save(entry('new', 2), checkpoint(4));
    expect(saved.key).toBe('new/000004');
    expect((await store.list()).map((s) => s.runId)).toEqual(['new']);
  });

  it('throws StorageQuotaError with a fix when nothing can be freed', async () => {
    const store = new CheckpointStore(
      memoryRecordStore(),
      quotaStore(memoryRecordStore<TrainerCheckpoint>(), { full: true }),
    );
    const failure = store.save(entry('r', 1), checkpoint(6));
    await expect(failure).rejects.toBeInstanceOf(StorageQuotaError);
    await expect(store.save(entry('r', 1), checkpoint(6))).rejects.toThrow(
      /storage is full.*step 6.*Fix: export the adapter/,
    );
    expect(await store.latest()).toBeNull();
  });
});

describe('helpers', () => {
  it('checkpoints every N finished steps, never at step 0 or with N = 0', () => {
    expect([0, 1, 2, 3, 4, 5, 6].filter((s) => shouldCheckpoint(s, 3))).toEqual([3, 6]);
    expect(shouldCheckpoint(5, 0)).toBe(false);
  });

  it('keeps hub coordinates and turns picked files into their folder name', () => {
    expect(savedModel({ kind: 'hub', repo: 'a/b', baseUrl: 'http://h' }, 'a/b')).toEqual({
      kind: 'hub',
      repo: 'a/b',
      baseUrl: 'http://h',
    });
    expect(savedModel({ kind: 'files', files: [] }, 'my-model')).toEqual({
      kind: 'files',
      name: 'my-model',
    });
    expect(savedModel({ kind: 'demo' }, 'demo')).toEqual({ kind: 'demo' });
  });
});
