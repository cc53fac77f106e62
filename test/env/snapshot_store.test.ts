// The snapshot store (snapshot_store.ts) on a stand-in for the Cache API: what it keeps comes back
// byte for byte, and keeping one under a new key (a new build) drops the old build's.
import { describe, expect, it } from 'vitest';
import {
  cacheSnapshotStore,
  SNAPSHOT_CACHE,
  type CacheStorageLike,
} from '../../src/env/snapshot_store.ts';

/** The Cache API's behaviour this store relies on, over Maps (Node has no CacheStorage). */
function fakeCaches(): CacheStorageLike & { entries(name: string): string[] } {
  const caches = new Map<string, Map<string, Uint8Array>>();
  const named = (name: string) => caches.get(name) ?? caches.set(name, new Map()).get(name)!;
  return {
    entries: (name) => [...named(name).keys()],
    open: async (name) => {
      const cache = named(name);
      return {
        match: async (key) =>
          cache.has(key) ? new Response(cache.get(key)! as BlobPart) : undefined,
        put: async (key, response) => {
          cache.set(key, new Uint8Array(await response.arrayBuffer()));
        },
        keys: async () => [...cache.keys()].map((url) => ({ url })),
        delete: async (key) => cache.delete(key),
      };
    },
  };
}

describe('cacheSnapshotStore', () => {
  it('has nothing at first, then gives back exactly the bytes kept', async () => {
    const caches = fakeCaches();
    const store = cacheSnapshotStore(
      caches,
      'http://x/assets/trainer.worker-AAA.js?sandbox-snapshot',
    );
    expect(await store.load()).toBeNull();
    const snapshot = Uint8Array.from({ length: 4096 }, (_, i) => (i * 37) & 255);
    await store.save(snapshot);
    expect(await store.load()).toEqual(snapshot);
  });

  it("keeps one build's snapshot only: a new key drops the others", async () => {
    const caches = fakeCaches();
    const old = cacheSnapshotStore(
      caches,
      'http://x/assets/trainer.worker-AAA.js?sandbox-snapshot',
    );
    await old.save(new Uint8Array([1, 2, 3]));
    const next = cacheSnapshotStore(
      caches,
      'http://x/assets/trainer.worker-BBB.js?sandbox-snapshot',
    );
    expect(await next.load()).toBeNull(); // never the old build's
    await next.save(new Uint8Array([4, 5]));
    expect(caches.entries(SNAPSHOT_CACHE)).toEqual([
      'http://x/assets/trainer.worker-BBB.js?sandbox-snapshot',
    ]);
    expect(await old.load()).toBeNull();
    expect(await next.load()).toEqual(new Uint8Array([4, 5]));
  });
});
